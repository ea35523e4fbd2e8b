"""One policy for what reaches a page from the sources as HTML.

- Where an author writes Markdown (a page's body, a question's prompt, options and whys, a
  duty's row, a summary, an "Up next" text), it renders as Markdown, and raw HTML is not: the
  checks refuse it at its line (`raw_html`, `unsafe_links`, `unsafe_attributes`:
  trafikist.checks.markup), and the renderer's Markdown for text inside generated HTML
  (`SafeHtmlExtension`, the templates' `md` filter) escapes whatever HTML it still meets, drops
  an event handler or a style an attribute list would add, and a link whose scheme could run
  a script (`javascript:`, `data:`, `vbscript:` …).
- Where the source is plain text (a title, a registry row's summary, a value of Valkey's
  command table), it is escaped: `markdown_text` for text placed in Markdown, `code_span` for
  a value shown as code, and the templates' autoescape for HTML.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as etree
from collections.abc import Iterator
from typing import Any

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

# The schemes a link of the course may use: the web, mail, and a course page by id. A link
# with no scheme (relative, `#anchor`) is the link checks' to judge.
SAFE_SCHEMES = frozenset({"http", "https", "mailto", "id"})
_SCHEME = re.compile(r"^([a-z][a-z0-9+.-]*):")
# What a browser ignores in a URL before it reads the scheme: `java\tscript:` is `javascript:`.
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]+")

# Raw HTML as Python-Markdown passes it through: a tag, a closing tag, a declaration or a
# processing instruction. Not an autolink (`<https://…>`, `<user@host>`), not a comment (a page's
# source comments are the build's; a text field's `<!--` is refused apart, `HTML_COMMENT`).
RAW_HTML = re.compile(r"<(?:/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?|![A-Za-z][^<>]*|\?[^<>]*)>")
HTML_COMMENT = re.compile(r"<!--")
# A Markdown link's or image's target, `[text](TARGET …)`, and a reference definition's.
LINK_TARGET = re.compile(r"\]\(\s*<?(?P<url>[^\s)>]*)")
REFERENCE_DEFINITION = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:\s*<?(?P<url>[^\s>]+)", re.M)
# An attribute list (attr_list): `{ #id .class key="value" }`, after a heading or an element.
# Not a marked span's expression, `[…]{claim: …}` (it follows `]`).
ATTRIBUTE_LIST = re.compile(r"(?<!\])\{:?[ \t]*(?P<body>[^{}\n]*?[\w-]+=[^{}\n]*)\}")
ATTRIBUTE = re.compile(r"(?P<name>[^\s=#.{}]+)\s*=")
# The attributes an author may give an element in an attribute list: the theme's own label of
# a section, and (as `#id`, `.class`) an id and classes.
AUTHOR_ATTRIBUTES = frozenset({"data-toc-label"})
# The attributes the renderer's Markdown keeps: what the course's own inline syntax writes
# (trafikist.course.markdown.registry_inline) and plain Markdown's. Any other (an event
# handler, a style) is dropped.
KEPT_ATTRIBUTES = frozenset({"id", "class", "href", "src", "alt", "title", "lang", "role"})
URL_ATTRIBUTES = ("href", "src")


def scheme_of(url: str) -> str:
    """A link target's scheme as a browser reads it (`java\tscript:` is javascript), or ""."""
    scheme = _SCHEME.match(_IGNORED_IN_URL.sub("", html.unescape(url)).lower())
    return scheme[1] if scheme else ""


def unsafe_url(url: str) -> bool:
    """True for a link target whose scheme could run a script or load data (`javascript:`,
    `data:`, `vbscript:`, `file:` …): any scheme but SAFE_SCHEMES."""
    scheme = scheme_of(url)
    return bool(scheme) and scheme not in SAFE_SCHEMES


def raw_html(text: str) -> Iterator[re.Match[str]]:
    """Each piece of raw HTML in Markdown text (code spans and marked spans' expressions
    already blanked by the caller)."""
    return RAW_HTML.finditer(text)


def unsafe_links(text: str) -> Iterator[tuple[int, str]]:
    """(offset, target) of each link or image whose target has an unsafe scheme."""
    for pattern in (LINK_TARGET, REFERENCE_DEFINITION):
        for match in pattern.finditer(text):
            if unsafe_url(match["url"]):
                yield match.start("url"), match["url"]


def unsafe_attributes(text: str) -> Iterator[tuple[int, str]]:
    """(offset, name) of each attribute an attribute list would add that an author may not
    give: anything but AUTHOR_ATTRIBUTES (an event handler, a style, a link)."""
    for match in ATTRIBUTE_LIST.finditer(text):
        for attribute in ATTRIBUTE.finditer(match["body"]):
            if attribute["name"].lower() not in AUTHOR_ATTRIBUTES:
                yield match.start("body") + attribute.start(), attribute["name"]


# Python-Markdown reads a backslash before these as the character itself: what would open a
# code span, emphasis, a link or an attribute list. (`<` and `&` are escaped as HTML; `_`
# inside a word is no emphasis, and a script's name keeps it: `@sweep_stalled`.)
_MARKDOWN_SPECIALS = re.compile(r"([\\`*{}\[\]])")
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def markdown_text(text: str, *, code_spans: bool = False) -> str:
    """Plain text placed in Markdown, to read as that text: its HTML escaped, and every
    character Markdown would read as syntax (emphasis, a link, a code span) escaped. With
    `code_spans`, the text's code spans stay code (Valkey's command table writes
    `` `ZRANGE` ``), and only the text around them is escaped."""
    value = " ".join(str(text).split())
    if not code_spans:
        return _escaped(value)
    parts: list[str] = []
    position = 0
    for span in _CODE_SPAN.finditer(value):
        parts += [_escaped(value[position : span.start()]), span.group()]
        position = span.end()
    return "".join([*parts, _escaped(value[position:])])


def _escaped(text: str) -> str:
    return _MARKDOWN_SPECIALS.sub(r"\\\1", html.escape(text, quote=False))


def code_span(text: str) -> str:
    """`text` as a Markdown code span, whatever backticks it holds: Markdown escapes a code
    span's content."""
    value = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


class SafeHtmlProcessor(Treeprocessor):
    """Drops, from the rendered tree, an attribute the course's Markdown never writes (an event
    handler an attribute list added) and a link or image target with an unsafe scheme."""

    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            for name in list(element.attrib):
                if not _kept(name.lower(), element.attrib[name]):
                    del element.attrib[name]


def _kept(name: str, value: str) -> bool:
    if name in URL_ATTRIBUTES:
        return not unsafe_url(value)
    return name in KEPT_ATTRIBUTES or name.startswith(("data-", "aria-"))


class SafeHtmlExtension(Extension):
    """Markdown with no raw HTML: a tag is shown as the text it is, never passed through."""

    def extendMarkdown(self, md: Markdown) -> None:
        for registry, name in ((md.preprocessors, "html_block"), (md.inlinePatterns, "html")):
            if name in registry:
                registry.deregister(name)
        # After the inline patterns (20) and attr_list (8), which add the attributes.
        md.treeprocessors.register(SafeHtmlProcessor(md), "trafikist-safe-html", 1)


def makeExtension(**kwargs: Any) -> SafeHtmlExtension:
    return SafeHtmlExtension(**kwargs)
