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
from trafikist.course.structure import Page
from trafikist.course.transcripts import command_file, parse_commands, shown_steps
from trafikist.registry.valkey import ValkeyTable

# A proof that cites a step of a transcript the page shows.
TRANSCRIPT_PROOF = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9-]*)#(?P<step>\d+)\s+(?P<how>replies|shows)\s+(?P<value>.+)$"
)


@dataclass(frozen=True)
class Shown:
    """A transcript a page shows: the excerpt's line, its command list, its steps."""

    name: str
    line: int
    steps: tuple[tuple[str, str], ...]  # (prompt, reply) of each step


TRANSCRIPT_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


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
        if not TRANSCRIPT_NAME.match(name):  # a name is read as a path: it stays a slug
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
        commands = [entry.prompt.rstrip() for entry in parse_commands(read_source_text(path), path)]
        if [step.prompt.rstrip() for step in steps] != commands:
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
