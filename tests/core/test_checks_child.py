"""The course's checks in a child process (trafikist.core.checks_child): its verdict reaches the
build, a build that stops first ends it, and it is a new interpreter, not a fork of the
build's (threaded) process."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

from support import children
from trafikist.base.errors import CourseError, Problem
from trafikist.core.checks_child import ChecksInChild

PROBLEM = Problem(Path("modules/x.md"), 3, "the claim does not hold.", "Correct it.")


def test_checks_in_a_child_give_their_verdict_to_the_build() -> None:
    assert ChecksInChild.start(children.warn, PROBLEM).verdict() == [PROBLEM]
    with pytest.raises(CourseError) as raised:
        ChecksInChild.start(children.refuse, PROBLEM).verdict()
    assert str(raised.value) == "modules/x.md:3: the claim does not hold. Fix: Correct it."
    # What a check prints goes to the build's standard error, never into the verdict.
    assert ChecksInChild.start(children.chatter, PROBLEM).verdict() == [PROBLEM]


def test_a_build_that_stops_first_ends_the_child() -> None:
    slow = ChecksInChild.start(children.sleep, 60)
    started = time.monotonic()
    slow.cancel()  # the build stopped first: the child ends now, not in a minute
    assert time.monotonic() - started < 10
    assert slow.process.returncode is not None


def test_the_child_is_started_without_fork_while_a_thread_holds_a_lock() -> None:
    """A fork here could deadlock in the child, and Python warns of it ("… is multi-threaded,
    use of fork() may lead to deadlocks in the child"): no such warning, and the verdict."""
    thread, stop = children.hold_a_lock_in_a_thread()
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert ChecksInChild.start(children.warn, PROBLEM).verdict() == [PROBLEM]
    finally:
        stop.set()
        thread.join()
    assert [str(warning.message) for warning in seen if "fork" in str(warning.message)] == []


def test_a_child_that_dies_is_a_failure_not_a_hang() -> None:
    with pytest.raises(RuntimeError, match=r"ended without a verdict \(status 3\)"):
        ChecksInChild.start(children.die, 3).verdict()
    with pytest.raises(RuntimeError, match="the course's checks failed: SystemExit"):
        ChecksInChild.start(children.exit_politely).verdict()
