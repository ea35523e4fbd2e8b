"""The transcripts a page shows: a Valkey session the course's runner recorded, shown as an
excerpt that names its command list (`transcript: NAME`, the module's transcripts/NAME.txt).

The build checks that the list exists, that the page shows its commands in order, and that its
caption names the snapshot's Valkey version; a Valkey statement's proof may cite one of its
steps (`NAME#STEP replies VALUE`, `NAME#STEP shows "TEXT"`: trafikist.checks.valkey_statements).
The tests replay every transcript on a real Valkey (`transcript_proofs`), so a step's reply is
Valkey's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import Problem
from trafikist.base.files import read_source_text
from trafikist.checks.sentences import page_sentences
from trafikist.course import syntax
from trafikist.course.structure import SLUG_PATTERN, SLUG_TEXT, Page
from trafikist.course.transcripts import Line, command_file, parse_commands, shown_steps
from trafikist.registry.valkey import ValkeyTable

# A proof that cites a step of a transcript the page shows.
TRANSCRIPT_PROOF = re.compile(
    rf"^(?P<name>{SLUG_PATTERN})#(?P<step>\d+)\s+(?P<how>replies|shows)\s+(?P<value>.+)$"
)


@dataclass(frozen=True)
class Shown:
    """A transcript a page shows: the excerpt's line, its command list, its steps."""

    name: str
    line: int
    steps: tuple[tuple[str, str], ...]  # (prompt, reply) of each step


def shown_transcripts(page: Page, table: ValkeyTable, problems: list[Problem]) -> dict[str, Shown]:
    """The transcripts the page shows, by name; what is wrong with one goes to `problems`."""
    return dict(_shown(page, table, problems))


def _shown(page: Page, table: ValkeyTable, problems: list[Problem]) -> Iterator[tuple[str, Shown]]:
    assert page.source is not None
    scanned = syntax.scan(page.body)
    folder = page.module_folder
    for excerpt in scanned.excerpts:
        name = excerpt.options.get("transcript", "").strip().strip("'\"")
        line = page.body_line + excerpt.line
        if not name:
            if _claims_a_transcript(excerpt.caption):
                problems.append(
                    Problem(
                        page.source,
                        line,
                        "this excerpt's caption says it is a Valkey transcript, but it names no "
                        "command list.",
                        "Name it on the next line, `    transcript: NAME`, with the list in the "
                        'module\'s transcripts/NAME.txt (docs/authoring.md, "Transcripts").',
                    )
                )
            continue
        if not SLUG_TEXT.match(name):  # a name is read as a path: it stays a slug
            problems.append(
                Problem(
                    page.source,
                    line,
                    f"the excerpt names the transcript '{name}', which is not a lowercase slug.",
                    "Name the command list by its file in the module's transcripts/, without "
                    "'.txt', in lowercase letters, digits and dashes (like '03-park').",
                )
            )
            continue
        path = command_file(folder, name) if folder else None
        if path is None or not path.is_file():
            problems.append(
                Problem(
                    page.source,
                    line,
                    f"the excerpt names the transcript '{name}', which the module's transcripts/ "
                    "does not have.",
                    f"Write its command list as transcripts/{name}.txt, or name one that exists.",
                )
            )
            continue
        text = "\n".join(line for fence in excerpt.fences for line in fence.code)
        steps = shown_steps(text)
        entries = parse_commands(read_source_text(path), path)
        # A list the runner cannot replay is the slip: the page is compared with it once it is.
        replay = replay_problems(entries, path, table)
        problems += replay
        commands = [entry.prompt.rstrip() for entry in entries]
        if not replay and [step.prompt.rstrip() for step in steps] != commands:
            problems.append(
                Problem(
                    page.source,
                    line,
                    f"the transcript '{name}' shows other commands than transcripts/{name}.txt "
                    "sends.",
                    "Show its commands in order, each after its prompt, as `.venv/bin/python -m "
                    "support.transcripts` prints them.",
                )
            )
        if f"Valkey {table.version}" not in excerpt.caption:
            problems.append(
                Problem(
                    page.source,
                    line,
                    f"the transcript '{name}' does not say which Valkey replied: its caption "
                    f"names no Valkey {table.version}.",
                    f"Say where the output comes from, e.g. \"the course's runner against Valkey "
                    f'{table.version} — …".',
                )
            )
        yield name, Shown(name, line, tuple((step.prompt, step.reply) for step in steps))


def replay_problems(entries: list[Line], path: Path, table: ValkeyTable) -> list[Problem]:
    """What the course's runner (tests/support/transcripts.py) cannot replay, at its line of
    the command list: a command the pinned command table does not have, a ` &` on a command
    that never blocks (the runner waits for a blocked client that never comes), an `A<` that
    no blocked command of A awaits (it would wait for a reply forever), a command sent on a
    connection whose blocked command has not replied (it would read that reply as its own).
    Found here, at build, not by a test that hangs."""
    problems: list[Problem] = []
    awaiting: dict[str, str] = {}  # label -> the blocked command whose reply is due
    source = table.file.name
    for entry in entries:
        who = f"client {entry.label}" if entry.label else "the default connection"
        if entry.reply:
            if awaiting.pop(entry.label, None) is None:
                problems.append(Problem(
                    path, entry.number,
                    f"'{entry.label}<' reads a reply that no command of {who} awaits (none was "
                    "sent with ' &'): the runner would wait for it forever.",
                    f"Send a blocking command on {who} with ' &' first, or delete this line.",
                ))  # fmt: skip
            continue
        if entry.label in awaiting:
            problems.append(Problem(
                path, entry.number,
                f"'{entry.text[:60]}' is sent on {who} while its '{awaiting[entry.label]}' "
                "awaits its reply: the runner would read that reply as this command's.",
                f"Read the blocked reply first ('{entry.label}<'), or send this command from "
                "another client ('B> …').",
            ))  # fmt: skip
            continue
        name = entry.argv[0].upper() if entry.argv else ""
        command = table.get(" ".join(entry.argv[:2])) if len(entry.argv) > 1 else None
        command = command or table.get(name)
        if command is None:
            problems.append(Problem(
                path, entry.number,
                f"'{name[:40]}' is not a command of Valkey {table.version} ({source}, the "
                "pinned command table): the runner's server would refuse it.",
                "Use a command of the pinned table, spelled as Valkey spells it.",
            ))  # fmt: skip
            continue
        if entry.blocks:
            if "blocking" not in (command.fields.get("flags") or []):
                problems.append(Problem(
                    path, entry.number,
                    f"'{entry.text[:60]}' is sent with ' &', but {command.name} never blocks "
                    f"(its flags in {source} have no 'blocking'): the runner would wait for a "
                    "blocked client that never comes.",
                    "Drop the ' &', or send a command that blocks (BLPOP, XREAD … BLOCK).",
                ))  # fmt: skip
                continue
            awaiting[entry.label] = entry.text
    return problems


def _claims_a_transcript(caption: str) -> bool:
    return bool(re.search(r"\b(?:valkey-cli|runner)\b.*\bValkey \d", caption))


def transcript_disproof(match: re.Match[str], shown: dict[str, Shown]) -> str:
    transcript = shown.get(match["name"])
    if transcript is None:
        return (
            f"names the transcript '{match['name']}', which the page does not show "
            "(an excerpt with `transcript: NAME`)"
        )
    number = int(match["step"])
    if not 1 <= number <= len(transcript.steps):
        return f"names step {number}, and the transcript has {len(transcript.steps)} steps"
    prompt, reply = transcript.steps[number - 1]
    if reply_holds(match["how"], match["value"], reply):
        return ""
    return f"does not hold: step {number} ({prompt.strip()}) replies {_one_line(reply)}"


@dataclass(frozen=True)
class TranscriptProof:
    """A proof that cites a transcript step, for the test that replays it on Valkey."""

    file: Path
    line: int
    sentence: str
    module_folder: Path
    transcript: str
    step: int
    how: str  # replies or shows
    value: str


def transcript_proofs(page: Page) -> list[TranscriptProof]:
    """Every proof of the page that cites a transcript step."""
    folder = page.module_folder
    if folder is None:
        return []
    found = []
    for sentence in page_sentences(page):
        for span in syntax.find_spans(sentence.markdown):
            if span.kind != "valkey":
                continue
            for proof in syntax.split_predicates(span.expression):
                if match := TRANSCRIPT_PROOF.match(proof):
                    found.append(
                        TranscriptProof(
                            sentence.file,
                            sentence.line,
                            span.sentence,
                            folder,
                            match["name"],
                            int(match["step"]),
                            match["how"],
                            match["value"],
                        )
                    )
    return found


def reply_holds(how: str, stated: str, reply: str) -> bool:
    """`replies VALUE` or `shows "TEXT"` against a step's reply as the transcript prints it."""
    stated = stated.strip()
    if how == "shows":
        return stated.strip('"') in reply
    return printed_reply_is(reply, stated)


def printed_reply_is(reply: str, stated: str) -> bool:
    """A stated reply against the printed one: 60 is `(integer) 60`, nil is `(nil)`, error is
    any `(error)`, a quoted text is the bulk string, OK is `OK`."""
    if re.fullmatch(r"-?\d+", stated):
        return reply == f"(integer) {stated}"
    if stated.lower() == "nil":
        return reply == "(nil)"
    if stated.lower() == "error":
        return reply.startswith("(error) ")
    if stated.lower().startswith("error "):
        return reply.startswith(f"(error) {stated[6:].strip()}")
    return reply == stated


def _one_line(text: str) -> str:
    return " / ".join(line.strip() for line in text.splitlines()) or "nothing"
