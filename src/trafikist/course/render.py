"""Render course pages to Markdown that any Python-Markdown engine turns into the site.

The renderer adds what the structure knows and the author should not type: the page header,
the in-page section nav, the "pick a duty" widget, the dive cards, "Up next" and the home page.
Those parts are written as `/// NAME` + `///` lines in the author's Markdown and replaced here.
Prose blocks (takeaway, forward, excerpt, pattern) are left to the Markdown extensions.

Links are written by id (`id:PAGE`) and resolved by `finalize_html` once the page is HTML, so a
link works the same in prose, in generated parts and in raw HTML.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jinja2
import markdown
import markupsafe
from markdown.extensions.toc import slugify

from trafikist.base.errors import CourseError
from trafikist.course.examples import render_worked_example
from trafikist.course.loader import ID_LINK, strings_in
from trafikist.course.sources import DRAFT
from trafikist.course.structure import (
    STATUS_LEGEND,
    Course,
    Kind,
    Page,
    Status,
    relative_link,
)

# Structural blocks the renderer fills in; anything else between `///` lines is prose.
GENERATED_BLOCK = re.compile(
    r"^/// (?P<name>duties|dive-cards|up-next|worked-example)\s*\n///\s*$", re.M
)
TOC_LABEL = re.compile(r'data-toc-label="(?P<label>[^"]*)"')
EXPLICIT_ID = re.compile(r"(?:^|\s)#(?P<id>[\w-]+)")
BLOCK_LINE = re.compile(r"^\s*///")
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
ATTR_ID = re.compile(r"\{:?[^}\n]*?(?<![\w&])#(?P<id>[\w-]+)[^}\n]*\}")
HTML_ID = re.compile(r"""\sid=["'](?P<id>[^"'\s]+)["']""")
RESOLVED_LINK = re.compile(
    r'<a (?P<before>[^>]*?)href="id:(?P<id>[a-z0-9-]+)(?P<fragment>#[^"]*)?"(?P<after>[^>]*)>'
)

# Extensions for Markdown snippets inside generated HTML (one sentence or a short paragraph).
INLINE_EXTENSIONS = ("attr_list",)


@dataclass
class Section:
    id: str
    label: str


@dataclass
class Renderer:
    """Turns course pages into engine-ready Markdown, and resolves id links in the HTML."""

    course: Course
    directory_urls: bool = True
    # Extra generated parts an adapter can register (e.g. the live duty widget).
    extra_blocks: dict[str, Callable[[Page], str]] = field(default_factory=dict)
    # Extensions for Markdown inside generated HTML, beyond INLINE_EXTENSIONS (e.g. the
    # registry's claims and verb links).
    inline_extensions: list[object] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.templates = jinja2.Environment(
            loader=jinja2.PackageLoader("trafikist.course", "templates"),
            autoescape=jinja2.select_autoescape(["html", "j2"]),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            undefined=jinja2.StrictUndefined,
        )
        self.templates.globals.update(legend=STATUS_LEGEND, Status=Status, Kind=Kind)
        self.templates.filters["md"] = self.inline_markdown
        # Text inside generated HTML (duty rows, summaries) is Markdown too; raw HTML blocks are
        # not parsed by the engine, so the renderer converts those snippets itself.
        self._inline: markdown.Markdown | None = None

    def inline_markdown(self, text: str) -> markupsafe.Markup:
        if self._inline is None:
            self._inline = markdown.Markdown(
                extensions=[*INLINE_EXTENSIONS, *self.inline_extensions]
            )
        html_text = self._inline.reset().convert(text).strip()
        if (
            html_text.startswith("<p>")
            and html_text.endswith("</p>")
            and html_text.count("<p>") == 1
        ):
            html_text = html_text[3:-4]
        return markupsafe.Markup(html_text)

    # -- Markdown -------------------------------------------------------------------------

    def page_markdown(self, page: Page) -> str:
        """The whole page as Markdown with front matter, ready for the engine."""
        front = self._front_matter(page)
        if page.kind is Kind.HOME:
            return front + self._render("home.md.j2", page=page, course=self.course)
        if page.status is Status.PLANNED:
            # A scaffolded draft stays in the source for its author, out of the published page.
            body = DRAFT.sub("", page.body)
            return front + self._render(
                "planned.md.j2", page=page, backlinks=self.backlinks(page), body=body
            )
        lede, rest = split_lede(page.body)
        rest, sections = with_heading_ids(rest)
        rest = GENERATED_BLOCK.sub(lambda match: self._generated(match["name"], page), rest)
        parts = [
            front,
            self._render("header.html.j2", page=page),
            self._render("lede.md.j2", lede=lede.strip()) if lede.strip() else "",
            self._render("sections.html.j2", sections=sections) if sections else "",
            rest.strip() + "\n",
        ]
        if page.kind is Kind.DIVE:
            previous, following = self.course.neighbours(page)
            parts.append(
                self._render("dive_nav.html.j2", page=page, previous=previous, next=following)
            )
        return "\n".join(part for part in parts if part)

    def _front_matter(self, page: Page) -> str:
        lines = ["---", f"title: {_yaml_string(page.title)}", f"trafikist_id: {page.id}"]
        if page.status is Status.PLANNED:
            lines.append("status: planned")  # mkdocs-material shows it in the navigation
        if page.summary:
            lines.append(f"description: {_yaml_string(page.summary)}")
        lines.append("---\n")
        return "\n".join(lines) + "\n"

    def _generated(self, name: str, page: Page) -> str:
        if name in self.extra_blocks:
            return self.extra_blocks[name](page)
        if name == "duties":
            return self._render("duties.html.j2", page=page, duties=page.duties, live=None)
        if name == "dive-cards":
            return self._render("dive_cards.html.j2", page=page)
        if name == "worked-example":
            return render_worked_example(page)
        previous, following = self.course.neighbours(page)
        return self._render(
            "up_next.html.j2",
            page=page,
            previous=previous,
            next=following,
            texts=page.meta.get("up_next") or {},
        )

    def _render(self, template: str, **context: Any) -> str:
        return self.templates.get_template(template).render(**context)

    # -- Links ----------------------------------------------------------------------------

    def backlinks(self, target: Page) -> list[Page]:
        """Pages whose text links to `target`, in course order."""
        found = []
        for page in self.course.pages.values():
            texts = [page.body, *strings_in(page.meta)]
            texts += [d.library + d.trafikey + d.between_calls for d in page.duties]
            if page is not target and any(
                match["id"] == target.id for text in texts for match in ID_LINK.finditer(text)
            ):
                found.append(page)
        return found

    def finalize_html(self, page_html: str, page: Page | str) -> str:
        """Resolve every `id:` link to a relative URL and mark it with the target's status.

        `page` is a course page, or the site URL of any other page (a hand-written one).
        """
        source = page.url(self.directory_urls) if isinstance(page, Page) else page

        def resolve(match: re.Match[str]) -> str:
            target = self.course.pages.get(match["id"])
            if target is None:  # only a hand-written page can get here: the loader checks ours
                raise CourseError.at(
                    source or "index",
                    None,
                    f"the link names an unknown id '{match['id']}'.",
                    "Link to an id that a page in modules/ declares in its front matter.",
                )
            before, after = match["before"], match["after"]
            url = relative_link(source, target.url(self.directory_urls)) + (match["fragment"] or "")
            status_class = f"tk-link tk-link--{target.status.value}"
            attrs = f"{before.strip()} {after.strip()}".strip()
            if 'class="' in attrs:
                attrs = attrs.replace('class="', f'class="{status_class} ', 1)
            else:
                attrs += f' class="{status_class}"'
            attrs += f' data-status="{target.status.value}"'
            return f'<a {attrs.strip()} href="{html.escape(url)}">'

        resolved = RESOLVED_LINK.sub(resolve, page_html)
        return _add_link_badges(resolved)


def _add_link_badges(page_html: str) -> str:
    """Prose links get a status badge after their text; generated parts draw their own, and a
    verb's link to its command page (always built) carries none."""
    pattern = re.compile(
        r'(<a (?:(?!data-no-badge)[^>])*?class="tk-link tk-link--(?P<status>built|planned)'
        r'(?![^"]*tk-verb)[^"]*"(?:(?!data-no-badge)[^>])*>)(?P<text>.*?)</a>',
        re.S,
    )

    def badge(match: re.Match[str]) -> str:
        status = match["status"]
        return (
            f'{match[1]}{match["text"]}<span class="tk-badge tk-badge--{status}">'
            f'<span class="tk-visually-hidden">, </span>{status}</span></a>'
        )

    return pattern.sub(badge, page_html)


def split_lede(body: str) -> tuple[str, str]:
    """The lede is everything before the first level-2 heading."""
    match = re.search(r"^## ", body, re.M)
    if match is None:
        return body, ""
    return body[: match.start()], body[match.start() :]


HEADING = re.compile(r"^(?P<hashes>#{2,6}) (?P<text>.+?)(?:\s*\{(?P<attrs>[^}]*)\})?\s*$")


def with_heading_ids(body: str) -> tuple[str, list[Section]]:
    """Give every heading an explicit id (so the anchors a link may name are known before any
    engine renders the page), and list the level-2 ones for the section nav."""
    sections: list[Section] = []
    taken: set[str] = set()
    lines = body.split("\n")
    in_fence = False
    blocks = 0  # inside a `///` block a heading is the block's own (a pattern's side)
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_fence and BLOCK_LINE.match(line):
            blocks += -1 if line.strip() == "///" else 1
            blocks = max(blocks, 0)
        match = None if in_fence or blocks else HEADING.match(line)
        if match is None:
            continue
        text, attrs = match["text"], match["attrs"] or ""
        explicit = EXPLICIT_ID.search(attrs)
        # As toc slugifies the rendered text: a link's words, not its target.
        anchor = explicit["id"] if explicit else slugify(MARKDOWN_LINK.sub(r"\1", text), "-")
        if not explicit:
            # As Python-Markdown's toc numbers a repeated heading: anchor, anchor_1, …
            base, number = anchor, 0
            while anchor in taken:
                number += 1
                anchor = f"{base}_{number}"
            attrs = f"#{anchor} {attrs}".strip()
        taken.add(anchor)
        if len(match["hashes"]) == 2:
            label = TOC_LABEL.search(attrs)
            sections.append(Section(anchor, label["label"] if label else text))
        lines[index] = f"{match['hashes']} {text} {{ {attrs} }}"
    return "\n".join(lines), sections


def anchors_in(markdown_text: str) -> set[str]:
    """The ids a page's Markdown gives its elements: explicit heading and attribute ids, and
    `id="…"` in its raw HTML."""
    found = {match["id"] for match in ATTR_ID.finditer(markdown_text)}
    found |= {match["id"] for match in HTML_ID.finditer(markdown_text)}
    return found


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
