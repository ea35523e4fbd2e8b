"""Reading the author's files as text, and signatures of files: what a cached result read, so
that an edit there is a new key."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from trafikist.base.characters import first_suspect, line_index, normalized
from trafikist.base.errors import CourseError
from trafikist.base.reading import note_reading

# The most a source of the course may hold. The largest is some 30 KB (a dive) and the pinned
# command table 164 KB: more is a mistake (a link to /dev/zero, a log pasted in), which would
# otherwise be read until memory runs out.
MAX_SOURCE_BYTES = 4_000_000


def read_bounded(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes | None:
    """The file's bytes, or None when it holds more than `limit` (read no further: a device
    such as /dev/zero never ends). OSError as open and read raise it."""
    with open(path, "rb") as file:
        data = file.read(limit + 1)
    return data if len(data) <= limit else None


def require_file(path: Path, what: str, fix: str) -> None:
    """Refuse a file the build cannot go without when it is not there (or not a file), naming
    it: `what` says what is missing, `fix` how to give it."""
    if not Path(path).is_file():
        raise CourseError.at(path, None, what, fix)


def too_large(path: Path | str) -> CourseError:
    return CourseError.at(
        path,
        None,
        f"holds more than {MAX_SOURCE_BYTES:,} bytes, the most a source of the course may hold "
        "(the largest is some 30 KB); it was not read further.",
        "Check that it is the file you meant (not a link to a device or a log), and split a "
        "page that grew that long.",
    )


def read_text_bounded(path: Path) -> str:
    """UTF-8 text of a file of at most MAX_SOURCE_BYTES; CourseError when it holds more.
    OSError and UnicodeDecodeError as reading raises them (the caller words those)."""
    data = read_bounded(Path(path))
    if data is None:
        raise too_large(path)
    return data.decode("utf-8")


def read_source_text(path: Path) -> str:
    """A source's text; UTF-8, a byte-order mark at its start dropped (an editor's, not the
    author's), normalised (NFC) as every check reads it. CourseError naming the file (and the
    line of a bad byte) when it cannot be read as text: missing, a link to itself, a folder,
    larger than MAX_SOURCE_BYTES, not UTF-8; and at its line, an invisible character, a
    look-alike letter or a word that mixes scripts (trafikist.base.characters). The
    build guard names it from here on, whatever goes wrong while it is read
    (trafikist.base.reading)."""
    note_reading(path)
    try:
        data = read_bounded(Path(path))
    except OSError as error:
        raise CourseError.at(
            path,
            None,
            f"cannot be read ({error.strerror or error}).",
            "Check that the file exists and is not a link to itself or to a missing file.",
        ) from None
    if data is None:
        raise too_large(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise CourseError.at(
            path,
            line,
            f"is not UTF-8 text (byte {data[error.start]:#04x} at offset {error.start}).",
            "Save the file as UTF-8.",
        ) from None
    text = normalized(text)
    suspect = first_suspect(text)
    if suspect is not None:
        line = line_index(text, suspect.offset) + 1
        raise CourseError.at(path, line, suspect.what, suspect.fix)
    return text


def file_signature(paths: Iterable[Path], pattern: str = "*") -> str:
    """Names, sizes and modification times of the files given, and of the files under the
    folders given that match `pattern` (compiled Python excepted): any edit changes it. A path
    that does not exist counts as empty."""
    parts = []
    for root in paths:
        root = Path(root)
        if root.is_dir():
            files = sorted(path for path in root.rglob(pattern) if path.is_file())
        elif root.is_file():
            files = [root]
        else:
            continue
        for path in files:
            if "__pycache__" in path.parts:
                continue
            stat = path.stat()
            parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
    return "\n".join(parts)
