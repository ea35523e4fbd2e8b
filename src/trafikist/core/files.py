"""One file of the built site besides its pages, and writing such files into a built site.

Every file the build writes lands inside the site folder: `site_target` refuses a URI that
would lead out of it (`..`, an absolute path, a backslash, a link inside the site that points
out). The sources' names are slugs, so no author's input should reach it: it is the last line
of defence, not the check an author meets.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from trafikist.base.errors import CourseError, display_path
from trafikist.base.reading import current_reading


@dataclass(frozen=True)
class SiteFile:
    """One file to add to the built site: its URI, and its bytes or the file to copy."""

    uri: str
    content: bytes | None = None
    source: Path | None = None


def write_site_files(site_dir: Path, files: list[SiteFile]) -> None:
    """Write files into a built site (for an engine that is not told about them). Sources are
    copied, never linked: whatever later edits the site must not reach them. CourseError, and
    nothing written, when a file's URI leads outside the site."""
    targets = [site_target(site_dir, site_file.uri) for site_file in files]
    for site_file, target in zip(files, targets, strict=True):
        target.parent.mkdir(parents=True, exist_ok=True)
        if site_file.content is None and site_file.source is not None:
            shutil.copyfile(site_file.source, target)
        else:
            target.write_bytes(site_file.content or b"")


def site_target(site_dir: Path, uri: str) -> Path:
    """The path `uri` (a site-relative URL path such as `assets/trafikist/duty/duty.js`) has
    in the site folder `site_dir`; CourseError when it would resolve outside that folder."""
    why = _leaves_the_site(uri)
    site = Path(os.path.abspath(site_dir))
    target = site.joinpath(*PurePosixPath(uri).parts) if why is None else site
    if why is None:
        # A link inside the site (or the site folder being one) must not lead out either.
        real_site, real_target = site.resolve(), target.resolve()
        if real_target != real_site and real_site not in real_target.parents:
            why = f"resolves to {real_target}, through a link"
    if why is not None:
        source = current_reading()
        raise CourseError.at(
            source.file if source is not None else site,
            source.line if source is not None else None,
            f"the build would write '{uri}' outside the site folder {display_path(site)}: "
            f"the path {why}",
            "Name scenarios, transcripts and other sources by slugs (lowercase letters, digits "
            "and dashes), and keep assets_path a relative folder; nothing was written.",
        )
    return target


def _leaves_the_site(uri: object) -> str | None:
    """Why `uri` is no path inside a site, or None."""
    if not isinstance(uri, str) or not uri.strip():
        return "is empty"
    if "\\" in uri:
        return "holds a backslash"
    if "\0" in uri:
        return "holds a NUL byte"
    if uri.startswith("/") or (len(uri) > 1 and uri[1] == ":"):
        return "is absolute"
    if ".." in uri.split("/"):
        return "climbs out with '..'"
    return None
