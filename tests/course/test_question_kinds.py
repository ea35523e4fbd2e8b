"""One kind of question, one unit (trafikist.course.questions): a toy kind, added here in one
place (its class, with its fields, its outcome on a run, its page context, its check and its
part of the template), is read from a page, checked by the build and written to the page with
the `data-kind` the grader's table of kinds is keyed by."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from bs4 import BeautifulSoup

from support import copy_project
from support.building import core_build
from support.questions import add_questions
from trafikist.base.errors import Problem
from trafikist.core.site import load_site
from trafikist.course.predicates import evaluate, parse
from trafikist.course.questions import (
    KINDS,
    PARTS,
    TEXT,
    FactCheck,
    Outcome,
    Question,
    QuestionKind,
    page_questions,
    register,
)
from trafikist.course.structure import Kind
from trafikist.model.trace import Trace


class YesOrNo(QuestionKind):
    """A toy: "yes or no?", its answer the truth of one expectation on the run."""

    name = "yes-or-no"
    fields = MappingProxyType({"expect": TEXT, "answer": TEXT, "why": TEXT})
    part = '<p class="tk-check__yes-or-no">{{ q.data.expect }}: yes or no?</p>'

    def outcome(self, question: Question, trace: Trace | None, result: Outcome) -> None:
        if trace is not None:
            verdict = evaluate(parse(str(question.data["expect"])), lambda overrides: trace)
            result.holds.append(verdict.holds)

    def page_context(
        self, question: Question, result: Outcome, steps: list[str], shared: str
    ) -> dict[str, Any]:
        answer = str(question.data["answer"])
        return {"key": {"answer": answer}, "answer": answer, "whys": [(answer, question.why)]}

    def check(self, question: Question, result: Outcome, facts: FactCheck) -> list[Problem]:
        said = question.data["answer"] == "yes"
        if result.holds and result.holds[0] != said:
            return [Problem(question.file, question.line, "the toy's answer is wrong.", "Fix it.")]
        return []


@pytest.fixture
def toy() -> Iterator[None]:
    register(YesOrNo())
    try:
        yield
    finally:
        KINDS.pop(YesOrNo.name)
        PARTS.pop(f"check/{YesOrNo.name}.html.j2")


def block(answer: str) -> str:
    return (
        "/// check | Is j1 in schedule at 2.8 s?\n"
        "id: a-toy\nkind: yes-or-no\nrun: duty promote\n"
        f'expect: j1 in schedule at 2.8\nanswer: "{answer}"\nwhy: Nothing moved it yet.\n///\n'
    )


@pytest.mark.build
def test_a_toy_kind_is_read_checked_and_written(tmp_path: Path, toy: None) -> None:
    project = copy_project(tmp_path / "project")
    add_questions(project, block("yes"))
    assert core_build(project, strict=False) is None
    site = load_site(project / "modules", base_dir=project, checks=False)
    module = next(page for page in site.pages() if page.kind is Kind.MODULE and page.number == 4)
    question = next(q for q in page_questions(module) if q.id == "a-toy")
    section = BeautifulSoup(site.renderer.question_html(question), "html.parser").section
    assert section["data-kind"] == "yes-or-no" and section["data-answer"] == "yes"
    assert section.select_one(".tk-check__yes-or-no").get_text() == (
        "j1 in schedule at 2.8: yes or no?"
    )


@pytest.mark.build
def test_a_toy_kinds_check_fails_the_build(tmp_path: Path, toy: None) -> None:
    project = copy_project(tmp_path / "project")
    [line] = add_questions(project, block("no"))
    message = core_build(project, strict=False)
    assert message is not None and f":{line}: the toy's answer is wrong. Fix: Fix it." in message
