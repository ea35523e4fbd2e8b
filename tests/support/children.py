"""Checks for the checks' child (trafikist.core.checks_child) to run: module-level functions,
which the child imports by name."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from trafikist.base.errors import CourseError, Problem
from trafikist.base.reading import reading


def warn(problem: Problem) -> list[Problem]:
    return [problem]


def refuse(problem: Problem) -> list[Problem]:
    raise CourseError(problem)


def sleep(seconds: float) -> list[Problem]:
    time.sleep(seconds)
    return []


def chatter(problem: Problem) -> list[Problem]:
    """Prints, as a check's library might, and returns a warning."""
    print("a line on standard output")
    return [problem]


def die(status: int) -> list[Problem]:
    os._exit(status)


def exit_politely() -> list[Problem]:
    sys.exit(2)


def break_while_reading(page: Path) -> list[Problem]:
    with reading(page):
        raise KeyError("expect")


def hold_a_lock_in_a_thread() -> tuple[threading.Thread, threading.Event]:
    """A thread that holds a lock until told to stop: the state in which a fork can deadlock."""
    lock, stop = threading.Lock(), threading.Event()

    def hold() -> None:
        with lock:
            stop.wait(30)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    return thread, stop
