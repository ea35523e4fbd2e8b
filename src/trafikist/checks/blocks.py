"""A page's syntax, checked before any engine reads it: a slip in a block or a comment never
builds a page that looks wrong.

Python-Markdown forgives everything: a block left open swallows the rest of the page into its
box, an unknown `/// name` and a stray `///` print as text, an unclosed `<!--` hides the rest
of the page, and a generated block where its data is missing prints its own name. Each is
refused here with the line it starts on:

- every `/// NAME` block is closed, its name is one the course knows, and a closing `///` has
  a block to close;
- every HTML comment is closed;
- a generated block (`/// duties`, `/// dive-cards`, `/// up-next`, `/// worked-example`: the
  entries of trafikist.course.render.GENERATED_BLOCKS that an author writes) is empty, appears
  once, and stands where its data exists;
- nothing nests deeper than MAX_DEPTH (quotes, lists, blocks): Python-Markdown recurses on
  each level, and a few hundred levels end in an error that names no line.

Fenced code is the author's literal text, and a question's body is YAML
(trafikist.course.questions): neither is read for blocks.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from trafikist.base.characters import first_suspect, line_index
from trafikist.base.errors import CourseError, Problem
from trafikist.course import questions, syntax
from trafikist.course.loader import strings_in
from trafikist.course.markdown import blocks as markdown_blocks
from trafikist.course.render import GENERATED, GENERATED_BLOCK
from trafikist.course.sources import DRAFT, load_yaml_node
from trafikist.course.structure import Duty, Page, Status
from trafikist.course.syntax import (
    BLOCK_CLOSE,
    BLOCK_OPEN,
    FENCE_OPEN,
    QUESTION_BLOCK,
    QUESTION_CLOSE,
    QUESTION_OPEN,
    blank,
    comment_left_open,
)

# The blocks an author writes: the engine's (course.markdown.blocks), a question, and the
# generated ones (course.render), each listed once where it is made.
PROSE_BLOCKS = (*(block.NAME for block in markdown_blocks.BLOCKS), questions.BLOCK)
GENERATED_BLOCKS = tuple(block.name for block in GENERATED.values() if block.written)
KNOWN_BLOCKS = PROSE_BLOCKS + GENERATED_BLOCKS
MAX_DEPTH = 16
QUOTE_DEPTH = re.compile(r"^\s{0,3}((?:>\s?)+)")
LIST_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*+]|\d+[.)])\s")
GUIDE = 'docs/authoring.md, "The blocks"'
# A heading of a section (levels 1 to 3) never stands inside a block; a pattern block's own
# parts are level 4.
SECTION_HEADING = re.compile(r"^#{1,3}\s+\S.*")
# What a planned page's note never holds: a heading of any level.
PLANNED_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
# One or two slashes before a block's name: a slip for `/// NAME`.
NEAR_OPEN = re.compile(r"^\s*(?P<slashes>/{1,2})\s*(?P<name>[\w-]+)\s*(?:\|.*)?$")


def check_blocks(page: Page) -> list[Problem]:
    """The page's first slip of syntax, or nothing. Past a broken block, fence, comment or
    marked span every later line is read wrongly (a block closes the wrong one, code becomes
    prose), so the first slip is the one to name; the checks read such a page no further."""
    if page.source is None:
        return []
    problems = _invisible(page) + _block_problems(page) + _span_problems(page)
    problems += _planned_lesson(page)
    return [min(problems, key=lambda problem: problem.line or 0)] if problems else []


def _block_problems(page: Page) -> list[Problem]:
    assert page.source is not None
    problems: list[Problem] = []
    lines = [_unwrap_draft(text) for text in page.body.split("\n")]
    first = page.body_line
    open_blocks: list[tuple[str, int, int]] = []  # (name, slashes, line)
    past_heading: dict[int, Problem] = {}  # a block's line -> the heading it runs past
    seen: dict[str, int] = {}
    fence = ""
    fence_line = 0
    comment_line: int | None = None
    index = 0
    while index < len(lines):
        text = lines[index]
        line = first + index
        stripped = text.strip()
        if fence:
            if stripped.startswith(fence) and set(stripped) <= {fence[0]}:
                fence = ""
            elif _opens_a_fence(text, fence):
                problems.append(_fence_problem(page, fence_line, line))
                fence = ""
                break
            index += 1
            continue
        if comment_line is not None:
            inside = text.split("-->", 1)[0]
            if "<!--" in inside:
                # HTML has no nested comments: this comment runs to the next one's end, and
                # what lies between would not show.
                problems.append(_comment_not_closed(page, comment_line, line))
                comment_line = None
                break
            if "-->" in text:
                comment_line = None
                text = text.split("-->", 1)[1]
            else:
                index += 1
                continue
        opening = FENCE_OPEN.match(text)
        if opening:
            fence = opening["fence"]
            fence_line = line
            index += 1
            continue
        left_open = comment_left_open(text)
        comment_line = line if left_open else None
        if left_open is None:
            problems.append(_comment_not_closed(page, line, line))
            break
        block = BLOCK_OPEN.match(text)
        near_miss = _near_miss(page, text, line, block)
        if near_miss is not None:
            problems.append(near_miss)
            break
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
            if name == questions.BLOCK:
                # A question's body is YAML up to its closing line.
                end = next(
                    (i for i in range(index + 1, len(lines)) if QUESTION_CLOSE.match(lines[i])),
                    None,
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
                at = open_blocks[position][2]
                problems += [past_heading.pop(at)] if at in past_heading else []
                del open_blocks[position:]
            index += 1
            continue
        heading = SECTION_HEADING.match(text)
        if heading and open_blocks and open_blocks[-1][2] not in past_heading:
            name, _, at = open_blocks[-1]
            # Named when the block closes: a block never closed is named as such.
            past_heading[at] = Problem(
                page.source,
                at,
                f"the block '/// {name}' opened here runs on past the heading "
                f"'{heading[0].strip()[:60]}' at line {line}: the sections after it would "
                "render inside the block.",
                "Close the block with a line '///' before the heading.",
            )
        deep = _depth(page, text, line)
        if deep:
            problems += deep
            break  # one line says it: the lines below nest as deep
        index += 1
    else:
        # The end of the page, reached with no slip that stops the reading. A fence left open
        # swallowed the closing lines after it: it is the slip, not the blocks left open.
        if fence:
            return [*problems, _fence_problem(page, fence_line, None)]
        problems += [_never_closed(page, name, at) for name, _, at in open_blocks]
        if comment_line is not None:
            problems.append(
                Problem(
                    page.source,
                    comment_line,
                    "this HTML comment '<!--' is never closed: the rest of the page would not "
                    "show.",
                    "Close it with '-->'.",
                )
            )
    return problems


def _invisible(page: Page) -> list[Problem]:
    """An invisible character, a look-alike letter or a word that mixes scripts
    (trafikist.base.characters): a byte-order mark past the file's start hides the syntax of
    its line (`\ufeff## A heading` is no heading), a soft hyphen makes another word of the one
    the reader sees. A page's file is checked as it is read; a page made another way here."""
    assert page.source is not None
    suspect = first_suspect(page.body)
    if suspect is None:
        return []
    line = page.body_line + line_index(page.body, suspect.offset)
    return [Problem(page.source, line, suspect.what, suspect.fix)]


def _opens_a_fence(text: str, fence: str) -> bool:
    """A line inside a fence that reads as the opening of another (```rust inside ```): the
    fence before it lost its closing line, so the rest of the page is read inside out."""
    opening = FENCE_OPEN.match(text)
    return (
        opening is not None
        and opening["fence"][0] == fence[0]
        and len(opening["fence"]) >= len(fence)
        and bool(opening["info"].strip())
    )


def _fence_problem(page: Page, line: int, next_line: int | None) -> Problem:
    assert page.source is not None
    if next_line is None:
        what = "the code fence opened here is never closed: the rest of the page would be code."
    else:
        what = (
            f"the code fence opened here is not closed before the fence at line {next_line}: "
            "the code would run on, and the code after it would render as text."
        )
    return Problem(page.source, line, what, "Close it with a line of the same backticks.")


def _span_problems(page: Page) -> list[Problem]:
    """A marked span (`[text]{claim: …}`, `{expect:`, `{choice:`, `{valkey:`) whose `}` is
    missing: it is printed as written, or it swallows the next span into its expression. In
    the page's prose (code, comments and questions left out) and in its duties' sentences."""
    assert page.source is not None
    scanned = syntax.scan(page.body)
    prose = re.sub(r"(`+)[^\n]*?\1", lambda match: " " * len(match.group()), scanned.prose)
    problems = [
        Problem(page.source, page.body_line + scanned.line_of(offset), what, fix)
        for offset, what, fix in _open_spans(prose)
    ]
    for duty in page.duties:
        for name in Duty.TEXT_FIELDS:
            problems += [
                Problem(duty.source, duty.line_of(name), what, fix)
                for _, what, fix in _open_spans(duty.text(name))
            ]
    for line, text in _question_texts(page):
        problems += [Problem(page.source, line, what, fix) for _, what, fix in _open_spans(text)]
    return problems


def _question_texts(page: Page) -> list[tuple[int, str]]:
    """Each text of each question (`/// check | …` and the YAML below it), with its line. A
    question whose YAML does not read is left to its own check (trafikist.checks.questions)."""
    lines = page.body.split("\n")
    found: list[tuple[int, str]] = []
    for index, text in enumerate(lines):
        block = BLOCK_OPEN.match(text)
        if block is None or block["name"] != "check":
            continue
        end = next((i for i in range(index + 1, len(lines)) if BLOCK_CLOSE.match(lines[i])), None)
        if end is None:
            continue
        found.append((page.body_line + index, block["arg"] or ""))
        body = "\n".join(lines[index + 1 : end])
        try:  # the course's reader: no aliases, bounded depth (an alias fan-out never expands)
            data, _ = load_yaml_node(body, page.source or Path(page.id))
        except CourseError:
            continue
        for value in strings_in(data):
            start = " ".join(value.split())[:20]
            at = next((i for i in range(index + 1, end) if start and start in lines[i]), index)
            found.append((page.body_line + at, value))
    return found


SPAN_MARK = re.compile(r"\]\{\s*(?P<kind>claim|expect|choice|valkey)\s*:")
SPAN_FIX = "Close it with '}' right after its expression: [text]{KIND: …}."


def _open_spans(text: str) -> list[tuple[int, str, str]]:
    """(offset, what, fix) for each marked span in `text` that is not closed."""
    if SPAN_MARK.search(text) is None:
        return []
    closed: set[int] = set()  # the offset of each span's `]{`, of the spans read whole
    found: list[tuple[int, str, str]] = []
    stack = [(0, text)]
    while stack:
        base, part = stack.pop()
        for span in syntax.find_spans(part):
            closed.add(base + span.text_start + len(span.text))
            stack.append((base + span.text_start, span.text))
            inner = syntax.CLAIM_OPEN.search(span.expression)
            if inner is not None:
                found.append(
                    (
                        base + span.start,
                        f"the '{{{span.kind}:' span has no closing '}}': it runs on into the "
                        f"next marked span, and reads '{span.expression[:60]}'.",
                        SPAN_FIX.replace("KIND", span.kind),
                    )
                )
    for mark in SPAN_MARK.finditer(text):
        if mark.start() not in closed:
            found.append(
                (
                    mark.start(),
                    f"the '{{{mark['kind']}:' span has no closing '}}' in its paragraph: the page "
                    "would show it as written.",
                    SPAN_FIX.replace("KIND", mark["kind"]),
                )
            )
    return found


def _planned_lesson(page: Page) -> list[Problem]:
    """A page marked planned shows its title, its summary and a short note; a lesson written
    in it (a block, a question, a fence, a heading) would print as raw text under "not written
    yet": its `///` lines, a question's `right: true` and `# seed:` comments. The scaffold's
    draft, which the build leaves out, is the place for it."""
    assert page.source is not None
    if page.status is not Status.PLANNED:
        return []
    body = DRAFT.sub(lambda match: blank(match.group()), page.body)
    for index, text in enumerate(body.split("\n")):
        if BLOCK_OPEN.match(text) or FENCE_OPEN.match(text) or PLANNED_HEADING.match(text):
            return [
                Problem(
                    page.source,
                    page.body_line + index,
                    f"this page is marked 'status: planned', which shows readers its title, its "
                    f"summary and a short note only, and it holds a written lesson here "
                    f"('{text.strip()[:40]}'): its lines would print as raw text.",
                    "Set 'status: built' to publish the lesson, or keep it inside the draft "
                    "comment ('<!-- trafikist:draft' … 'trafikist:draft -->'), which stays out "
                    'of the page (docs/authoring.md, "Statuses").',
                )
            ]
    return []


def _unwrap_draft(text: str) -> str:
    """A scaffold's draft wrapper (`<!-- trafikist:draft` … `trafikist:draft -->`) is no HTML
    comment of the page: the build takes the draft out of a planned page, and the author deletes
    both lines when the lesson is written. What it wraps is checked as the lesson will be."""
    stripped = text.strip()
    if stripped.startswith("<!-- trafikist:draft") or stripped == "trafikist:draft -->":
        return ""
    return text


def _near_miss(page: Page, text: str, line: int, block: re.Match[str] | None) -> Problem | None:
    """A line that is almost a block's opener: the engine would print it, and the YAML or
    prose under it, as text (a question's `right: true` included), and no check would read
    it. A question opens with exactly `/// check` at the line's start; any block with three
    slashes or more."""
    assert page.source is not None
    if block is not None:
        if block["name"] != QUESTION_BLOCK or QUESTION_OPEN.match(text):
            return None
        return Problem(
            page.source,
            line,
            f"'{text.rstrip()[:60]}' is almost a question's opener: a question opens with "
            "exactly '/// check' at the line's start, so this one would print as text, its "
            "answer included, and no check would read it.",
            f"Write '/// check | …' with three slashes, not indented ({GUIDE}).",
        )
    near = NEAR_OPEN.match(text)
    if near is None or near["name"] not in KNOWN_BLOCKS:
        return None
    return Problem(
        page.source,
        line,
        f"'{text.rstrip()[:60]}' is almost a block's opener: with "
        f"{'one slash' if len(near['slashes']) == 1 else 'two slashes'} it would print as text, "
        "and no check would read the block.",
        f"Open the block with three slashes: '/// {near['name']}' ({GUIDE}).",
    )


def _comment_not_closed(page: Page, line: int, next_line: int) -> Problem:
    """A comment opened at `line` that another `<!--` (at `next_line`) follows before its
    `-->`."""
    assert page.source is not None
    where = "on the same line" if next_line == line else f"at line {next_line}"
    return Problem(
        page.source,
        line,
        f"this HTML comment '<!--' is not closed before the next '<!--' {where}: everything "
        "up to that comment's '-->' would not show.",
        "Close it with '-->' where the comment ends.",
    )


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
    elif not GENERATED_BLOCK.match(f"{lines[index]}\n{following}"):
        # The renderer's own pattern: any other form (indented, a slash more, no space) is
        # left to the engine, which prints both lines as text.
        problems.append(
            Problem(
                page.source,
                line,
                f"'{lines[index].strip()[:60]}' and the '{following.strip()}' under it would "
                f"print as text: the build fills in '/// {name}' only where it stands at the "
                "line's start with three slashes and one space, and its closing '///' at the "
                "start of the next line.",
                f"Write '/// {name}' and, on the next line, '///', both at the line's start.",
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
    block = GENERATED[name]
    if page.kind not in block.kinds:
        return f"stands on a page that is not {block.where}."
    return block.needs(page)


def _fix_for(name: str) -> str:
    return GENERATED[name].fix


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
