"""The generated command reference: one page per row, with its facts and where it is quoted."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.registry import FIXTURE_COURSE, SNAPSHOT
from trafikist.course.loader import load_course
from trafikist.course.reference import reference_pages
from trafikist.course.structure import Kind, Status
from trafikist.registry import load_registry


@pytest.fixture(scope="module")
def pages() -> dict[str, object]:
    course = load_course(FIXTURE_COURSE)
    return {page.id: page for page in reference_pages(course, load_registry(SNAPSHOT))}


def test_one_page_per_row(pages) -> None:
    assert list(pages) == [
        "command-emq-promote",
        "command-emq-stalled-check",
        "command-emq-append",
        "command-emq-publish",
        "command-emq-failures-incr",
    ]
    page = pages["command-emq-stalled-check"]
    assert (page.kind, page.status, page.source, page.title, page.path) == (
        Kind.REFERENCE,
        Status.BUILT,
        None,
        "EMQ.STALLED.CHECK",
        "reference/emq-stalled-check",
    )
    assert page.book.id == "reference"
    assert page.book.title == "Command reference"
    assert page.book.numbered is False
    assert page.book.pages == list(pages.values())


def test_a_seed_row_shows_every_fact(pages) -> None:
    body = pages["command-emq-promote"].body
    for line in (
        "| Summary | Move due scheduled flat jobs to pending, bounded by batch "
        "(emq6.8 G8, @promote) |",
        "| Arity | 6 (exactly 6 arguments, the command name included) |",
        "| Flags | `write` |",
        "| ACL categories | `@write`, `@slow` |",
        "| Key spec | `EVAL_KEYS` |",
        "| Complexity | `O(M log N) for M due jobs` |",
        "| Since | `0.1.0` |",
        "| Handler | `crate::emq::scheduling::promote` |",
    ):
        assert line in body.splitlines()
    assert "model's own choice" not in body


def test_chosen_values_are_marked(pages) -> None:
    page = pages["command-emq-append"]
    assert page.summary.endswith("(the model's own choice, not trafikey's)")
    assert (
        "| Arity | -4 (at least 4 arguments, the command name included) — "
        "[not trafikey's]{choice: bus-verb-rows}" in page.body
    )
    # Each chosen value carries the choice marker, which links to the model's choices.
    assert page.body.count("[not trafikey's]{choice: bus-verb-rows}") == 10


def test_quoted_in_lists_every_lesson_that_quotes_or_names_the_verb(pages) -> None:
    assert "## Quoted in\n\n- [The sweeps](id:the-sweeps)\n\n" in pages["command-emq-promote"].body
    assert (
        "- [The sweeps](id:the-sweeps)\n- [The bus verbs](id:the-bus-verbs)\n"
        in pages["command-emq-append"].body
    )


def test_no_lesson_yet(tmp_path: Path) -> None:
    (tmp_path / "01-a").mkdir()
    (tmp_path / "course.yml").write_text(
        "title: T\nsummary: S\nbooks:\n  - {id: t, title: T, summary: S, numbered: true}\n"
    )
    (tmp_path / "01-a" / "module.md").write_text(
        "---\nid: a\ntitle: A\nsummary: S\nstatus: built\n---\nNo verbs.\n"
    )
    pages = reference_pages(load_course(tmp_path), load_registry(SNAPSHOT))
    assert "No lesson quotes or names this command yet." in pages[0].body
