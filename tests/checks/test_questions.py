"""Check yourself, the build's side (trafikist.checks.questions): every question's key and every
explanation is proved on the model, and each way a question can be wrong ends the build with
one `FILE:LINE: what. Fix: how.` line, in-process (support.building). The end-to-end builds of
three of them, under each engine, are in tests/authoring/test_failing_builds.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import copy_project
from support.authoring import DIVE_01, MODULE
from support.building import core_build
from support.questions import COUNT, ORDER, WHERE, add_questions


@dataclass(frozen=True)
class Case:
    name: str
    block: str  # a question as an author with a slip writes it
    pattern: str
    offset: int  # the line the message names, from the block's `/// check` line
    fix: str = "Fix: "
    page: Path = MODULE


def swapped(block: str, old: str, new: str) -> str:
    assert old in block, old
    return block.replace(old, new, 1)


J1_ITEM = "  - text: j1 reaches pending.\n    step: j1 reaches pending\n"

CASES = [
    Case(
        "the marked answer changed to a wrong one",
        swapped(swapped(WHERE, "    right: true\n", ""), "    expect: j1 in pending at 2.8\n",
                "    right: true\n    expect: j1 in pending at 2.8\n"),
        r"the marked answer of 'where-is-j1', \"In pending, since it fell due\.\", does not "
        r"hold: in the model's run, j1 stays in schedule, where the run began it, until the "
        r"call at 3\.013 s: consumer sent @promote q:schedule q:pending q:wake 100; it replied "
        r"1; the option \"Still in schedule\.\" holds",
        4,
        "Fix: Mark the option the run",
    ),
    Case(
        "a wrong option made true",
        swapped(WHERE, "expect: j1 in pending at 2.8", "expect: j1 in schedule at 2.7"),
        r"the option \"In pending, since it fell due\.\" of 'where-is-j1' holds too, so the "
        r"question has two answers",
        4,
    ),
    Case(
        "a scenario that does not exist",
        swapped(WHERE, "run: duty promote", "run: scenario promote-overdue"),
        r"the question's run 'scenario promote-overdue' names no run of this page",
        2,
        "Fix: Name a run of this page",
    ),
    Case(
        "a duty that does not exist",
        swapped(WHERE, "run: duty promote", "run: duty promte"),
        r"the question's run 'duty promte' names no run of this page",
        2,
    ),
    Case(
        "a run that cannot be read",
        swapped(WHERE, "run: duty promote", "run: the promote duty"),
        r"the question's run 'the promote duty' cannot be read",
        2,
        "Fix: Write `run: duty ID`",
    ),
    Case(
        "a misspelt field",
        swapped(WHERE, "options:", "optons:"),
        r"the question 'where-is-j1' has no field 'optons'\. Did you mean 'options'\?",
        0,
    ),
    Case(
        "a misspelt option field",
        swapped(WHERE, "    why: Between calls", "    wyh: Between calls"),
        r"the question 'where-is-j1' has no field 'options\[1\]\.wyh'\. Did you mean 'why'\?",
        7,
    ),
    Case(
        "an expectation that cannot be read",
        swapped(WHERE, "expect: j1 in pending at 2.8", "expect: j1 is pending at 2.8"),
        r"the expectation 'j1 is pending at 2\.8' cannot be read",
        4,
    ),
    Case(
        "a time outside the run",
        swapped(WHERE, "expect: j1 in pending at 2.8", "expect: j1 in pending at 28"),
        r"the expectation 'j1 in pending at 28' cannot be run: the time 28 s lies outside the "
        r"run, which lasts 10 s",
        4,
    ),
    Case(
        "an unknown job",
        swapped(WHERE, "expect: j1 in pending at 2.8", "expect: j9 in pending at 2.8"),
        r"the expectation 'j9 in pending at 2\.8' cannot be run: the run has no job 'j9' "
        r"\(jobs: j1, j2, j3, j4\)",
        4,
    ),
    Case(
        "two answers marked",
        swapped(WHERE, "    expect: j1 in pending at 2.8\n",
                "    right: true\n    expect: j1 in pending at 2.8\n"),
        r"the question 'where-is-j1' has 2 options, 2 of them marked right",
        3,
        "Fix: Give it two options or more, one of them `right: true`.",
    ),
    Case(
        "an option with no why",
        swapped(WHERE, "    why: A job does not move when it falls due; a call moves it.\n", ""),
        r"option 1 of 'where-is-j1' needs a text, a why and one way to check it",
        4,
    ),
    Case(
        "a number the model does not give",
        swapped(COUNT, "answer: 13", "answer: 12"),
        r"the answer 12 of 'promote-count' is not the run's: the model gives 13 \(13 at the "
        r"precision written\)",
        5,
    ),
    Case(
        "a mistake that is the answer",
        swapped(COUNT, "  - value: 10", "  - value: 13"),
        r"the mistake 13 of 'promote-count' is the run's answer or has no why\. Fix: ",
        8,
    ),
    Case(
        "a count of a command never sent",
        swapped(COUNT, "ask: count consumer sends @promote",
                "ask: time consumer sends EMQ.PROMOTE"),
        r"consumer never sends EMQ\.PROMOTE in the run",
        4,
    ),
    Case(
        "an order the run does not take",
        swapped(swapped(ORDER, J1_ITEM, ""), "why:", J1_ITEM + "why:"),
        r"the items of 'promote-order' are not in the run's order: \"j1 reaches pending\.\" "
        r"happens at 3\.013 s, before \"j4 reaches pending\.\" at 7\.643 s",
        11,
        "Fix: List the items in the order the run takes them.",
    ),
    Case(
        "a step that never happens",
        swapped(ORDER, "step: j4 reaches pending", "step: j4 reaches dead"),
        r"the step 'j4 reaches dead' never happens in the run",
        11,
    ),
    Case(
        "a kind that does not exist",
        swapped(COUNT, "kind: number", "kind: numeric"),
        r"the question's kind 'numeric' is not one of choice, number, order",
        2,
    ),
    Case(
        "a question with no prompt",
        swapped(WHERE, "/// check | Where is j1 at 2.8 s, after it fell due at 2.5 s? The "
                "consumer starts at 0 s.", "/// check"),
        r"the question has no prompt",
        0,
        "Fix: Write it after the bar",
    ),
    Case(
        "a dive asks about a duty of its module",
        WHERE,
        "",
        0,
        page=DIVE_01,
    ),
]  # fmt: skip


@pytest.mark.build
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_wrong_question_is_refused(tmp_path: Path, case: Case) -> None:
    project = copy_project(tmp_path / "project")
    [line] = add_questions(project, case.block, page=case.page)
    # Not strict: the course's unsourced sentences are the provenance checks' (a question's
    # key is checked in every build).
    message = core_build(project, strict=False)
    if not case.pattern:
        assert message is None, message
        return
    assert message is not None, "the build succeeded"
    assert len(message.splitlines()) == 1, message
    assert re.search(case.pattern, message), message
    assert message.startswith(f"{case.page.as_posix()}:{line + case.offset}: "), message
    assert case.fix in message and message.count(" Fix: ") == 1, message


@pytest.mark.build
def test_two_questions_with_one_id(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    first, second = add_questions(
        project, WHERE, swapped(COUNT, "id: promote-count", "id: where-is-j1")
    )
    message = core_build(project, strict=False)
    # (The count question is unfair too, which a strict build says on the same line.)
    assert message is not None
    assert message.startswith(
        f"{MODULE.as_posix()}:{second}: the question id 'where-is-j1' is already used at "
        f"module.md:{first}."
    ), message
    assert message.endswith(
        "Fix: Give the question an `id:` of its own; the reader's record keeps answers by it."
    ), message


@pytest.mark.build
def test_good_questions_build(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    add_questions(project, WHERE, COUNT, ORDER)
    assert core_build(project, strict=False) is None
