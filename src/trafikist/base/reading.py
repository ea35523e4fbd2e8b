"""The source the build is reading, and the build guard's one line for anything that is not a
CourseError.

Every bad input should have its own CourseError. The guard is the backstop for the rest: each
adapter (the MkDocs plugin, the Zensical adapter, the CLI) turns any other exception into one
line, `FILE:LINE: what. Fix: how.`, naming the file that was being read when it was raised,
and exits 1 with no traceback; `--debug` (or TRAFIKIST_DEBUG=1) adds the traceback.

Which file: the core's steps say what they read (`reading`: a page's file, the course folder,
mkdocs.yml), and each source the loader opens refines it (`note_reading`, from
trafikist.base.files.read_source_text). One context variable, set once per step and per file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import traceback
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import CourseError

DEBUG_VARIABLE = "TRAFIKIST_DEBUG"


@dataclass(frozen=True)
class Reading:
    """The file the build is reading (and the line, where one is known)."""

    file: Path | str
    line: int | None = None


_READING: ContextVar[Reading | None] = ContextVar("trafikist_reading", default=None)
_TAG = "_trafikist_reading"  # set on an exception as it leaves a `reading` block


def note_reading(file: Path | str, line: int | None = None) -> None:
    """Say which source the build reads now; it holds until the enclosing `reading` block
    ends, or the next note."""
    _READING.set(Reading(file, line))


@contextlib.contextmanager
def reading(file: Path | str, line: int | None = None) -> Iterator[None]:
    """A step of the build that reads `file` (a source, or a folder of them). Notes made
    inside it refine it and end with it. An exception other than a CourseError leaves the
    block carrying the innermost source being read when it was raised, for `unexpected`."""
    token = _READING.set(Reading(file, line))
    try:
        yield
    except Exception as error:
        if not isinstance(error, CourseError) and getattr(error, _TAG, None) is None:
            with contextlib.suppress(Exception):  # an exception that takes no attribute
                setattr(error, _TAG, _READING.get())
        raise
    finally:
        _READING.reset(token)


def current_reading() -> Reading | None:
    return _READING.get()


def debug_requested() -> bool:
    """True when the author asked for tracebacks: `--debug` (the CLI sets the variable for
    what it runs), or TRAFIKIST_DEBUG=1 in the environment (for `mkdocs build`)."""
    return os.environ.get(DEBUG_VARIABLE, "").strip().lower() in ("1", "true", "yes", "on")


def unexpected(
    error: BaseException, fallback: Path | str, *, source: Path | str | None = None
) -> CourseError:
    """The guard's line for `error`, which is not a CourseError: the source being read when it
    was raised (or `source`, when the caller knows better; `fallback`, mkdocs.yml, when none
    was), what was raised, and what to do. The adapters raise it `from error`, so that
    `--debug` can show the traceback."""
    if isinstance(error, OSError) and error.filename and error.errno in _CANNOT_WRITE:
        return cannot_write(error)
    where = (
        (Reading(source) if source is not None else None)
        or getattr(error, _TAG, None)
        or _READING.get()
        or Reading(fallback)
    )
    detail = re.sub(r"\s+", " ", str(error)).strip().rstrip(".")
    if len(detail) > 160:
        detail = detail[:157].rstrip() + "…"
    what = f"the build stopped on an unexpected {type(error).__name__}"
    what += f" ({detail})" if detail else ""
    return CourseError.at(
        where.file,
        where.line,
        f"{what} while reading this file",
        "Look there for what is out of the ordinary (a value of an unusual type, a link that "
        "leads nowhere, very deep nesting) and correct it; if the file is right, this is a bug "
        f"of the build: rerun with --debug (or {DEBUG_VARIABLE}=1) and report its traceback.",
    )


# A file the system refused the build, by the reason: what it says, and what to do.
_CANNOT_WRITE = {
    errno.ENOSPC: ("cannot be written", "Free space on its disk"),
    errno.EDQUOT: ("cannot be written", "Free space within the disk quota"),
    errno.EROFS: ("cannot be written", "Name a site folder on a disk that can be written (-d)"),
    errno.EACCES: ("cannot be opened", "Give the build the right to read and write it, or name "
                   "another site folder (-d)"),
    errno.EPERM: ("cannot be opened", "Give the build the right to read and write it, or name "
                  "another site folder (-d)"),
}  # fmt: skip
# The site is built in a staging folder beside the site folder (trafikist.core.staging:
# `.NAME-building-XXXX`): a path there is named as the site folder's own.
_STAGING = re.compile(r"(?:^|(?<=/))\.(?P<name>[^/]+)-(?:building|previous)-[^/]+(?=/|$)")


def cannot_write(error: OSError) -> CourseError:
    """A file the build writes (in the site folder, most often) that the system refused: the
    file and the reason, not the source read last, which is not at fault."""
    path = _STAGING.sub(lambda match: match["name"], os.fsdecode(error.filename))
    try:
        shown: str = os.path.relpath(path)
    except ValueError:
        shown = path
    shown = path if shown.startswith("..") else shown
    reason = error.strerror or errno.errorcode.get(error.errno or 0, "an error")
    what, fix = _CANNOT_WRITE[error.errno or 0]
    return CourseError.at(shown, None, f"{what}: {reason}", f"{fix}; the last site is unchanged.")


def traceback_text(error: BaseException) -> str:
    """The traceback `--debug` prints: of what the guard caught (a CourseError's cause), or ""
    for a CourseError of its own."""
    cause = error.__cause__ if isinstance(error, CourseError) else error
    if cause is None:
        return ""
    return "".join(traceback.format_exception(cause))
