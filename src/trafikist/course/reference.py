"""The command reference: one generated page per registry row, in the manner of Valkey's.

Each page shows the summary, arity, flags, ACL categories, key spec, complexity, since and the
handler, marks every value that is the model's own choice, and lists the lessons that quote or
name the verb ("Quoted in").
"""

from __future__ import annotations

import html
import textwrap
from typing import Any

from trafikist.course import syntax
from trafikist.course.markdown.registry_inline import CHOICE_ANCHOR, CHOICE_MARK, CHOICES_PAGE_ID
from trafikist.course.markup import code_span, markdown_text
from trafikist.course.structure import Book, Course, Kind, Page, Status
from trafikist.model.choices import MODEL_CHOICES
from trafikist.registry import rust
from trafikist.registry.rows import Registry, Row, command_page_id, command_slug

REFERENCE_BOOK_ID = "reference"
CHOSEN_NOTE = "the model's own choice, not trafikey's"
# A chosen value in a row's table: the same marker as every other value the model chose.
CHOSEN_MARK = "[not trafikey's]{choice: bus-verb-rows}"
NOT_GIVEN = "none (`None`)"


def reference_book() -> Book:
    return Book(
        id=REFERENCE_BOOK_ID,
        title="Command reference",
        # seed: "The job core, natively — the previous module: the thirteen verbs, two of which
        # this module follows." trafikey registers more rows than the snapshot holds.
        summary=(
            "One page per row of the registry snapshot the build checks the course against: "
            "the two rows module 04 quotes and the three bus verbs it names, with arity, flags, "
            "ACL categories, key spec and handler, and the lessons that quote each. trafikey "
            "registers more: module 03's job core alone has thirteen verbs."
        ),
        folder="reference",
        numbered=False,
    )


def reference_pages(course: Course, registry: Registry, with_choices: bool = False) -> list[Page]:
    """One page per row; with `with_choices`, also the page of the model's own choices, which
    every choice marker on a page links to."""
    book = reference_book()
    quoted_in = verbs_by_page(course, registry)
    pages: list[Page] = []
    for row in registry.rows.values():
        lessons = [page for page, verbs in quoted_in if row.name in verbs]
        summary = _summary(row)
        page = Page(
            id=command_page_id(row.name),
            kind=Kind.REFERENCE,
            title=row.name,
            summary=summary,
            status=Status.BUILT,
            book=book,
            source=None,
            body=command_body(row, lessons, registry),
            path=f"reference/{command_slug(row.name)}",
            meta={"command": row.name, "chosen": sorted(row.chosen_fields)},
        )
        book.pages.append(page)
        pages.append(page)
    if with_choices:
        page = choices_page(book, registry)
        book.pages.append(page)
        pages.append(page)
    return pages


def choices_page(book: Book, registry: Registry) -> Page:
    """Every value the model chose where the course gives none, each with the marker and the
    anchor (`#choice-ID`) that the pages' choice markers link to."""
    items = "\n".join(
        f'<dt id="{CHOICE_ANCHOR.format(id=choice.id)}"><span class="tk-choice__mark">'
        f"{CHOICE_MARK}</span> {html.escape(choice.id)}</dt>\n<dd>{html.escape(choice.text)}</dd>"
        for choice in MODEL_CHOICES
    )
    chosen_rows = [row.name for row in registry.rows.values() if row.chosen_fields]
    snapshot = (
        f"In the registry snapshot, the rows of {', '.join(chosen_rows)} hold values the model "
        "chose for every field the course does not give; each command's page marks them."
        if chosen_rows
        else ""
    )
    body = "\n".join(
        [
            "The course states what trafikey and EchoMQ do. The model needs values the course "
            "does not give: key names, argument orders, intervals, the jobs of a scenario. It "
            f"chooses each one, and every page that shows such a value marks it *{CHOICE_MARK}*, "
            "with a link here.",
            "",
            snapshot,
            "",
            f'<dl class="tk-choices-list">\n{items}\n</dl>',
            "",
        ]
    )
    return Page(
        id=CHOICES_PAGE_ID,
        kind=Kind.REFERENCE,
        title="The model's own choices",
        summary="Every value the model chose where the course gives none.",
        status=Status.BUILT,
        book=book,
        source=None,
        body=body,
        path="reference/model-choices",
        meta={},
    )


def verbs_by_page(course: Course, registry: Registry) -> list[tuple[Page, set[str]]]:
    """Each author-written page and the registered verbs it quotes or names, in course order."""
    found: list[tuple[Page, set[str]]] = []
    for page in course.pages.values():
        if page.source is None:
            continue
        scanned = syntax.scan(page.body)
        texts = [scanned.prose, str(page.meta.get("summary", ""))]
        texts += [
            text
            for duty in page.duties
            for text in (duty.label, duty.library, duty.trafikey, duty.between_calls)
        ]
        verbs = {match.group() for text in texts for match in syntax.VERB.finditer(text)}
        for fence in scanned.fences:
            if fence.excerpt is not None and fence.excerpt.quotes_registry:
                parsed = rust.rows_in_fragment("\n".join(fence.code), page.source, 1)
                verbs |= {row.name for row in parsed.rows}
        verbs &= set(registry.rows)
        if verbs:
            found.append((page, verbs))
    return found


def command_body(row: Row, lessons: list[Page], registry: Registry) -> str:
    """The page of a row. The registry's values are data, not Markdown: each is shown as the
    text it is (course.markup), a summary with `<` or `*` in it included."""
    lines = [f"{code_span(row.name)}: {markdown_text(_summary(row))}", ""]
    lines += ["| Field | Value |", "|---|---|"]
    for label, value, fields in _facts(row):
        chosen = [field for field in fields if field in row.chosen_fields]
        note = f" — {CHOSEN_MARK}" if chosen else ""
        lines.append(f"| {label} | {value}{note} |")
    lines.append("")
    if row.chosen_fields:
        lines += [
            "The published course names this command and says what it does, but does not give "
            "the values marked *model's choice*: the snapshot holds a value the model chose, and "
            "no lesson quotes it as trafikey's.",
            "",
        ]
    lines += ["## Quoted in", ""]
    if lessons:
        lines += [f"- [{markdown_text(page.title)}](id:{page.id})" for page in lessons]
    else:
        lines.append("No lesson quotes or names this command yet.")
    lines += ["", "## The row", ""]
    where = "the snapshot" if registry.is_snapshot else "trafikey"
    lines += [
        f"As {where} holds it, in `{row.file.name}` line {row.line}"
        + (" (the comment lists the fields the model chose):" if row.chosen_fields else ":"),
        "",
        "```rust",
        *(textwrap.dedent(row.text) + ";").splitlines(),
        "```",
        "",
    ]
    return "\n".join(lines)


def _facts(row: Row) -> list[tuple[str, str, tuple[str, ...]]]:
    def code(value: Any) -> str:
        return NOT_GIVEN if value is None else code_span(value)

    def listed(values: list[str]) -> str:
        return ", ".join(code_span(value) for value in values) or "none"

    arity = row.arity
    arity_text = (
        NOT_GIVEN
        if arity is None
        else f"{arity} ({'at least ' + str(-arity) if arity < 0 else 'exactly ' + str(arity)} "
        "arguments, the command name included)"
    )
    return [
        ("Summary", _summary_text(row), ("summary",)),
        ("Arity", arity_text, ("arity",)),
        ("Flags", listed(row.flags), ("flags",)),
        ("ACL categories", listed([f"@{category}" for category in row.acl]), ("acl",)),
        ("Key spec", code(row.value("keys")), ("keys",)),
        ("Complexity", code(row.value("complexity")), ("complexity",)),
        ("Since", code(row.value("since")), ("since",)),
        ("Family", code(row.value("family")), ("family",)),
        ("Capabilities", listed(row.caps), ("caps",)),
        ("Handler", code(row.handler), ("handler", "key")),
    ]


def _summary_text(row: Row) -> str:
    summary = row.value("summary")
    return NOT_GIVEN if summary is None else markdown_text(str(summary)).replace("|", "\\|")


def _summary(row: Row) -> str:
    summary = row.value("summary")
    if summary is None:
        return "A command of trafikey's registry."
    return f"{summary} ({CHOSEN_NOTE})" if "summary" in row.chosen_fields else str(summary)
