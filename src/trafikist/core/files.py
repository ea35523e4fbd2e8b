"""One file of the built site besides its pages, and writing such files into a built site."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SiteFile:
    """One file to add to the built site: its URI, and its bytes or the file to copy."""

    uri: str
    content: bytes | None = None
    source: Path | None = None


def write_site_files(site_dir: Path, files: list[SiteFile]) -> None:
    """Write files into a built site (for an engine that is not told about them). Sources are
    copied, never linked: whatever later edits the site must not reach them."""
    for site_file in files:
        target = site_dir / site_file.uri
        target.parent.mkdir(parents=True, exist_ok=True)
        if site_file.content is None and site_file.source is not None:
            shutil.copyfile(site_file.source, target)
        else:
            target.write_bytes(site_file.content or b"")
