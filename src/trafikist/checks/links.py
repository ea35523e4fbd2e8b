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

import difflib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from trafikist.base.errors import Problem
from trafikist.course.loader import ID_LINK, strings_in
from trafikist.course.render import PAGES_WHEN_NEEDED, Renderer, anchors_in
from trafikist.course.structure import Course, Page
from trafikist.course.syntax import scan

# An inline Markdown link's target: [text](target) or [text](target "title").
LINK_TARGET = re.compile(r"\]\((?P<target><[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\)")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)(?!$)", re.IGNORECASE)


def check_id_links(course: Course) -> list[Problem]:
    """Every `id:` link in a page body, its front matter and its duties names a page."""
    problems: list[Problem] = []
    for page in course.pages.values():
        if page.source is None:
            continue
        for offset, text in enumerate(page.body.splitlines()):
            for match in ID_LINK.finditer(text):
                problems += _unknown_id(course, match["id"], page.source, page.body_line + offset)
        for key, value in page.meta.items():
            for text in strings_in(value):
                for match in ID_LINK.finditer(text):
                    problems += _unknown_id(course, match["id"], page.source, page.line_of(key))
        for duty in page.duties:
            for name in duty.TEXT_FIELDS:
                for match in ID_LINK.finditer(duty.text(name)):
                    problems += _unknown_id(course, match["id"], duty.source, duty.line_of(name))
    return problems


def _unknown_id(course: Course, target: str, file: Path, line: int | None) -> list[Problem]:
    if target in course.pages or target in PAGES_WHEN_NEEDED:
        return []
    close = sorted(known for known in course.pages if target and target[:4] in known)[:3]
    hint = f" Close ids: {', '.join(close)}." if close else ""
    return [
        Problem(
            file,
            line,
            f"the link names an unknown id '{target}'.",
            f"Link to an id that a page in modules/ declares in its front matter.{hint}",
        )
    ]


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
                continue  # an unknown id is check_id_links's message
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
    # The closest first, then the page's sections before the ids of its parts (a question's
    # field, a duty's panel): eight at most.
    close = difflib.get_close_matches(fragment, sorted(known), n=3, cutoff=0.5)
    parts = ("check-", "tk-")
    rest = sorted(known - set(close), key=lambda anchor: (anchor.startswith(parts), anchor))
    shown = ", ".join(f"#{anchor}" for anchor in [*close, *rest][:8]) or "none"
    return Problem(
        file,
        line,
        f"the link '{target}' names the anchor '#{fragment}', which the page '{page.id}' "
        "does not have.",
        f"Link to one of its anchors ({shown}), or to the page alone.",
    )


def _links(course: Course) -> Iterator[tuple[Page, Path, int | None, str]]:
    """(page, file, line, target) for every link an author wrote, code excepted."""
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


# -- the links of a built site (for an engine that validates none itself) ----------------------

HREF = re.compile(r'<a\s[^>]*?href="(?P<href>[^"]*)"')
ID = re.compile(r' id="(?P<id>[^"]+)"')  # a literal start: the search skips ahead


@dataclass(frozen=True)
class BuiltContent:
    """One page of a built site: its HTML file (relative to the site), the Markdown file its
    author edits, and its content (the page's <article>)."""

    file: Path
    source: Path
    html: str


def dead_links_in(
    site_dir: Path, contents: list[BuiltContent], pages: dict[str, str] | None = None
) -> list[Problem]:
    """Links in built pages' content that lead nowhere in the site, or to an anchor the target
    page lacks, each against its source's line, in the words MkDocs' validation uses. `pages`:
    the site's HTML files as written, by path relative to the site, read instead of the disk
    for the anchors they hold."""
    root = os.path.normpath(site_dir)
    sources = {os.path.join(root, str(built.file)): built.source for built in contents}
    written = {os.path.join(root, name): html for name, html in (pages or {}).items()}
    exists: dict[str, bool] = {}
    anchors: dict[str, set[str]] = {}
    # A link's path from a folder, once: most pages link the same few pages.
    resolved: dict[tuple[str, str], str] = {}
    problems = []
    for built in contents:
        content = built.html
        page = os.path.join(root, str(built.file))
        folder = os.path.dirname(page)
        for match in HREF.finditer(content):
            href = match["href"]
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("//", "mailto:")):
                continue
            target = page
            if parts.path:
                target = resolved.get((folder, parts.path), "")
                if not target:
                    base = root if parts.path.startswith("/") else folder
                    target = os.path.normpath(os.path.join(base, unquote(parts.path).lstrip("/")))
                    if parts.path.endswith("/") or os.path.isdir(target):
                        target = os.path.join(target, "index.html")
                    resolved[(folder, parts.path)] = target
            if target not in exists:
                exists[target] = target in written or os.path.isfile(target)
            if not exists[target]:
                why = "the target is not found among documentation files"
                problems.append(_dead(built, href, why, "not found"))
            elif parts.fragment and target.endswith(".html"):
                if target not in anchors:
                    html = written.get(target)
                    if html is None:
                        with open(target, encoding="utf-8") as file:
                            html = file.read()
                    anchors[target] = set(ID.findall(html))
                if unquote(parts.fragment) not in anchors[target]:
                    doc = sources.get(target)
                    name = f"the doc '{doc.name}'" if doc is not None else "the page"
                    why = f"{name} does not contain an anchor '#{parts.fragment}'"
                    problems.append(_dead(built, href, why, "anchor"))
    return problems


def _dead(built: BuiltContent, href: str, why: str, kind: str) -> Problem:
    """A dead link in the words MkDocs' validation uses (trafikist.mkdocs_plugin.validation),
    against its source's line and as the author wrote it: the engine rewrote `x.md` as `x/`,
    so the written link is the one whose last name is the same."""
    name = _last_name(href)
    line, written = None, href
    if built.source.is_file():
        for number, text in enumerate(built.source.read_text(encoding="utf-8").splitlines(), 1):
            match = next((m for m in LINK_TARGET.finditer(text)
                          if _last_name(m["target"]) == name), None)  # fmt: skip
            if match is not None:
                line, written = number, match["target"].strip("<>")
                break
    return Problem(
        built.source, line, f"the link '{written}' does not resolve: {why}.",
        ENGINE_LINK_FIXES[kind],
    )  # fmt: skip


def _last_name(link: str) -> str:
    """`../guide/#x`, `guide.md#x` and `guide/index.md` all name `guide`."""
    path = link.split("#")[0].rstrip("/").removesuffix(".md").removesuffix("/index")
    return path.rsplit("/", 1)[-1] or link
