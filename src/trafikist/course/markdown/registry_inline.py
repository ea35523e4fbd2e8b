"""Inline registry syntax for course pages, as a plain Python-Markdown extension.

- A claim `[sentence]{claim: EMQ.PROMOTE.arity = 6}` renders as the sentence alone, wrapped as
  `<span class="tk-claim">sentence</span>`; the build checks the claim
  (trafikist.checks.claims). The claim itself is the build's, not the reader's: it stays in
  the source (module 04's page has a weight budget).
- An expectation `[sentence]{expect: j1 in schedule at 2.9}` renders the same way, as
  `<span class="tk-expect">`; the build runs it on the model (trafikist.checks.expectations).
  A Valkey proof `{valkey: …}` likewise, as `<span class="tk-valkey">`.
- A choice `[a batch of 2]{choice: scenario}` renders its text followed by the marker the
  duty widget's list of the model's own choices uses, a link to that choice on the page of the
  model's own choices: the reader sees which values the model chose.
- An `EMQ.*` verb written in prose links to its reference page:
  `<a class="tk-verb" href="id:command-emq-promote"><code>EMQ.PROMOTE</code></a>`. Verbs in code
  spans, code blocks and existing links stay as they are. The `id:` href is resolved to a
  relative URL after Markdown by the site's finalizer.

- A checked sentence's mark, a number between two brackets no author types that the renderer
  writes after the sentence ("How we know", trafikist.course.shown_evidence), renders as an
  empty `<i id="tk-m12"></i>`: its place, which the page's script makes a button.

Options: `verbs` (the registered verb names; others are left as text, so a sentence may name a
verb that does not exist; empty links every verb) and `id_prefix` (default `command-`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from typing import Any

from markdown import Extension, Markdown
from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

from trafikist.course.syntax import VERB, claim_at
from trafikist.registry.rows import command_slug

# The page that lists the model's own choices (trafikist.course.reference), and the marker.
CHOICES_PAGE_ID = "model-choices"
CHOICE_ANCHOR = "choice-{id}"
CHOICE_MARK = "model's choice"

# A checked sentence's mark ("How we know", trafikist.course.shown_evidence): the renderer
# writes its number between these two brackets, which no author types, after the sentence.
MARK_OPEN, MARK_CLOSE = "\u2045", "\u2046"
MARK_ID = "tk-m{number}"  # the mark's id: where the "How we know" page links back to
MARK_PRIORITY = 176  # before a claim's bracket: a mark stands right after one

# After code spans (190) and escapes (180), so a claim's sentence keeps its code spans and a
# claim inside a code span stays literal; before links (160), so a claim may hold links.
CLAIM_PRIORITY = 175
# After links, so a verb inside a link's text stays plain; before emphasis, which would read
# an underscore in a verb name.
VERB_PRIORITY = 115


class ClaimInlineProcessor(InlineProcessor):
    def __init__(self, md: Markdown) -> None:
        super().__init__(r"\[", md)

    # Markdown's InlineProcessor takes (m, data) where its base Pattern takes (m): the stubs
    # declare it so, and mypy checks an override against Pattern's.
    def handleMatch(  # type: ignore[override]
        self, m: re.Match[str], data: str
    ) -> tuple[etree.Element | None, int | None, int | None]:
        span = claim_at(data, m.start(0))
        if span is None:
            return None, None, None
        if span.kind == "choice":
            return choice_marked(span.text, span.expression), span.start, span.end
        element = etree.Element("span", {"class": f"tk-{span.kind}"})
        element.text = span.text  # later patterns render its code, links and verbs
        return element, span.start, span.end


def choice_marked(text: str, choice_id: str) -> etree.Element:
    """`text`, then the marker that names it the model's own choice and links to the choice."""
    element = etree.Element("span", {"class": "tk-choice", "data-choice": choice_id})
    element.text = text
    # Read aloud as "…, model's choice", the way a status badge is.
    separator = etree.SubElement(element, "span", {"class": "tk-visually-hidden"})
    separator.text = AtomicString(", ")
    mark = etree.SubElement(
        element,
        "a",
        {
            "class": "tk-choice__mark",
            "href": f"id:{CHOICES_PAGE_ID}#{CHOICE_ANCHOR.format(id=choice_id)}",
            "data-no-badge": "",
        },
    )
    mark.text = AtomicString(CHOICE_MARK)
    mark.tail = ""
    return element


class EvidenceMarkProcessor(InlineProcessor):
    """A checked sentence's mark: an empty element that holds its place and number
    (`<i id="tk-m12"></i>`). The page's script makes it a button that opens the sentence's
    evidence once the reader turns "How we know" on; the evidence itself is a file the script
    loads then (module 04's page has a weight budget)."""

    def __init__(self, md: Markdown) -> None:
        super().__init__(rf"{MARK_OPEN}(\d+){MARK_CLOSE}", md)

    def handleMatch(  # type: ignore[override]  # (m, data): as ClaimInlineProcessor's
        self, m: re.Match[str], data: str
    ) -> tuple[etree.Element | None, int | None, int | None]:
        # No text: the sentence's text, which the search indexes and a reader copies, stays
        # the author's.
        mark = etree.Element("i", {"id": MARK_ID.format(number=m.group(1))})
        return mark, m.start(0), m.end(0)


class VerbInlineProcessor(InlineProcessor):
    ANCESTOR_EXCLUDES = ("a", "code")

    def __init__(self, md: Markdown, verbs: set[str] | None, id_prefix: str) -> None:
        super().__init__(VERB.pattern, md)
        self.verbs = verbs
        self.id_prefix = id_prefix

    def handleMatch(  # type: ignore[override]  # (m, data): as ClaimInlineProcessor's
        self, m: re.Match[str], data: str
    ) -> tuple[etree.Element | None, int | None, int | None]:
        verb = m.group(0)
        if self.verbs is not None and verb not in self.verbs:
            return None, None, None
        link = etree.Element(
            "a", {"class": "tk-verb", "href": f"id:{self.id_prefix}{command_slug(verb)}"}
        )
        code = etree.SubElement(link, "code")
        code.text = AtomicString(verb)
        return link, m.start(0), m.end(0)


class RegistryInlineExtension(Extension):
    def __init__(self, **kwargs: Any) -> None:
        self.config = {
            # A list default: Python-Markdown reads a None default as a boolean option.
            "verbs": [[], "Registered verb names to link; empty links every EMQ.* verb."],
            "id_prefix": ["command-", "Prefix of a command reference page's id."],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:
        verbs = self.getConfig("verbs")
        md.inlinePatterns.register(ClaimInlineProcessor(md), "trafikist-claim", CLAIM_PRIORITY)
        md.inlinePatterns.register(EvidenceMarkProcessor(md), "trafikist-mark", MARK_PRIORITY)
        md.inlinePatterns.register(
            VerbInlineProcessor(md, set(verbs) if verbs else None, self.getConfig("id_prefix")),
            "trafikist-verb",
            VERB_PRIORITY,
        )


def makeExtension(**kwargs: Any) -> RegistryInlineExtension:
    return RegistryInlineExtension(**kwargs)
