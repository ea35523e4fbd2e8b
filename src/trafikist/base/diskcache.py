"""The build's cache of derived files, shared by every build, checkout and test on a machine.

What goes in is keyed by a hash of everything it is made from, so a stale entry is never read:
a changed input gives another key. It lives in $TRAFIKIST_CACHE, else $XDG_CACHE_HOME/trafikist,
else ~/.cache/trafikist (like pip's), one folder per kind (`snapshots`, `locks`, `workers`);
deleting it only costs time.

Each entry carries the hash of its content on its first line (`trafikist-cache sha256:HEX`),
and is read only when its content still has that hash: a damaged entry (a disk's error, an
edit, a copy cut short) is made again, never shipped.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

CACHE_ENV = "TRAFIKIST_CACHE"


def cache_folder(kind: str) -> Path:
    """The folder of one kind of entry (`snapshots`, `locks`, `workers`), not created here."""
    if os.environ.get(CACHE_ENV):
        base = Path(os.environ[CACHE_ENV])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "trafikist"
    return base / kind


HEADER = b"trafikist-cache sha256:"


def read_entry(path: Path) -> bytes | None:
    """An entry's content, marked as just used (pruning keeps the most recently used), or None
    when there is none or its content no longer has the hash it was written with."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    first, _, content = data.partition(b"\n")
    if not first.startswith(HEADER) or first[len(HEADER) :] != _hash(content):
        return None  # damaged, or written before entries were sealed: the caller makes it again
    with contextlib.suppress(OSError):  # a read-only cache still serves
        path.touch()
    return content


def write_entry(path: Path, data: bytes) -> None:
    """Write an entry whole or not at all, sealed with its content's hash: a parallel build
    sees the old state or the new one. A cache that cannot be written is not an error; the
    next build makes the entry again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, scratch = tempfile.mkstemp(prefix=".writing-", dir=path.parent)
        with os.fdopen(handle, "wb") as file:
            file.write(HEADER + _hash(data) + b"\n")
            file.write(data)
        os.replace(scratch, path)
    except OSError:
        return


def _hash(data: bytes) -> bytes:
    return hashlib.sha256(data).hexdigest().encode("ascii")


def prune(folder: Path, pattern: str, keep: int) -> None:
    """Keep the `keep` most recently used entries matching `pattern`."""
    entries = []
    for path in folder.glob(pattern):
        try:
            entries.append((path.stat().st_mtime, path))
        except OSError:
            continue  # removed by a parallel build a moment ago
    for _, old in sorted(entries, reverse=True)[keep:]:
        old.unlink(missing_ok=True)
