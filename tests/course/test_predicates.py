"""Expectations, the executable form of a sentence about a run: each form read, run on the
model's real trace, holding where the run agrees and failing with the trace step where it does
not. The scenarios are the tests' own (tests/course/data/predicates/: copies of three of module
04's, frozen here), so an edit of the course never breaks a test of the parser; the course's own
expectations are checked by the build (tests/content)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trafikist.course.predicates import (
    ExpectationSyntaxError,
    Verdict,
    evaluate,
    parse,
)
from trafikist.course.runs import scenario_trace

SCENARIOS = Path(__file__).with_name("data") / "predicates"


def check(text: str, scenario: Path) -> Verdict:
    return evaluate(parse(text), lambda overrides: scenario_trace(scenario, overrides))


PROMOTE = SCENARIOS / "promote-due.yml"  # j1 due at 2.5 s; a consumer's beat every second
DIVE_01 = SCENARIOS / "pump-on-wire-6.yml"  # a Pump and a Consumer on wire 6: refused reaper
COUNT = SCENARIOS / "count-failures.yml"


@pytest.mark.parametrize(
    ("text", "scenario"),
    [
        ("j1 in schedule at 2.9", PROMOTE),
        ("j1 in schedule from 2.5 to 3", PROMOTE),
        ("j1 reaches pending at 3", PROMOTE),
        ("j1 in done at end", PROMOTE),
        ("j5 never reaches pending", DIVE_01),
        ("pump sends EMQ.PROMOTE at 3, 4", DIVE_01),
        ("pump sends EMQ.PROMOTE 12 times", DIVE_01),
        ("consumer sends nothing", DIVE_01),
        ("pump EMQ.PROMOTE at 3 replies 2", DIVE_01),
        ("pump EMQ.PROMOTE errors from 8", DIVE_01),
        ("consumer refused at 0, 1, 3, 7", DIVE_01),
        ("consumer sends @promote at 3", PROMOTE),
        ("failures events:failures:1700000000000-0 ttl 60 at 1", COUNT),
        ("failures events:failures:1700000000000-0 count 1 at 1", COUNT),
        (
            "given reader crashes after 3: failures events:failures:1700000000000-0 ttl -1 at end",
            COUNT,
        ),
        ("pel events workers 1 at 1", COUNT),
        ("stream events length 1 at end", COUNT),
    ],
)
def test_what_the_run_shows_holds(text: str, scenario: Path) -> None:
    verdict = check(text, scenario)
    assert verdict.holds, verdict.why


@pytest.mark.parametrize(
    ("text", "scenario", "why"),
    [
        (
            "j1 in schedule at 3.1",
            PROMOTE,
            r"at 3.1 s j1 is in active \(trace step \d+, t=3.01\d s: consumer EVALSHA @claim",
        ),
        ("j1 in schedule from 2.5 to 3.5", PROMOTE, r"j1 is in pending"),
        ("j1 reaches pending at 2", PROMOTE, r"j1 moves into pending at 3.01\d s"),
        ("j1 never reaches pending", PROMOTE, r"j1 moves into pending at 3.01\d s"),
        ("j9 in schedule at 1", PROMOTE, r"the run has no job 'j9' \(jobs: j1, j2, j3, j4\)"),
        (
            "pump sends EMQ.PROMOTE at 2.5",
            DIVE_01,
            r"pump sends EMQ.PROMOTE at 0, 1.001, .* not at 2.5 s",
        ),
        ("pump sends EMQ.PROMOTE 3 times", DIVE_01, r"sends EMQ.PROMOTE 12 times"),
        ("pump sends nothing", DIVE_01, r"pump sends a command \(trace step 1"),
        (
            "pump EMQ.PROMOTE at 4 replies 2",
            DIVE_01,
            r"the reply differs \(trace step \d+, t=4.004 s: .* → 1\)",
        ),
        (
            "pump EMQ.PROMOTE errors from 7",
            DIVE_01,
            r"a reply is not an error \(trace step \d+, t=7.007",
        ),
        ("consumer refused at 2", DIVE_01, r"'refused' events are at 0, 1, 3, 7 s, not at 2 s"),
        ("nobody sends nothing", DIVE_01, r"the run has no client 'nobody'"),
        (
            "failures events:failures:1700000000000-0 ttl -1 at end",
            COUNT,
            r"at 10 s the ttl of .* is \d\d \(",
        ),
        (
            "given reader crashes after 3: stream events length 2 at end",
            COUNT,
            r"the length of events is 1",
        ),
    ],
)
def test_what_the_run_does_not_show_fails_with_the_step(
    text: str, scenario: Path, why: str
) -> None:
    verdict = check(text, scenario)
    assert not verdict.holds
    assert re.search(why, verdict.why), verdict.why


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("j1 sits in schedule at 2", "cannot read 'j1 sits in schedule at 2'"),
        ("j1 in limbo at 2", "'limbo' is not a place"),
        ("pump exploded at 2", "'exploded' is not an event of a run"),
    ],
)
def test_an_expectation_that_cannot_be_read(text: str, error: str) -> None:
    with pytest.raises(ExpectationSyntaxError, match=error):
        parse(text)


def test_a_stated_time_matches_to_its_own_precision() -> None:
    # "3" is any time that rounds to 3 s; "3.0" is one that rounds to 3.0 s.
    assert check("j1 reaches pending at 3", PROMOTE).holds  # at 3.012 s
    assert check("j1 reaches pending at 3.0", PROMOTE).holds
    assert not check("j1 reaches pending at 3.00", PROMOTE).holds


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("j1 in schedule at -5", r"the time -5 s lies outside the run, which lasts \d+ s"),
        ("j1 in schedule at 9999", "the time 9999 s lies outside the run"),
        ("j1 in schedule from 3 to 2.5", "the range from 3 to 2.5 s ends before it starts"),
        ("consumer sends EVALSHA at 1, 99999", "the time 99999 s lies outside the run"),
    ],
)
def test_a_time_outside_the_run_checks_nothing_and_does_not_hold(text: str, why: str) -> None:
    verdict = check(text, PROMOTE)
    assert not verdict.holds and re.search(why, verdict.why), verdict


@pytest.mark.parametrize(
    ("text", "time", "client"),
    [
        ("j1 in done at 3.5", 3.215, "consumer"),  # the step that moved it there
        ("j1 reaches pending at 3", 3.013, "consumer"),  # the promotion
        ("j1 in schedule at 3.5", 3.215, "consumer"),  # does not hold: where it is instead
    ],
)
def test_a_verdict_names_the_step_that_decides_it(text: str, time: float, client: str) -> None:
    verdict = check(text, PROMOTE)
    trace = scenario_trace(PROMOTE)
    assert verdict.step is not None
    step = trace["steps"][verdict.step]
    assert abs(step["t"] - time) < 0.001 and step["client"] == client, step


def _decides(text: str, scenario: Path) -> tuple[Verdict, dict[str, object] | None]:
    verdict = check(text, scenario)
    trace = scenario_trace(scenario)
    return verdict, (trace["steps"][verdict.step] if verdict.step is not None else None)


@pytest.mark.parametrize(
    ("text", "scenario", "holds", "time", "command"),
    [
        # A place at a time: the step that last moved the job, not the last step before it.
        ("j1 in pending from 2.8 to 4", PROMOTE, False, None, None),  # j1 never left schedule
        ("j2 in schedule at 4.5", PROMOTE, True, None, None),
        ("j1 in done at 9", PROMOTE, True, 3.215, "ZREM"),
        # A count: the send that reached it, or the one that went past it.
        ("consumer sends @promote 3 times", PROMOTE, False, 3.013, "EVALSHA"),  # the 4th
        ("consumer sends @promote 13 times", PROMOTE, True, 9.857, "EVALSHA"),
        ("consumer sends @promote 14 times", PROMOTE, False, 9.857, "EVALSHA"),  # the last
        # A time: the send nearest to the time stated.
        ("consumer sends @promote at 2.5", PROMOTE, False, 2.009, "EVALSHA"),
        ("j1 reaches pending at 5", PROMOTE, False, 3.013, "EVALSHA"),
        # A length, a pending count, a TTL: the step that last changed it.
        ("stream events length 1 at end", COUNT, True, None, None),  # as the run began
        ("pel events workers 1 at 5", COUNT, True, 0.001, "XREADGROUP"),
        ("pel events workers 1 at end", COUNT, False, 6.411, "XACK"),
        ("failures events:failures:1700000000000-0 ttl 60 at 5", COUNT, False, 0.203, "EXPIRE"),
        ("failures events:failures:1700000000000-0 count 1 at 5", COUNT, True, 0.202, "INCR"),
    ],
)
def test_the_deciding_step_is_the_one_that_made_the_predicate_true_or_false(
    text: str, scenario: Path, holds: bool, time: float | None, command: str | None
) -> None:
    verdict, step = _decides(text, scenario)
    assert verdict.holds is holds, verdict.why
    if time is None:
        assert step is None, step
    else:
        assert step is not None and abs(float(step["t"]) - time) < 0.0005, step  # type: ignore[arg-type]
        assert step["argv"][0] == command, step  # type: ignore[index]


def test_an_event_that_is_not_there_is_decided_by_the_nearest_one() -> None:
    verdict = check("consumer refused at 6", DIVE_01)  # refused at 0, 1, 3, 7
    assert not verdict.holds and verdict.event is not None and verdict.event["t"] == 7
