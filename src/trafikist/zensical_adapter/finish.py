"""Finish the pages of a site an engine has already written, for an engine with no hook into a
page's HTML (Zensical): the same two steps MkDocs runs on each page as it renders it.

- `finish_site`: resolve `id:` links and add status badges in the content of every course page
  and hand-written page (`CourseBuild.finalize_html`), and add the policy and the theme's fixes
  to every page (`theme.finish_page`);
- and in the same pass, the link check (`dead_links`): every relative link in a page's content
  leads to a file of the site, and its fragment to an id in that page. Authors' links are
  checked at the source (ids, by the loader); this catches what the engine made of the rest.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from trafikist.base.errors import Problem
from trafikist.checks.links import ENGINE_LINK_FIXES, LINK_TARGET
from trafikist.core.cache import caches_enabled, digest
from trafikist.core.session import CourseBuild
from trafikist.core.theme import finish_page, injected_style_hashes
from trafikist.course.structure import Page

HREF = re.compile(r'<a\s[^>]*?href="(?P<href>[^"]*)"')
ID = re.compile(r' id="(?P<id>[^"]+)"')  # a literal start: the search skips ahead
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


@dataclass
class FinishedPages:
    """A preview's finished pages across rebuilds: a page the engine wrote exactly as last
    time, in a site whose pages have the same addresses and statuses, is finished as last
    time. By file: (what finishing read, the page it wrote, its content)."""

    context: str = ""
    pages: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    def start(self, context: str) -> None:
        if context != self.context:
            self.context, self.pages = context, {}


def finish_site(
    build: CourseBuild,
    site_dir: Path,
    pages: list[BuiltPage],
    kept: FinishedPages | None = None,
) -> list[Problem]:
    """Finish every HTML file of the site in place, then check the pages' links. Returns the
    dead links; raises CourseError for an unknown id in a hand-written page."""
    by_file = {page.file.as_posix(): page for page in pages}
    style_hashes = injected_style_hashes(site_dir)
    assets = build.options.assets_path.split("/")[0]
    contents: dict[str, str] = {}  # each built page's finished content, for the link check
    course = build.site.pages() if build.site else []
    kept = kept if kept is not None and caches_enabled() else FinishedPages()
    files = [page.file.as_posix() for page in pages]
    kept.start(digest(style_hashes, [(p.id, p.status.value, p.path) for p in course], files))
    for folder, folders, names in os.walk(site_dir):
        if folder == str(site_dir) and assets in folders:
            folders.remove(assets)
        for name in names:
            if not name.endswith(".html"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, site_dir).replace(os.sep, "/")
            with open(path, encoding="utf-8") as file:
                html = original = file.read()
            built = by_file.get(relative)
            last = kept.pages.get(relative)
            if last is not None and last[0] == original:
                html, content = last[1], last[2]
            else:
                content = ""
                if built is not None:
                    html, content = _finalize_content(build, html, built)
                html = finish_page(html, style_hashes)
                kept.pages[relative] = (original, html, content)
            if built is not None:
                contents[relative] = content
            if html != original:
                with open(path, "w", encoding="utf-8") as file:
                    file.write(html)
    return _dead_links(site_dir, [(by_file[name], text) for name, text in contents.items()])


def _finalize_content(build: CourseBuild, html: str, built: BuiltPage) -> tuple[str, str]:
    """id: links and badges in the page's content, as MkDocs finalizes it (the theme's
    navigation around it holds none); returns the page and its finished content."""
    match = ARTICLE.search(html)
    if match is None:
        content = build.finalize_html(html, built.page, built.source)
        return content, content
    content = build.finalize_html(match[0], built.page, built.source)
    return html[: match.start()] + content + html[match.end() :], content


def dead_links(site_dir: Path, pages: list[BuiltPage]) -> list[Problem]:
    """Links in the pages' content that lead nowhere in the site, each against its source."""
    found = []
    for built in pages:
        path = site_dir / built.file
        if path.is_file():
            match = ARTICLE.search(path.read_text(encoding="utf-8"))
            found.append((built, match[0] if match else ""))
    return _dead_links(site_dir, found)


def _dead_links(site_dir: Path, contents: list[tuple[BuiltPage, str]]) -> list[Problem]:
    root = os.path.normpath(site_dir)
    sources = {os.path.join(root, str(built.file)): built.source for built, _ in contents}
    exists: dict[str, bool] = {}
    anchors: dict[str, set[str]] = {}
    problems = []
    for built, content in contents:
        page = os.path.join(root, str(built.file))
        for match in HREF.finditer(content):
            href = match["href"]
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("//", "mailto:")):
                continue
            target = page
            if parts.path:
                base = root if parts.path.startswith("/") else os.path.dirname(page)
                target = os.path.normpath(os.path.join(base, unquote(parts.path).lstrip("/")))
                if parts.path.endswith("/") or os.path.isdir(target):
                    target = os.path.join(target, "index.html")
            if target not in exists:
                exists[target] = os.path.isfile(target)
            if not exists[target]:
                why = "the target is not found among documentation files"
                problems.append(_dead(built, href, why, "not found"))
            elif parts.fragment and target.endswith(".html"):
                if target not in anchors:
                    with open(target, encoding="utf-8") as file:
                        anchors[target] = set(ID.findall(file.read()))
                if unquote(parts.fragment) not in anchors[target]:
                    doc = sources.get(target)
                    name = f"the doc '{doc.name}'" if doc is not None else "the page"
                    why = f"{name} does not contain an anchor '#{parts.fragment}'"
                    problems.append(_dead(built, href, why, "anchor"))
    return problems


def _dead(built: BuiltPage, href: str, why: str, kind: str) -> Problem:
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


def _url_of(src_uri: str, directory_urls: bool) -> str:
    stem = src_uri.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return f"{stem}/" if directory_urls else f"{stem}.html"


def _file_of(url: str) -> Path:
    return Path(url + "index.html") if url == "" or url.endswith("/") else Path(url)
