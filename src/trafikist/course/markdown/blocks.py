"""The course's prose blocks, as pymdownx.blocks extensions (they run under any Python-Markdown
engine: MkDocs today, Zensical next).

    /// takeaway            the one sentence that closes a section
    /// forward             where the specifications take it (future tense, after the lesson);
                            with no body, it marks the place as planned: not written yet
    /// excerpt | caption   a captioned code excerpt; `quotes: registry` marks it for the checks
    /// pattern | title     two sides, each opened by a level-4 heading
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from typing import Any, ClassVar

from markdown import Markdown
from markdown.preprocessors import Preprocessor
from pymdownx.blocks import BlocksExtension
from pymdownx.blocks.block import Block, type_string, type_string_in

from trafikist.course.markdown import generated_html
from trafikist.course.markdown.without_plugin import refuse_without_the_plugin

# A source comment (`<!-- seed: "…" -->`) is for the build and the author, not the reader; a
# code span that shows one stays.
SOURCE_COMMENT = re.compile(r"(?P<code>(`+).*?(?<!`)\2(?!`))|[ \t]*<!--\s*seed:.*?-->", re.DOTALL)

FORWARD_LABEL = "Where the specifications take it"
# What an empty forward block says: the place is marked, the step is not written yet.
FORWARD_PLANNED = (
    "Not written yet. The course marks the place here and states no step of the "
    "specifications until it is written."
)


class Takeaway(Block):
    NAME = "takeaway"
    ARGUMENT = False

    def on_create(self, parent: etree.Element) -> etree.Element:
        block = etree.SubElement(parent, "div", {"class": "tk-takeaway", "role": "note"})
        label = etree.SubElement(block, "p", {"class": "tk-takeaway__label"})
        label.text = "Takeaway"
        return block


class Forward(Block):
    NAME = "forward"
    ARGUMENT = None  # an optional label replaces the default one

    def on_create(self, parent: etree.Element) -> etree.Element:
        block = etree.SubElement(parent, "aside", {"class": "tk-forward"})
        label = etree.SubElement(block, "p", {"class": "tk-forward__label"})
        label.text = self.argument or FORWARD_LABEL
        return block

    def on_end(self, block: etree.Element) -> None:
        """A forward block with no body is planned: its label, a badge and the planned note."""
        if len(block) > 1 or (block.text or "").strip():
            return
        block.set("class", "tk-forward tk-forward--planned")
        label = block[0]
        badge = etree.SubElement(label, "span", {"class": "tk-badge tk-badge--planned"})
        hidden = etree.SubElement(badge, "span", {"class": "tk-visually-hidden"})
        hidden.text = ", "
        hidden.tail = "planned"
        badge.tail = ""
        label.text = (label.text or "") + " "
        note = etree.SubElement(block, "p", {"class": "tk-forward__planned"})
        note.text = FORWARD_PLANNED


class Excerpt(Block):
    NAME = "excerpt"
    ARGUMENT = True  # the caption: source, then what the excerpt shows
    OPTIONS: ClassVar[dict[str, tuple[Any, Any]]] = {
        "quotes": ("", type_string_in(["", "registry"])),
        "source": ("", type_string),
        # A Valkey transcript's command list, transcripts/NAME.txt (trafikist.course.transcripts)
        "transcript": ("", type_string),
    }

    def on_create(self, parent: etree.Element) -> etree.Element:
        attributes = {"class": "tk-excerpt"}
        if self.options["quotes"]:
            attributes["data-quotes"] = self.options["quotes"]
        if self.options["transcript"]:
            attributes["data-transcript"] = self.options["transcript"]
            # What a line of evidence on Valkey links to ("How we know").
            attributes["id"] = f"tk-transcript-{self.options['transcript']}"
        figure = etree.SubElement(parent, "figure", attributes)
        caption = etree.SubElement(figure, "figcaption", {"class": "tk-excerpt__caption"})
        caption.text = self.argument
        return figure


class Pattern(Block):
    NAME = "pattern"
    ARGUMENT = None

    def on_create(self, parent: etree.Element) -> etree.Element:
        panel = etree.SubElement(parent, "section", {"class": "tk-pattern"})
        if self.argument:
            panel.set("aria-label", self.argument)
            title = etree.SubElement(panel, "p", {"class": "tk-pattern__title"})
            title.text = self.argument
        return panel

    def on_end(self, block: etree.Element) -> None:
        """Group the content into one side per level-4 heading."""
        children = list(block)
        side: etree.Element | None = None
        for child in children:
            if child.tag == "p" and child.get("class") == "tk-pattern__title":
                continue
            block.remove(child)
            if child.tag == "h4":
                side = etree.SubElement(block, "div", {"class": "tk-pattern__side"})
                child.set("class", "tk-pattern__label")
                child.tag = "p"
            elif side is None:
                side = etree.SubElement(block, "div", {"class": "tk-pattern__side"})
            side.append(child)


BLOCKS: tuple[type[Block], ...] = (Takeaway, Forward, Excerpt, Pattern)


class SourceCommentPreprocessor(Preprocessor):
    """Drops source comments, so they reach neither the page nor the search index."""

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        if "seed:" not in text:
            return lines
        return SOURCE_COMMENT.sub(lambda m: m["code"] or "", text).split("\n")


class CourseBlocksExtension(BlocksExtension):
    def extendMarkdownBlocks(self, md: Markdown, block_mgr: Any) -> None:
        for block in BLOCKS:
            block_mgr.register(block, self.getConfigs())
        # After fenced code is stashed (25), so a code block that shows a comment keeps it, and
        # before the HTML block preprocessor (20), which would keep a comment as raw HTML.
        md.preprocessors.register(SourceCommentPreprocessor(md), "trafikist-source-comments", 22)
        generated_html.register(md)


def makeExtension(*args: Any, **kwargs: Any) -> CourseBlocksExtension:
    refuse_without_the_plugin()  # MkDocs loads it before it empties the site folder
    return CourseBlocksExtension(*args, **kwargs)
