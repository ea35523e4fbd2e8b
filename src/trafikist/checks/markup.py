"""No raw HTML from the sources (trafikist.course.markup has the policy).

Every text an author writes that reaches a page as Markdown is read here, at its line: a page's
prose (block captions and labels included; code, comments and marked spans' expressions left
out), its questions (the prompt and every text of the YAML below it the reader sees), its
front matter's summary and "Up next" texts, and its module's duties' rows. Each of these is
refused at its line:

- raw HTML (`<script>`, `<img onerror=…>`, `</dd><dd>`): a tag never passes from the sources
  to a page;
- a link or image whose scheme could run a script (`[x](javascript:…)`, `data:`, `vbscript:`);
- an attribute list that adds an attribute an author may not give (`{ onclick="…" }`);
- in a YAML text, an HTML comment, which a text field would show as it is.

A title, a label and course.yml's texts are text, not Markdown: they are escaped wherever
they are shown, `<b>` as the characters. The renderer escapes what still gets through a
Markdown field (course.markup.SafeHtmlExtension); this check says where to fix the source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import CourseError, Problem
from trafikist.checks.inputs import PageCheck, proving_nothing, source_file
from trafikist.course import markup, questions, syntax
from trafikist.course.markdown import generated_html
from trafikist.course.sources import load_yaml_node, read_front_matter, texts_in
from trafikist.course.structure import Kind, Page

GUIDE = 'docs/authoring.md, "No raw HTML"'
CODE_SPAN = re.compile(r"(`+)[^\n]*?\1")


def check_markup(page: Page) -> list[Problem]:
    """The first piece of raw HTML, unsafe link or unsafe attribute of each line of the page's
    texts (`<script>…</script>` is one slip)."""
    found: dict[tuple[str, int | None], Problem] = {}
    for file, line_at, text, field in _texts(page):
        for problem in _problems(file, line_at, text, field):
            found.setdefault((str(problem.file), problem.line), problem)
    for problem in _generated_marks(page):
        found.setdefault((str(problem.file), problem.line), problem)
    return list(found.values())


def _generated_marks(page: Page) -> Iterator[Problem]:
    """The renderer's own mark in the page's body, outside code: the engine would pass
    what follows it as it is (trafikist.course.markdown.generated_html). A source comment
    is prose's, so the prose the other rules read has none of them left."""
    if page.kind is Kind.HOME or page.source is None or "trafikist:generated" not in page.body:
        return
    scanned = syntax.scan(page.body)
    body = CODE_SPAN.sub(lambda match: syntax.blank(match.group()), page.body)  # code is shown
    fenced = {
        line
        for fence in scanned.fences
        for line in range(fence.first_line - 1, fence.first_line + len(fence.code) + 1)
    }
    for match in generated_html.MARK.finditer(body):
        line = scanned.line_of(match.start())
        if line not in fenced:
            yield Problem(
                page.source,
                page.body_line + line,
                f"'{match.group()}' is the renderer's own mark around the HTML it writes, and "
                "a page's text may not hold it: what follows would reach the page as it is.",
                f"Delete the comment ({GUIDE}).",
            )


CHECK = PageCheck(
    "markup",
    proving_nothing(lambda page, facts: check_markup(page)),
    facts=(),
    files=(source_file,),
)


type LineAt = Callable[[int], int]  # the line of an offset in a text


# The fields of a question the reader never sees: what the build runs or checks.
UNSHOWN_QUESTION_FIELDS = frozenset(
    {"id", "run", "with", "crash", "kind", "expect", "claim", "seed", "ask", "step"}
)
# The fields of a page's front matter and of a duty that are Markdown; the others (a title,
# a label, an id) are text, escaped wherever they are shown.
FRONT_MATTER_MARKDOWN = frozenset({"summary", "next", "previous", "after"})
DUTY_MARKDOWN = ("library", "trafikey", "between_calls")


def _texts(page: Page) -> Iterator[tuple[Path, LineAt, str, bool]]:
    """(file, line of an offset, text, is a YAML field) for each Markdown text of the page."""
    assert page.source is not None
    if page.kind is Kind.HOME:
        return  # course.yml's titles and summaries are text: escaped where they are shown
    source = page.source
    scanned = syntax.scan(page.body)
    yield source, lambda offset: page.body_line + scanned.line_of(offset), scanned.prose, False
    for start, prompt, body, body_start in questions.blocks(page.body):
        yield source, _always(page.body_line + start), prompt, True
        try:
            _, node = load_yaml_node(body, source, page.body_line + body_start)
        except CourseError:
            continue  # a question that does not read is trafikist.checks.questions' to name
        for line, key, text in texts_in(node, page.body_line + body_start):
            if key not in UNSHOWN_QUESTION_FIELDS:
                yield source, _always(line), text, True
    for line, key, text in texts_in(read_front_matter(source).node, 2):
        if key in FRONT_MATTER_MARKDOWN:
            yield source, _always(line), text, True
    for duty in page.duties:
        for name in DUTY_MARKDOWN:
            yield duty.source, _always(duty.line_of(name)), duty.text(name), True


def _always(line: int) -> LineAt:
    return lambda _offset: line


@dataclass(frozen=True)
class _Rule:
    """One rule of the policy: where a text breaks it (offset, the words naming what was found),
    and the problem's what and fix, in which `{found}` is those words and `{guide}` the guide."""

    find: Callable[[str], Iterator[tuple[int, str]]]
    what: str
    fix: str
    fields_only: bool = False  # a YAML text field only: Markdown prose passes it


def _raw_html(text: str) -> Iterator[tuple[int, str]]:
    for match in markup.raw_html(text):
        tag = match.group()
        yield match.start(), tag if len(tag) <= 40 else tag[:39] + "…"


def _unsafe_schemes(text: str) -> Iterator[tuple[int, str]]:
    for offset, url in markup.unsafe_links(text):
        yield offset, markup.scheme_of(url)


def _html_comments(text: str) -> Iterator[tuple[int, str]]:
    for match in markup.HTML_COMMENT.finditer(text):
        yield match.start(), match.group()


# In the order a line's first problem is chosen (check_markup).
RULES = (
    _Rule(
        _raw_html,
        "'{found}' is raw HTML, which the course never passes from its sources to a page.",
        "Write Markdown; to show the characters themselves, put them in a code span "
        "(`{found}`) ({guide}).",
    ),
    _Rule(
        _unsafe_schemes,
        "the link's target '{found}:…' would run a script or load data in the reader's browser.",
        "Link to a course page by its id (id:PAGE) or to an http(s) address ({guide}).",
    ),
    _Rule(
        markup.unsafe_attributes,
        "the attribute list gives the attribute '{found}', which an author may not set: it "
        "would reach the page as HTML.",
        "Keep to #id, .class and data-toc-label inside {{ … }} ({guide}).",
    ),
    _Rule(
        _html_comments,
        "this text holds an HTML comment '{found}', which a text field shows as it is.",
        "Delete it; a source comment goes above the field, as '# seed: \"…\"' ({guide}).",
        fields_only=True,
    ),
)


def _problems(file: Path, line_at: LineAt, text: str, field: bool) -> Iterator[Problem]:
    if "<" not in text and "](" not in text and "]:" not in text and "=" not in text:
        return  # most texts: nothing to look at
    shown = _as_read(text)
    for rule in RULES:
        if rule.fields_only and not field:
            continue
        for offset, found in rule.find(shown):
            yield Problem(
                file,
                line_at(offset),
                rule.what.format(found=found, guide=GUIDE),
                rule.fix.format(found=found, guide=GUIDE),
            )


def _as_read(text: str) -> str:
    """The text as Markdown reads it for HTML, offsets kept: code spans and every marked
    span's expression (`]{valkey: … "<consumer>"}`: the build's, never shown) blanked."""
    shown = CODE_SPAN.sub(lambda match: syntax.blank(match.group()), text)
    stack = [(0, shown)]
    while stack:
        base, part = stack.pop()
        for span in syntax.find_spans(part):
            close, end = base + span.text_start + len(span.text), base + span.end
            shown = shown[:close] + syntax.blank(shown[close:end]) + shown[end:]
            stack.append((base + span.text_start, span.text))
    return shown
