"""A page's syntax, checked before any engine reads it: a slip in a block or a comment never
builds a page that looks wrong.

Python-Markdown forgives everything: a block left open swallows the rest of the page into its
box, an unknown `/// name` and a stray `///` print as text, an unclosed `<!--` hides the rest
of the page, and a generated block where its data is missing prints its own name. Each is
refused here with the line it starts on:

- every `/// NAME` block is closed, its name is one the course knows, and a closing `///` has
  a block to close;
- every HTML comment is closed;
- a generated block (`/// duties`, `/// dive-cards`, `/// up-next`, `/// worked-example`,
  `/// review`) is empty, appears once, and stands where its data exists;
- nothing nests deeper than MAX_DEPTH (quotes, lists, blocks): Python-Markdown recurses on
  each level, and a few hundred levels end in an error that names no line.

Fenced code is the author's literal text, and a question's body is YAML
(trafikist.course.questions): neither is read for blocks.
"""

from __future__ import annotations

import difflib
import re

from trafikist.base.errors import Problem
from trafikist.course.examples import example_path
from trafikist.course.structure import Kind, Page
from trafikist.course.syntax import BLOCK_CLOSE, BLOCK_OPEN, FENCE_OPEN

PROSE_BLOCKS = ("takeaway", "forward", "excerpt", "pattern", "check")
GENERATED_BLOCKS = ("duties", "dive-cards", "up-next", "worked-example")
KNOWN_BLOCKS = PROSE_BLOCKS + GENERATED_BLOCKS
MAX_DEPTH = 16
QUOTE_DEPTH = re.compile(r"^\s{0,3}((?:>\s?)+)")
LIST_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d+[.)])\s")
GUIDE = 'docs/authoring.md, "The blocks"'


def check_blocks(page: Page) -> list[Problem]:
    if page.source is None:
        return []
    problems: list[Problem] = []
    lines = page.body.split("\n")
    first = page.body_line
    open_blocks: list[tuple[str, int, int]] = []  # (name, slashes, line)
    seen: dict[str, int] = {}
    fence = ""
    comment_line: int | None = None
    index = 0
    while index < len(lines):
        text = lines[index]
        line = first + index
        stripped = text.strip()
        if fence:
            if stripped.startswith(fence) and set(stripped) <= {fence[0]}:
                fence = ""
            index += 1
            continue
        if comment_line is not None:
            if "-->" in text:
                comment_line = None
                text = text.split("-->", 1)[1]
            else:
                index += 1
                continue
        opening = FENCE_OPEN.match(text)
        if opening:
            fence = opening["fence"]
            index += 1
            continue
        comment_line = _comment_left_open(text, line)
        block = BLOCK_OPEN.match(text)
        if block:
            name = block["name"]
            if name not in KNOWN_BLOCKS:
                close = difflib.get_close_matches(name, KNOWN_BLOCKS, n=1)
                hint = f" Did you mean '/// {close[0]}'?" if close else ""
                problems.append(
                    Problem(
                        page.source,
                        line,
                        f"'/// {name}' is not a block of the course.{hint}",
                        f"Use one of: {', '.join(KNOWN_BLOCKS)} ({GUIDE}).",
                    )
                )
            if name in GENERATED_BLOCKS:
                problems += _generated(page, name, lines, index, line, seen)
                index += 2  # the block and its closing line
                continue
            if name == "check":
                # A question's body is YAML up to its closing line.
                end = next(
                    (i for i in range(index + 1, len(lines)) if BLOCK_CLOSE.match(lines[i])), None
                )
                if end is None:
                    problems.append(_never_closed(page, name, line))
                    break
                index = end + 1
                continue
            open_blocks.append((name, len(block["slashes"]), line))
            if len(open_blocks) > MAX_DEPTH:
                problems.append(_too_deep(page, line, "blocks"))
                break
            index += 1
            continue
        closing = BLOCK_CLOSE.match(text)
        if closing:
            count = len(closing["slashes"])
            position = next(
                (i for i in range(len(open_blocks) - 1, -1, -1) if open_blocks[i][1] == count),
                None,
            )
            if position is None:
                problems.append(
                    Problem(
                        page.source,
                        line,
                        f"this '{stripped}' closes no block: none is open here.",
                        "Delete the line, or open the block it closes with '/// NAME'.",
                    )
                )
            else:
                # A block left open inside the one closed here is never closed.
                problems += [
                    _never_closed(page, name, at) for name, _, at in open_blocks[position + 1 :]
                ]
                del open_blocks[position:]
            index += 1
            continue
        deep = _depth(page, text, line)
        if deep:
            problems += deep
            break  # one line says it: the lines below nest as deep
        index += 1
    problems += [_never_closed(page, name, at) for name, _, at in open_blocks]
    if comment_line is not None:
        problems.append(
            Problem(
                page.source,
                comment_line,
                "this HTML comment '<!--' is never closed: the rest of the page would not show.",
                "Close it with '-->'.",
            )
        )
    return problems


def _comment_left_open(text: str, line: int) -> int | None:
    """The line of a `<!--` that the line does not close, outside code spans."""
    text = re.sub(r"(`+).*?\1", "", text)
    while "<!--" in text:
        after = text.split("<!--", 1)[1]
        if "-->" not in after:
            return line
        text = after.split("-->", 1)[1]
    return None


def _generated(
    page: Page, name: str, lines: list[str], index: int, line: int, seen: dict[str, int]
) -> list[Problem]:
    assert page.source is not None
    problems = []
    following = lines[index + 1] if index + 1 < len(lines) else ""
    if not BLOCK_CLOSE.match(following):
        problems.append(
            Problem(
                page.source,
                line,
                f"'/// {name}' is filled in by the build and takes no text: the line after it "
                "must be its closing '///'.",
                f"Write '/// {name}' and '///' on the next line, with nothing between them.",
            )
        )
    if name in seen:
        problems.append(
            Problem(
                page.source,
                line,
                f"'/// {name}' stands on this page twice (first at line {seen[name]}).",
                "Keep one of them.",
            )
        )
    seen.setdefault(name, line)
    missing = _missing_data(page, name)
    if missing:
        problems.append(Problem(page.source, line, f"'/// {name}' {missing}", _fix_for(name)))
    return problems


def _missing_data(page: Page, name: str) -> str:
    """What is missing for a generated block to have something to show, or ""."""
    if name == "duties":
        if page.kind is not Kind.MODULE:
            return "stands on a page that is not a module's."
        if not page.duties:
            return "stands in a module that has no duties.yml."
    if name == "dive-cards" and page.kind is not Kind.MODULE:
        return "stands on a page that is not a module's."  # no dives yet: it says so
    if name == "worked-example":
        path = example_path(page)
        if page.kind is not Kind.DIVE:
            return "stands on a page that is not a dive."
        if path is None or not path.is_file():
            return f"stands in a dive with no worked example ({path.name if path else 'none'})."
    if name == "up-next" and page.kind not in (Kind.MODULE, Kind.DIVE):
        return "stands on a page that is not a module or a dive."
    return ""


def _fix_for(name: str) -> str:
    return {
        "duties": "Write the module's duties.yml, or remove the block.",
        "worked-example": "Write the scenario beside the dive (NN-slug.example.yml), or remove "
        "the block.",
    }.get(name, "Remove the block.")


def _never_closed(page: Page, name: str, line: int) -> Problem:
    assert page.source is not None
    return Problem(
        page.source,
        line,
        f"the block '/// {name}' opened here is never closed: everything after it would "
        "render inside it.",
        "Close it with a line '///' where the block ends.",
    )


def _depth(page: Page, text: str, line: int) -> list[Problem]:
    quote = QUOTE_DEPTH.match(text)
    if quote and quote[1].count(">") > MAX_DEPTH:
        return [_too_deep(page, line, "quotes")]
    item = LIST_ITEM.match(text)
    if item and len(item["indent"].expandtabs(4)) > 4 * MAX_DEPTH:
        return [_too_deep(page, line, "lists")]
    return []


def _too_deep(page: Page, line: int, what: str) -> Problem:
    assert page.source is not None
    return Problem(
        page.source,
        line,
        f"the {what} here nest deeper than {MAX_DEPTH} levels.",
        "Flatten the text: a page of the course never nests this deep.",
    )
