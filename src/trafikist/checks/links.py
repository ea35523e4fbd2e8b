"""Links in the course's sources: every one resolves, anchors included.

Pages link to each other by id (`[text](id:PAGE)`, `[text](id:PAGE#anchor)`), to a place on
the same page (`[text](#anchor)`), or out of the site (`https://…`). The loader checks that each
id names a page; this checks each anchor against the ids the target page's Markdown gives its
headings and elements (the renderer gives every heading an explicit id, so the anchors are known
before an engine renders anything). A relative path is refused: ids do not break when a page
moves, and the engine's own link validation never sees a link in a duty's text or a summary.
The site's guide pages in docs/ are plain Markdown: the engine's validation checks their links.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from trafikist.base.errors import Problem
from trafikist.course.loader import strings_in
from trafikist.course.render import Renderer, anchors_in
from trafikist.course.structure import Course, Page

# An inline Markdown link's target: [text](target) or [text](target "title").
LINK_TARGET = re.compile(r"\]\((?P<target><[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\)")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)(?!$)", re.IGNORECASE)


def check_link_targets(course: Course, renderer: Renderer) -> list[Problem]:
    problems: list[Problem] = []
    anchors: dict[str, set[str]] = {}

    def anchors_of(page: Page) -> set[str]:
        if page.id not in anchors:
            anchors[page.id] = anchors_in(renderer.page_markdown(page))
        return anchors[page.id]

    for page, file, line, target in _links(course):
        if target.startswith("id:"):
            target_id, _, fragment = target[3:].partition("#")
            other = course.pages.get(target_id)
            if other is None or not fragment:
                continue  # an unknown id is the loader's message (check_links)
            if fragment not in anchors_of(other):
                problems.append(_no_anchor(file, line, target, fragment, other, anchors_of(other)))
        elif target.startswith("#"):
            fragment = target[1:]
            if fragment and fragment not in anchors_of(page):
                problems.append(_no_anchor(file, line, target, fragment, page, anchors_of(page)))
        elif not EXTERNAL.match(target):
            problems.append(
                Problem(
                    file,
                    line,
                    f"the link '{target}' is a relative path, which the course does not resolve "
                    "or check.",
                    "Link to a course page by its id: [text](id:PAGE) or "
                    "[text](id:PAGE#anchor); ids do not break when a page moves.",
                )
            )
    return problems


def _no_anchor(
    file: Path, line: int | None, target: str, fragment: str, page: Page, known: set[str]
) -> Problem:
    shown = ", ".join(f"#{anchor}" for anchor in sorted(known)[:8]) or "none"
    return Problem(
        file,
        line,
        f"the link '{target}' names the anchor '#{fragment}', which the page '{page.id}' "
        "does not have.",
        f"Link to one of its anchors ({shown}), or to the page alone.",
    )


def _links(course: Course) -> Iterator[tuple[Page, Path, int | None, str]]:
    """(page, file, line, target) for every link an author wrote, code excepted."""
    from trafikist.course.syntax import scan

    for page in course.pages.values():
        if page.source is None:
            continue
        prose = scan(page.body).prose
        for offset, text in enumerate(prose.splitlines()):
            for match in LINK_TARGET.finditer(text):
                yield page, page.source, page.body_line + offset, match["target"].strip("<>")
        for key, value in page.meta.items():
            for text in strings_in(value):
                for match in LINK_TARGET.finditer(text):
                    yield page, page.source, page.line_of(key), match["target"].strip("<>")
        for duty in page.duties:
            for name in duty.TEXT_FIELDS:
                for match in LINK_TARGET.finditer(duty.text(name)):
                    yield page, duty.source, duty.line_of(name), match["target"].strip("<>")


# The fix of each kind of dead link an engine reports in a page (MkDocs' validation, or the
# Zensical adapter's check of the finished site), by a word of its message.
ENGINE_LINK_FIXES = {
    "not found": "Point it at a page that exists, or link a course page by its id: "
    "[text](id:PAGE).",
    "anchor": "Link to an anchor the page has (its headings' ids), or to the page alone.",
    "left as is": "Write a relative link to a Markdown file of docs/, or link a course page by "
    "its id: [text](id:PAGE).",
}


def line_of_link(path: Path, target: str) -> int | None:
    """The first line of `path` that links to `target`, for an engine's message about it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    needles = (f"]({target})", f"]({target} ", f"](<{target}>)", f'href="{target}"', f"({target})")
    for number, line in enumerate(lines, start=1):
        if any(needle in line for needle in needles):
            return number
    return None
