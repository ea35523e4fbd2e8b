"""MkDocs' own link validation, reported the course's way: `FILE:LINE: what. Fix: how.`

MkDocs checks every Markdown link of every page it renders (`validation:` in mkdocs.yml) and
names the page by its place among the site's files. This filter rewrites those warnings to name
the author's file (a page of docs/, or the course source a generated page comes from) and the
line of the link, and adds the fix. The warning stays a warning, so a strict build still stops.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path

from trafikist.base.errors import Problem
from trafikist.checks.links import ENGINE_LINK_FIXES, line_of_link
from trafikist.core.session import AUTHORS_FOLDER

MESSAGE = re.compile(
    r"^Doc file '(?P<uri>[^']+)' contains (?:a link|an unrecognized relative link|an absolute "
    r"link) '(?P<link>[^']+)'(?P<rest>.*)$",
    re.S,
)
FIXES = ENGINE_LINK_FIXES


class LinkWarnings(logging.Filter):
    """Rewrites MkDocs' link warnings; `source_of(src_uri)` gives the author's file."""

    def __init__(self, source_of: Callable[[str], Path | None]) -> None:
        super().__init__()
        self.source_of = source_of

    def filter(self, record: logging.LogRecord) -> bool:
        match = MESSAGE.match(record.getMessage())
        if match is None:
            return True
        source = self.source_of(match["uri"])
        if source is None:
            return True
        rest = match["rest"].lstrip(", ").removeprefix("but ").rstrip(".")
        # The authors' pages are served under authors/ (trafikist.core.session): the author
        # wrote the link from docs/, as the message names it.
        rest = rest.replace(f"'{AUTHORS_FOLDER}/", "'")
        rest = rest.replace(f"the target '{match['link']}' ", "the target ")
        kind = next((key for key in FIXES if key in rest), "not found")
        record.msg = str(
            Problem(
                source,
                line_of_link(source, match["link"]),
                f"the link '{match['link']}' does not resolve: {rest}.",
                FIXES[kind],
            )
        )
        record.args = ()
        return True


def install(source_of: Callable[[str], Path | None]) -> LinkWarnings:
    """Put the filter on the logger MkDocs' page validation writes to; returns it for removal."""
    link_warnings = LinkWarnings(source_of)
    logger = logging.getLogger("mkdocs.structure.pages")
    for existing in [f for f in logger.filters if isinstance(f, LinkWarnings)]:
        logger.removeFilter(existing)
    logger.addFilter(link_warnings)
    return link_warnings
