"""Finish the pages of a site an engine has already written, for an engine with no hook into a
page's HTML (Zensical): the same two steps MkDocs runs on each page as it renders it.

- `finish_pages`: resolve `id:` links and add status badges in every course page and
  hand-written page (`CourseBuild.finalize_html`), and add the policy and the theme's fixes to
  every page (`theme.finish_page`).
- `dead_links`: every relative link in a page's content leads to a file of the site, and its
  fragment to an id in that page. Authors' links are checked at the source (ids, by the
  loader); this catches what the engine made of the rest, in one pass over the finished HTML.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from trafikist.build.session import CourseBuild
from trafikist.build.theme import finish_page, injected_style_hashes
from trafikist.course.structure import Page
from trafikist.errors import CourseError, Problem

HREF = re.compile(r'<a\s[^>]*?href="(?P<href>[^"]*)"')
ID = re.compile(r'\sid="(?P<id>[^"]+)"')
ARTICLE = re.compile(r"<article\b.*?</article>", re.S)


@dataclass(frozen=True)
class BuiltPage:
    """One HTML file of the built site, and what it was made from."""

    file: Path  # relative to the site
    page: Page | str  # the course page, or the URL of a hand-written page
    source: Path  # the Markdown file an author edits


def built_pages(build: CourseBuild, docs_dir: Path) -> list[BuiltPage]:
    """Every course page and hand-written page, with the HTML file it becomes."""
    assert build.site is not None
    found = [
        BuiltPage(_file_of(page.url(build.directory_urls)), page, page.source or docs_dir)
        for page in build.site.pages()
    ]
    for path in sorted(Path(docs_dir).rglob("*.md")):
        url = _url_of(path.relative_to(docs_dir).as_posix(), build.directory_urls)
        found.append(BuiltPage(_file_of(url), url, path))
    return found


def finish_pages(build: CourseBuild, site_dir: Path, pages: list[BuiltPage]) -> None:
    """Finish every HTML file of the site in place; raises CourseError for an unknown id."""
    by_file = {page.file: page for page in pages}
    style_hashes = injected_style_hashes(site_dir)
    for path in site_dir.rglob("*.html"):
        relative = path.relative_to(site_dir)
        if relative.parts[0] == build.options.assets_path.split("/")[0]:
            continue
        html = original = path.read_text(encoding="utf-8")
        built = by_file.get(relative)
        if built is not None:
            html = build.finalize_html(html, built.page, built.source)
        html = finish_page(html, style_hashes)
        if html != original:
            path.write_text(html, encoding="utf-8")


def dead_links(site_dir: Path, pages: list[BuiltPage]) -> list[Problem]:
    """Links in the pages' content that lead nowhere in the site, each against its source."""
    anchors: dict[Path, set[str]] = {}
    problems = []
    for built in pages:
        path = site_dir / built.file
        if not path.is_file():
            continue
        content = "".join(ARTICLE.findall(path.read_text(encoding="utf-8")))
        for match in HREF.finditer(content):
            href = match["href"]
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("//", "mailto:")):
                continue
            target = path
            if parts.path:
                root = site_dir if parts.path.startswith("/") else path.parent
                target = Path(posixpath.normpath(str(root / unquote(parts.path).lstrip("/"))))
            if target.is_dir():
                target /= "index.html"
            if not target.is_file():
                problems.append(_dead(built, href, "leads to no page of the site"))
            elif parts.fragment and target.suffix == ".html":
                if target not in anchors:
                    anchors[target] = set(ID.findall(target.read_text(encoding="utf-8")))
                if unquote(parts.fragment) not in anchors[target]:
                    problems.append(_dead(built, href, "names an anchor its page does not have"))
    return problems


def _dead(built: BuiltPage, href: str, what: str) -> Problem:
    """A dead link against its source's line, as the author wrote it (the engine rewrote
    `x.md` as `x/`; the line is found by the link's last name)."""
    name = href.split("#")[0].rstrip("/").rsplit("/", 1)[-1] or href
    line, written = None, href
    if built.source.is_file():
        target = re.compile(rf"\]\((?P<target>[^)\s]*{re.escape(name)}[^)\s]*)\)")
        for number, text in enumerate(built.source.read_text(encoding="utf-8").splitlines(), 1):
            match = target.search(text)
            if match is not None or f'"{name}' in text:
                line, written = number, match["target"] if match else href
                break
    return Problem(
        built.source,
        line,
        f"the link '{written}' {what}.",
        "Link to a page that exists, by id for a course page (id:PAGE).",
    )


def check_links(site_dir: Path, pages: list[BuiltPage]) -> None:
    problems = dead_links(site_dir, pages)
    if problems:
        raise CourseError(problems)


def _url_of(src_uri: str, directory_urls: bool) -> str:
    stem = src_uri.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return f"{stem}/" if directory_urls else f"{stem}.html"


def _file_of(url: str) -> Path:
    return Path(url + "index.html") if url == "" or url.endswith("/") else Path(url)
