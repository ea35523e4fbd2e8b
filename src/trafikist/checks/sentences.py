"""The sentences of a page: its prose, front matter, duties and questions, cut into sentences,
each with its file, its line and the seed sentences its source comments cite.

The checks that read sentences (provenance against the seed, the model's runs, the Valkey
statements) all take them from here, so a sentence is the same unit, at the same line, for each.
A marked span (`[…]{claim: …}`, `{expect: …}`, `{valkey: …}`) is never split.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from trafikist.base.errors import CourseError
from trafikist.checks.memo import remembered
from trafikist.course import syntax
from trafikist.course.questions import Question, page_questions
from trafikist.course.sources import SourceComment, source_comments, yaml_source_quotes
from trafikist.course.structure import Page

LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
HEADING = re.compile(r"^\s*#{1,6}\s+")
SENTENCE_END = re.compile(r"[.!?](?=\s+(?:[\[`\"(A-Z0-9@]|trafikey\b)|\s*$)")
SPAN_FOLLOWER = re.compile(r"\s+(?:[\[`\"(A-Z0-9@]|trafikey\b)|\s*$")


@dataclass
class Sentence:
    file: Path
    line: int
    markdown: str  # the sentence as written, marked spans and links included
    statement: bool  # False for headings, captions and labels: facts only
    quotes: list[str] = field(default_factory=list)  # what its source comments cite
    offset: int = 0  # where it starts in the text it came from (for source comments)
    end: int = 0
    # The text it came from, as an evidence anchor names it (trafikist.course.evidence):
    # `body`, `meta:KEY`, `duty:ID:FIELD`, `question:ID:PART`.
    where: str = "body"

    def anchor(self, start: int = 0) -> str:
        """Where a character of the sentence (`start`, from its first) stands in its text."""
        return f"{self.where}:{self.offset + start}"


def page_sentences(
    page: Page, scanned: syntax.Scanned | None = None, hint: re.Pattern[str] | None = None
) -> Iterator[Sentence]:
    """Every sentence of the page's body, front matter and duties, with its line; with `hint`,
    only those of the paragraphs and fields the pattern finds something in."""
    assert page.source is not None
    scanned = scanned or syntax.scan(page.body)
    comments = source_comments(page.body) if "seed:" in page.body else []
    for start, text, statement in _units(scanned.prose):
        if hint is not None and hint.search(text) is None:
            continue
        line = page.body_line + scanned.line_of(start)
        found = list(_split(text, start, page.source, line, statement))
        for sentence in found:
            sentence.line = page.body_line + scanned.line_of(sentence.offset)
        _attach(found, comments, start, start + len(text), page.body)
        yield from found
    lines = _file_lines(page.source)
    for key in ("title", "summary"):
        value = page.meta.get(key)
        if isinstance(value, str) and (meta_line := page.line_of(key)):
            quotes = list(yaml_source_quotes(lines, meta_line))
            for sentence in _split(value, 0, page.source, meta_line, key == "summary"):
                sentence.quotes = quotes
                sentence.where = f"meta:{key}"
                yield sentence
    up_next = page.meta.get("up_next")
    if isinstance(up_next, dict) and (parent := page.line_of("up_next")):
        for key, value in up_next.items():
            line = _child_line(lines, parent, str(key))
            quotes = list(yaml_source_quotes(lines, line))
            for sentence in _split(str(value), 0, page.source, line, True):
                sentence.quotes = quotes
                sentence.where = f"meta:up_next.{key}"
                yield sentence
    for duty in page.duties:
        for name in duty.TEXT_FIELDS:
            line = duty.line_of(name)
            for sentence in _split(duty.text(name), 0, duty.source, line, name != "label"):
                sentence.quotes = list(duty.sources.get(name, ()))
                sentence.where = f"duty:{duty.id}:{name}"
                yield sentence
    for question in readable_questions(page):
        for sentence in _split(question.prompt, 0, page.source, question.line, False):
            sentence.where = f"question:{question.id}:prompt"
            yield sentence
        for number, (text, line) in enumerate(question.whys):
            quotes = list(yaml_source_quotes(lines, line))
            for sentence in _split(text, 0, page.source, line, True):
                sentence.quotes = quotes
                sentence.where = f"question:{question.id}:why:{number}"
                yield sentence


def readable_questions(page: Page) -> list[Question]:
    """The page's questions; one that cannot be read is trafikist.checks.questions' to name."""
    if "/// check" not in page.body:
        return []
    try:
        return page_questions(page)
    except CourseError:
        return []


def _units(prose: str) -> Iterator[tuple[int, str, bool]]:
    """(offset, text, is a statement) for each paragraph, list item, heading and block label."""
    offset = 0
    unit_start: int | None = None
    unit_end = 0

    def flush() -> Iterator[tuple[int, str, bool]]:
        if unit_start is not None:
            yield unit_start, prose[unit_start:unit_end], True

    for raw in prose.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        stripped = line.strip()
        block = syntax.BLOCK_OPEN.match(line)
        if not stripped or syntax.BLOCK_CLOSE.match(line) or block or HEADING.match(line):
            yield from flush()
            unit_start = None
            if block and block["arg"]:
                yield offset + line.index(block["arg"]), block["arg"], False
            elif HEADING.match(line):
                head = HEADING.match(line)
                assert head is not None
                yield offset + head.end(), line[head.end() :], False
        elif LIST_ITEM.match(line) or stripped.startswith("<"):
            yield from flush()
            unit_start = None
            if not stripped.startswith("<"):
                item = LIST_ITEM.match(line)
                assert item is not None
                unit_start, unit_end = offset + item.end(), offset + len(line)
        else:
            if unit_start is None:
                unit_start = offset + (len(line) - len(line.lstrip()))
            unit_end = offset + len(line)
        offset += len(raw)
    yield from flush()


def prose_sentences(prose: str) -> Iterator[tuple[int, str]]:
    """(offset, text) of each sentence of a body's prose as syntax.scan leaves it (code,
    questions, block options and comments blanked), its headings and block labels included."""
    for start, text, _ in _units(prose):
        for begin, stop in sentence_bounds(text):
            yield start + begin, text[begin:stop]


def _split(text: str, start: int, file: Path, line: int, statement: bool) -> Iterator[Sentence]:
    """The sentences of `text`, as Sentence objects at their offsets."""
    for begin, stop in sentence_bounds(text):
        yield Sentence(file, line, text[begin:stop], statement, [], start + begin, start + stop)


@functools.lru_cache(maxsize=8192)
def sentence_bounds(text: str) -> tuple[tuple[int, int], ...]:
    """(start, end) of each sentence of `text`, spaces trimmed; a marked span is never split,
    whatever it holds, and a span whose text ends a sentence ends one. Kept per text: a
    course's prose repeats, and a preview rebuilds it."""
    found = list(syntax.find_spans(text))
    spans = [(span.start, span.end) for span in found]
    cuts = [match.end() for match in SENTENCE_END.finditer(text)]
    cuts += [
        span.end
        for span in found
        if span.text.rstrip().endswith((".", "!", "?")) and SPAN_FOLLOWER.match(text, span.end)
    ]
    bounds: list[tuple[int, int]] = []
    begin = 0
    for cut in [*sorted(set(cuts)), len(text)]:
        if any(a < cut < b for a, b in spans) or cut <= begin:
            continue
        chunk = text[begin:cut]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            bounds.append((begin + lead, begin + len(chunk.rstrip())))
        begin = cut
    return tuple(bounds)


def _attach(
    sentences: list[Sentence], comments: list[SourceComment], start: int, end: int, body: str
) -> None:
    """A source comment covers the sentence it closes: the last one that ends before it, in
    the same paragraph or on the line right after it."""
    for comment in comments:
        if not sentences or comment.start < start:
            continue
        if comment.start > end and (
            body[end : comment.start].strip() or "\n\n" in body[end : comment.start]
        ):
            continue
        before = [s for s in sentences if s.end <= comment.start + 1]
        target = before[-1] if before else sentences[0]
        target.quotes.extend(comment.quotes)


def _child_line(lines: list[str], parent: int, key: str) -> int:
    pattern = re.compile(rf"^\s+{re.escape(key)}\s*:")
    for index in range(parent, min(len(lines), parent + 40)):
        if pattern.match(lines[index]):
            return index + 1
    return parent


def _file_lines(path: Path) -> list[str]:
    key = ("lines", str(path), path.stat().st_mtime_ns)
    return remembered(key, lambda: path.read_text(encoding="utf-8").splitlines())


def shortened(text: str, limit: int = 160) -> str:
    """A sentence as a message quotes it: whole, or cut at `limit` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
