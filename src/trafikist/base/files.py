"""Signatures of files: what a cached result read, so that an edit there is a new key."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


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
