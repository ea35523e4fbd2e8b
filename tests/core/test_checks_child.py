"""The course's checks in a child process (trafikist.core.checks_child): its verdict reaches the
build, a build that stops first ends it, and it is a fork only of a process that runs one
thread (a new interpreter otherwise), the same verdicts either way."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import children
from trafikist.base.errors import CourseError, Problem
from trafikist.core.checks_child import ChecksInChild

PROBLEM = Problem(Path("modules/x.md"), 3, "the claim does not hold.", "Correct it.")


@pytest.fixture
def threaded() -> Iterator[None]:
    """The build runs a second thread, which holds a lock: the state in which a fork can
    deadlock in the child."""
    thread, stop = children.hold_a_lock_in_a_thread()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def test_checks_in_a_child_give_their_verdict_to_the_build(threaded: None) -> None:
    child = ChecksInChild.start(children.warn, PROBLEM)
    assert not child.forked
    assert child.verdict() == [PROBLEM]
    with pytest.raises(CourseError) as raised:
        ChecksInChild.start(children.refuse, PROBLEM).verdict()
    assert str(raised.value) == "modules/x.md:3: the claim does not hold. Fix: Correct it."
    # What a check prints goes to the build's standard error, never into the verdict.
    assert ChecksInChild.start(children.chatter, PROBLEM).verdict() == [PROBLEM]


def test_a_build_that_stops_first_ends_the_child(threaded: None) -> None:
    slow = ChecksInChild.start(children.sleep, 60)
    started = time.monotonic()
    slow.cancel()  # the build stopped first: the child ends now, not in a minute
    assert time.monotonic() - started < 10
    assert slow.returncode is not None


def test_the_child_is_started_without_fork_while_a_thread_holds_a_lock() -> None:
    """A fork here could deadlock in the child, and Python warns of it ("… is multi-threaded,
    use of fork() may lead to deadlocks in the child"): no such warning, and the verdict."""
    thread, stop = children.hold_a_lock_in_a_thread()
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            child = ChecksInChild.start(children.warn, PROBLEM)
            assert child.verdict() == [PROBLEM]
    finally:
        stop.set()
        thread.join()
    assert not child.forked
    assert [str(warning.message) for warning in seen if "fork" in str(warning.message)] == []


def test_a_child_that_dies_is_a_failure_not_a_hang(threaded: None) -> None:
    with pytest.raises(RuntimeError, match=r"ended without a verdict \(status 3\)"):
        ChecksInChild.start(children.die, 3).verdict()
    with pytest.raises(RuntimeError, match="the course's checks failed: SystemExit"):
        ChecksInChild.start(children.exit_politely).verdict()


# The same cases in a process of one thread, as a build starts its checks: a fork, whose
# verdicts are the new interpreter's, and no warning of fork from Python.
SINGLE_THREADED = textwrap.dedent(
    """
    import time, warnings
    from pathlib import Path
    import pytest
    from support import children
    from trafikist.base.errors import CourseError, Problem
    from trafikist.core.checks_child import ChecksInChild, threads

    warnings.simplefilter("error")  # a fork of a threaded process would warn: an error here
    assert threads() == 1, threads()
    problem = Problem(Path("modules/x.md"), 3, "the claim does not hold.", "Correct it.")
    child = ChecksInChild.start(children.warn, problem)
    assert child.forked
    assert child.verdict() == [problem]
    with pytest.raises(CourseError) as raised:
        ChecksInChild.start(children.refuse, problem).verdict()
    assert str(raised.value) == "modules/x.md:3: the claim does not hold. Fix: Correct it."
    assert ChecksInChild.start(children.chatter, problem).verdict() == [problem]
    with pytest.raises(RuntimeError, match=r"ended without a verdict \\(status 3\\)"):
        ChecksInChild.start(children.die, 3).verdict()
    with pytest.raises(RuntimeError, match="the course's checks failed: SystemExit"):
        ChecksInChild.start(children.exit_politely).verdict()
    slow = ChecksInChild.start(children.sleep, 60)
    started = time.monotonic()
    slow.cancel()
    assert time.monotonic() - started < 10 and slow.returncode is not None
    page = Path("module.md")
    with pytest.raises(CourseError) as caught:
        ChecksInChild.start(children.break_while_reading, page).verdict()
    assert str(caught.value).startswith(
        "module.md: the build stopped on an unexpected KeyError ('expect') while reading"
    ), caught.value
    print("all held")
    """
)


def test_a_build_of_one_thread_forks_the_child_with_the_same_verdicts() -> None:
    result = subprocess.run(
        [sys.executable, "-P", "-c", SINGLE_THREADED],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "all held\n"
    # What a check prints went to standard error, as the build's.
    assert "a line on standard output" in result.stderr
