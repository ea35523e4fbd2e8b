"""One error type for every kind of bad input an author can give.

Each error names the file, the line where there is one, what is wrong and how to fix it, so the
adapters (mkdocs, the CLI) can print it as one line and exit non-zero, never a traceback.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the course sources."""

    file: Path | str
    line: int | None
    what: str
    fix: str
    # True for what fails a strict build only (an unsourced sentence, an unchecked fact); a
    # lenient build reports it as a warning.
    strict_only: bool = False

    def location(self) -> str:
        file = display_path(self.file)
        return f"{file}:{self.line}" if self.line else file

    def __str__(self) -> str:
        # One form for every message, `FILE:LINE: what. Fix: how.`, however a check ends its
        # sentence.
        what = self.what.rstrip()
        what += "" if what.endswith((".", "?", "!")) else "."
        return f"{self.location()}: {what} Fix: {self.fix}"


class CourseError(Exception):
    """Raised with one or more problems; its message lists them, one a line."""

    def __init__(self, problems: Problem | list[Problem]):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))

    @classmethod
    def at(cls, file: Path | str, line: int | None, what: str, fix: str) -> CourseError:
        return cls(Problem(file, line, what, fix))


def display_path(file: Path | str) -> str:
    """A path as an author reads it: relative to the working folder when it lies inside it."""
    path = Path(file)
    here = Path.cwd()
    # The path as given first (a link is named, not its target), then as resolved.
    try:
        return str(Path(os.path.abspath(path)).relative_to(here))
    except ValueError:
        pass
    try:
        return str(path.resolve().relative_to(here.resolve()))
    except (ValueError, OSError, RuntimeError):  # a link to itself cannot be resolved
        return str(path)
