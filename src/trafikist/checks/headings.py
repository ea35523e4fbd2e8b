"""The table of contents names each section as its heading does.

Both the page's section nav and the theme's table of contents show a heading's
`data-toc-label` when it has one. A label is the heading shortened, never another sentence: its
words are the heading's words, in the heading's order, some left out ("The bus, from
built-ins" for "The bus, composed from built-ins"). A reader who picks "What a wake carries"
and lands on "A wake asks to check again" has been told two things.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trafikist.base.errors import Problem
from trafikist.checks.inputs import PageCheck, proving_nothing
from trafikist.course.render import BLOCK_LINE, HEADING, TOC_LABEL
from trafikist.course.structure import Page

WORD = re.compile(r"[\w@*.+/-]+(?:[':][\w]+)*")


def check_toc_labels(page: Page) -> list[Problem]:
    """Each labelled heading of the page whose label is not the heading shortened."""
    assert page.source is not None
    return [
        Problem(
            page.source,
            page.body_line + index,
            f"the table of contents calls the section '{label}', which is not its heading "
            f"'{heading}' shortened.",
            "Write the label with the heading's own words, in their order, leaving some out "
            "(or drop data-toc-label to show the whole heading).",
        )
        for index, heading, label in _labelled_headings(page.body)
        if not _shortens(label, heading)
    ]


def _labelled_headings(body: str) -> Iterator[tuple[int, str, str]]:
    in_fence = False
    blocks = 0
    for index, line in enumerate(body.split("\n")):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_fence:
            continue
        if BLOCK_LINE.match(line):
            blocks = max(blocks + (-1 if line.strip() == "///" else 1), 0)
            continue
        match = None if blocks else HEADING.match(line)
        label = TOC_LABEL.search(match["attrs"] or "") if match else None
        if match and label:
            yield index, match["text"], label["label"]


def _words(text: str) -> list[str]:
    return [word.lower() for word in WORD.findall(text.replace("`", ""))]


def _shortens(label: str, heading: str) -> bool:
    """Every word of the label is a word of the heading, in the heading's order."""
    words = iter(_words(heading))
    return bool(_words(label)) and all(word in words for word in _words(label))


CHECK = PageCheck(
    "toc labels", proving_nothing(lambda page, facts: check_toc_labels(page)), facts=()
)
