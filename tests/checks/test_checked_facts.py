"""The build refuses an unchecked fact: each mutation of a checked sentence, and each dead link,
ends the build with one `FILE:LINE: what. Fix: how.` line, in-process (support.building).
tests/authoring/test_failing_builds.py builds one of them end to end under each engine, and the
guide page's dead link, which only the engines check."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import copy_project, edit, line_of
from support.authoring import DIVE_01, DUTIES, MODULE
from support.building import assert_core_build_fails


@dataclass(frozen=True)
class Case:
    name: str
    change: Callable[[Path], int]  # breaks a checked sentence; returns the line it names
    pattern: str
    file: Path
    also: tuple[str, ...] = ()  # more the message holds
    shows: str = ""  # a pattern of the trace step the message shows


def the_promote_duty_claims_200(project: Path) -> int:
    edit(
        project / DUTIES,
        "[100]{claim: default promote-members-per-call}",
        "[200]{claim: default promote-members-per-call}",
    )
    return line_of(project / DUTIES, "    library: >-")  # the promote duty's: the first


def the_promote_duty_says_200(project: Path) -> int:
    # The seed's own row, with its number changed and no claim: the number is what fails.
    edit(project / DUTIES, "[100]{claim: default promote-members-per-call}", "200")
    return line_of(project / DUTIES, "    library: >-")


def between_calls_without_its_expectation(project: Path) -> int:
    edit(
        project / DUTIES,
        "      [between calls, a due job stays in schedule]{expect: j1 in schedule from 2.5 to 3;\n"
        "      j1 reaches pending at 3}",
        "      between calls, a due job stays in schedule",
    )
    return line_of(project / DUTIES, "between calls, a due job stays in schedule") - 1


CASES = [
    Case(
        "a between-calls sentence the model contradicts",
        # The promote duty says a due job stays in schedule between calls: j1 (due at 2.5 s)
        # stays there until the beat at about 3 s. Claim 3.5 s, which the run refutes.
        lambda p: (
            edit(
                p / DUTIES,
                "{expect: j1 in schedule from 2.5 to 3;",
                "{expect: j1 in schedule from 2.5 to 3.5;",
            )
            - 1
        ),
        r"the expectation 'j1 in schedule from 2\.5 to 3\.5' does not hold on the model's run "
        r"of modules/04-blocking-timers-and-the-bus/scenarios/promote-due\.yml",
        DUTIES,  # the field's first line, `between_calls: >-`
        ('Sentence: "between calls, a due job stays in schedule"',),
        r"j1 is in pending \(trace step \d+, t=3\.01\d s: consumer EVALSHA @promote",
    ),
    Case(
        "a between-calls sentence with no expectation",
        between_calls_without_its_expectation,
        r"the duty 'promote' says what happens between calls with no expectation",
        DUTIES,
    ),
    Case(
        "a worked-example sentence the model contradicts",
        lambda p: edit(
            p / DIVE_01,
            "{expect: j6 in active from 1.5 to 4.9;",
            "{expect: j6 in active from 1.5 to 5.5;",
        ),
        r"the expectation 'j6 in active from 1\.5 to 5\.5' does not hold",
        DIVE_01,
        ("at 5.001 s j6 is in pending", 'Sentence: "The lease of j6 expires at 1.5 s;'),
    ),
    Case(
        "a default in a duty changed inside its claim",
        the_promote_duty_claims_200,
        r"the claim 'default promote-members-per-call' does not hold: the page says 200, the "
        r"manifest gives 100",
        DUTIES,
    ),
    Case(
        "a default in a duty changed with no claim",
        the_promote_duty_says_200,
        r"an unchecked fact: '200' stands beside .*EchoMQ\.Jobs\.promote/3.* in \"`EchoMQ\.Jobs",
        DUTIES,
    ),
    Case(
        "a number beside a library name in a dive",
        lambda p: edit(
            p / DIVE_01,
            "- `EchoMQ.Pump` promotes on a tick of its own.",
            "- `EchoMQ.Pump` promotes on a tick of its own, every 2 seconds.",
        ),
        r"an unchecked fact: '2' stands beside `?EchoMQ\.Pump",
        DIVE_01,
    ),
    Case(
        "a sentence about trafikey with no source",
        lambda p: edit(
            p / DIVE_01,
            "No production caller opens such a connection today.\n\n",
            "No production caller opens such a connection today. trafikey plans a timer.\n\n",
        ),
        r'an unsourced sentence about trafikey: "trafikey plans a timer\."',
        DIVE_01,
    ),
    Case(
        "a source comment that misquotes the seed",
        lambda p: edit(
            p / DIVE_01,
            '<!-- seed: "EchoMQ.Pump promotes on a tick of its own, and EchoMQ.Stalled can run',
            '<!-- seed: "EchoMQ.Pump promotes on a tick of its own, and EchoMQ.Stalled will run',
        ),
        r'the source comment cites "EchoMQ\.Pump promotes .* will run',
        DIVE_01,
    ),
    Case(
        "a claim checked against the model's own choice",
        # The snapshot's gate list is the model's own choice: a claim against it checks nothing.
        lambda p: edit(
            p / DIVE_01,
            "Its load gate's list of host functions names no timer function, and no call in the "
            "crate's source arms one.",
            "[Its load gate's list of host functions names no timer function.]{claim: gate "
            "lacks timer}",
        ),
        r"the claim 'gate lacks timer' checks nothing: the entries of the gate list "
        r"\(registry/src/gate\.rs:\d+\) are the model's own choice",
        DIVE_01,
    ),
    Case(
        "a dead relative link",
        lambda p: edit(
            p / MODULE,
            "Take the dives in order: time first, then waiting, then the bus.",
            "Take the dives in order: time first, then waiting, then the bus, or "
            "[the old page](../03-old/index.md).",
        ),
        r"the link '\.\./03-old/index\.md' is a relative path",
        MODULE,
    ),
    Case(
        "a dead anchor",
        lambda p: edit(
            p / MODULE,
            "The [first dive](id:who-moves-time-today) follows",
            "The [first dive](id:who-moves-time-today#the-timer) follows",
        ),
        r"the link 'id:who-moves-time-today#the-timer' names the anchor '#the-timer', which the "
        r"page 'who-moves-time-today' does not have",
        MODULE,
        ("#the-clock-each-call-reads",),  # the anchors it has, to pick from
    ),
    Case(
        "a dead anchor on the same page",
        lambda p: edit(
            p / DIVE_01,
            "The next dive, [The blocking claim]",
            "As [the clock](#the-clock) shows, the next dive, [The blocking claim]",
        ),
        r"the link '#the-clock' names the anchor '#the-clock'",
        DIVE_01,
    ),
]


@pytest.mark.build
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_an_unchecked_fact_ends_the_build_with_one_line(case: Case, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    line = case.change(project)
    message = assert_core_build_fails(project, case.pattern, file=case.file, line=line)
    for text in case.also:
        assert text in message, message
    if case.shows:
        assert re.search(case.shows, message), message
