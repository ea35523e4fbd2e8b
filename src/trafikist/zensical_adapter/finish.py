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

from trafikist.base.errors import Problem
from trafikist.base.reading import note_reading, reading
from trafikist.checks.links import BuiltContent, dead_links_in
from trafikist.core.cache import caches_enabled, digest
from trafikist.core.files import site_target
from trafikist.core.session import CourseBuild
from trafikist.core.theme import finish_page, injected_style_hashes
from trafikist.course.structure import Page, address

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
    urls = build.directory_urls
    found = [
        BuiltPage(Path(address(page.src_uri(), urls).file), page, page.source or docs_dir)
        for page in build.site.pages()
    ]
    for authors_page in build.authors_pages(docs_dir):
        where = address(authors_page.src_uri, urls)
        found.append(BuiltPage(Path(where.file), where.url, authors_page.source or docs_dir))
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
    with reading(site_dir):
        return _finish_site(build, Path(site_dir), pages, kept)


def _finish_site(
    build: CourseBuild, site_dir: Path, pages: list[BuiltPage], kept: FinishedPages | None
) -> list[Problem]:
    by_file = {page.file.as_posix(): page for page in pages}
    style_hashes = injected_style_hashes(site_dir)
    assets = build.options.assets_path.split("/")[0]
    contents: dict[str, str] = {}  # each built page's finished content, for the link check
    written: dict[str, str] = {}  # every HTML file as finished, for the anchors it holds
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
            built = by_file.get(relative)
            note_reading(built.source if built is not None else path)  # for the build guard
            with open(path, encoding="utf-8") as file:
                html = original = file.read()
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
            written[relative] = html
            if html != original:
                # A page that is a link out of the site is refused, not written through
                # (site_target says so). os.walk enters no linked folder, so only the file
                # itself can be one: resolving every page's path cost a tenth of a second.
                target = site_target(site_dir, relative) if os.path.islink(path) else path
                with open(target, "w", encoding="utf-8") as file:
                    file.write(html)
    return dead_links_in(
        site_dir,
        [
            BuiltContent(by_file[name].file, by_file[name].source, text)
            for name, text in contents.items()
        ],
        written,
    )


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
            found.append(BuiltContent(built.file, built.source, match[0] if match else ""))
    return dead_links_in(site_dir, found)
