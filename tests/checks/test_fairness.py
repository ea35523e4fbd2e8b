"""Fair questions (trafikist.checks.fairness, trafikist.course.variants): a strict build
refuses a question whose answer a value it does not give decides, whose order item matches
several steps, whose answer stands in the section above it, whose `given` the prompt does not
say, or whose number has no precision, each at its line, in-process (support.building). The
same edits fail the end-to-end builds under each engine (tests/authoring/test_failing_builds.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import copy_project, edit
from support.authoring import DIVE_01, DIVE_02, MODULE
from support.building import core_build
from support.fairness import UNFAIR, WHO_CLAIMS, Unfair
from trafikist.course.variants import DURATION_FACTORS, TIME_SHIFTS, Variable, variables


@pytest.mark.build
@pytest.mark.parametrize("case", UNFAIR, ids=[case.name for case in UNFAIR])
def test_an_unfair_question_fails_the_strict_build_at_its_line(
    tmp_path: Path, case: Unfair
) -> None:
    project = copy_project(tmp_path / "project")
    line = case.apply(project)
    message = core_build(project)
    assert message is not None, "the build succeeded"
    assert len(message.splitlines()) == 1, message
    assert message.startswith(f"{case.page.as_posix()}:{line}: "), message
    assert re.search(case.pattern, message), message
    assert case.fix in message and message.count(" Fix: ") == 1, message
    # A lenient build warns instead.
    assert core_build(project, strict=False) is None


@pytest.mark.build
def test_the_same_question_given_its_work_time_builds(tmp_path: Path) -> None:
    """The hidden work time, said in the prompt and in `given`: the answer then holds in every
    variant of the other values."""
    project = copy_project(tmp_path / "project")
    fair = WHO_CLAIMS.replace(
        "each with a beat of 5 s]{choice: scenario}",
        "each with a beat of 5 s, and j1 takes 1 s of work]{choice: scenario}",
    ).replace('promote-rings: ""}', 'promote-rings: "", j1.work: ""}')
    edit(
        project / DIVE_02,
        "/// check | Both consumers of the worked example run with",
        fair + "/// check | Both consumers of the worked example run with",
    )
    assert core_build(project) is None


# -- one variant kind at a time: the course's own questions, one value taken out of `given` --

# Asked after the section that teaches the batch, before the worked example states the run.
BATCH_ANCHOR = "and a due lane row refuses the whole promote call.\n///\n"
THIRD_DUE = """
/// check | In the worked example, [j1, j2 and j3 all fall due at 2.5 s, and the Pump ticks every 1 s from 0 s]{choice: scenario}. At what time, in seconds to the nearest tenth, does j3 reach pending?
id: the-third-due-job
kind: number
run: worked example
given: [j1.due, j2.due, j3.due, pump.interval, pump.start]
ask: time j3 reaches pending
answer: 4.0
unit: s
# seed: "EMQ.PROMOTE moves the due flat members of schedule to pending, at most batch of them"
why: EMQ.PROMOTE moves at most batch of the due members a call, so j3 waits for a later tick.
///
"""  # noqa: E501

KINDS = [
    # (kind, page, the `given` before and after, the value the message names)
    ("a due time", DIVE_01, "given: [j1.due, j2.due, j3.due, pump.interval, pump.start]",
     "given: [j1.due, j2.due, pump.interval, pump.start]", r"j3's due time \(2\.5 s\)"),
    ("a start", MODULE, "given: [j1.due, consumer.start]", "given: [j1.due]",
     r"consumer's start \(0 s, the model's default\)"),
    ("a beat", DIVE_02,
     'given: {consumer-a.start: "", consumer-b.start: "", consumer-b.beat: "", j1.due: "", j2.due: "", pump.start: "the Pump promotes both in one call then", pump.interval: "the Pump promotes both in one call then"}',  # noqa: E501
     'given: {consumer-a.start: "", consumer-b.start: "", j1.due: "", j2.due: "", pump.start: "the Pump promotes both in one call then", pump.interval: "the Pump promotes both in one call then"}',  # noqa: E501
     r"consumer-b's beat \(5 s\)"),
    ("an interval", DIVE_01,
     "given: [consumer.beat, consumer.start, j6.due, stalled.interval, stalled.start, backoff, reaper]",  # noqa: E501
     "given: [consumer.beat, consumer.start, j6.due, stalled.start, backoff, reaper]",
     r"stalled's interval \(5 s\)"),
    ("a batch", DIVE_01, BATCH_ANCHOR, BATCH_ANCHOR + THIRD_DUE, r"pump's batch \(2\)"),
    ("a model's default", DIVE_02, 'pump.start: "at 2 s a promotion of j1 rings", j1.work: "",',
     'pump.start: "at 2 s a promotion of j1 rings",',
     r"j1's work time \(0\.2 s, the model's default\)"),
]  # fmt: skip


@pytest.mark.build
@pytest.mark.parametrize("kind", KINDS, ids=[kind[0] for kind in KINDS])
def test_each_kind_of_value_is_varied(
    tmp_path: Path, kind: tuple[str, Path, str, str, str]
) -> None:
    _, page, before, after, named = kind
    project = copy_project(tmp_path / "project")
    edit(project / page, before, after)
    message = core_build(project)
    assert message is not None, "the build succeeded"
    assert re.search(rf"depends on {named}, which the prompt does not give: with ", message), (
        message
    )


def test_the_ranges_of_each_kind() -> None:
    """Times shift by 0.3 and 0.7 s each way (not below 0), durations halve, double and
    quadruple, counts step by one (not below their least); a scenario's default is varied
    as the model's value, and a question's own changes are not."""
    data = {
        "name": "x",
        "duration": 5,
        "jobs": [{"id": "j1", "state": "schedule", "due": 0.5}],
        "processes": [{"kind": "Pump", "name": "pump", "batch": 2}],
        "faults": [{"client": "pump", "after": "@promote", "restart": 1}],
    }
    found = {variable.name: variable for variable in variables(data, {"batch": 3})}
    assert found["j1.due"].values() == [round(0.5 + s, 3) for s in TIME_SHIFTS if 0.5 + s >= 0]
    assert found["j1.work"].chosen and found["j1.work"].values() == [
        round(0.2 * f, 3) for f in DURATION_FACTORS
    ]
    assert found["pump.start"].values() == [0.3, 0.7] and found["pump.start"].chosen
    assert found["pump.interval"].values() == [0.5, 2.0, 4.0]
    assert "pump.batch" not in found  # the question sets it
    assert "pump.after" not in found  # a crash point named by its command is a step
    assert found["pump.restart"].values() == [0.5, 2.0, 4.0]
    assert found["scenario.max_attempts"].values() == [2, 4]
    assert Variable("s", "limit", ("x",), 1, False).values() == [2]


@pytest.mark.build
def test_the_list_of_the_models_choices_names_every_choice_the_page_marks(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    line = edit(
        project / DIVE_01,
        "[a woken consumer that runs its whole beat again]{choice: wake-beat}, ",
        "",
    )
    message = core_build(project)
    assert message is not None and message.startswith(f"{DIVE_01.as_posix()}:{line}: "), message
    assert (
        "the worked example's list of the model's own choices leaves out wake-beat, which "
        "the page marks." in message
    ), message
