"""Wrap each level-2 heading and what follows it in a <section>, so CSS, tests and assistive
technology can address a lesson's sections as units."""

from __future__ import annotations

import xml.etree.ElementTree as etree
from typing import Any

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

from trafikist.course.markdown.without_plugin import refuse_without_the_plugin


class SectionTreeprocessor(Treeprocessor):
    def run(self, root: etree.Element) -> None:
        section: etree.Element | None = None
        # Everything from the first h2 on moves into sections appended in order, so the
        # content before it (the lede) stays first and the reading order does not change.
        for child in list(root):
            if child.tag == "h2":
                section = etree.Element("section", {"class": "tk-section"})
                if heading_id := child.get("id"):
                    section.set("aria-labelledby", heading_id)
            if section is None:
                continue
            root.remove(child)
            section.append(child)
            if child.tag == "h2":
                root.append(section)


class SectionsExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        # After toc (priority 5) so headings carry their ids; before inline placeholders are
        # restored, which does not matter for block elements.
        md.treeprocessors.register(SectionTreeprocessor(md), "trafikist-sections", 4)


def makeExtension(*args: Any, **kwargs: Any) -> SectionsExtension:
    refuse_without_the_plugin()  # MkDocs loads it before it empties the site folder
    return SectionsExtension(*args, **kwargs)
