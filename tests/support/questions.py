"""Questions of "Check yourself" for the tests of the questions' layers: a few blocks of each
kind, about module 04's promote duty, added to a copy of the project (the course's own
questions change with its content; these stay put)."""

from __future__ import annotations

from pathlib import Path

from support import copy_project
from support.authoring import MODULE

# j1 falls due at 2.5 s; the consumer's beat (1 s) promotes it at about 3 s. j2 and j3 fall due
# at 5 s and move in one call; j4 at 7.2 s. The consumer sends @promote 13 times: on each beat,
# and again after each call that moved a job.
WHERE = """\
/// check | Where is j1 at 2.8 s, after it fell due at 2.5 s? The consumer starts at 0 s.
id: where-is-j1
run: duty promote
options:
  - text: In pending, since it fell due.
    expect: j1 in pending at 2.8
    why: A job does not move when it falls due; a call moves it.
  - text: Still in schedule.
    right: true
    expect: j1 in schedule at 2.8
    why: Between calls a due job stays in schedule.
given: [j1.due, consumer.start, consumer.beat]
///
"""

COUNT = """\
/// check | How many times does the consumer send the promote script in the run?
id: promote-count
kind: number
run: duty promote
ask: count consumer sends @promote
answer: 13
why: The consumer sends it on each beat, and again after each call that moved a job.
mistakes:
  - value: 10
    why: There are ten beats, and a call that moved a job is followed by another at once.
///
"""

WHEN = """\
/// check | When does j1 reach pending?
id: promote-when
kind: number
run: duty promote
ask: time j1 reaches pending
answer: 3.0
unit: s
why: The first beat after its due time moves it.
mistakes:
  - value: 2.5
    why: Falling due moves nothing.
///
"""

ORDER = """\
/// check | Put these moves in the order the run makes them.
id: promote-order
kind: order
run: duty promote
items:
  - text: j1 reaches pending.
    step: j1 reaches pending
  - text: j2 reaches pending.
    step: j2 reaches pending
  - text: j3 reaches pending.
    step: j3 reaches pending
  - text: j4 reaches pending.
    step: j4 reaches pending
why: Each moves at the first beat after it falls due.
///
"""

CRASH = """\
/// check | The consumer stops after its fourth command. Does j1 reach pending?
id: promote-crash
run: duty promote
crash: consumer after 4
options:
  - text: Yes, at its due time.
    expect: j1 reaches pending at 2.5
    why: Nothing moves a job when it falls due.
  - text: No, it stays in schedule.
    right: true
    expect: j1 never reaches pending
    why: No client sends the sweep after the crash, and nothing else moves it.
///
"""

WIRE_6 = """\
/// check | On `wire: 6`, does the beat promote j1?
id: promote-wire-6
run: duty promote
with: {wire: 6}
options:
  - text: Yes, with EMQ.PROMOTE.
    expect: j1 reaches pending at 3
    why: The beat sends EMQ.PROMOTE only when it does not run the reaper.
  - text: No, j1 stays in schedule.
    right: true
    expect: j1 never reaches pending
    why: The beat runs the reaper, which is refused, and sends no promote.
///
"""

QUESTIONS = (WHERE, COUNT, WHEN, ORDER, CRASH, WIRE_6)
IDS = (
    "where-is-j1",
    "promote-count",
    "promote-when",
    "promote-order",
    "promote-crash",
    "promote-wire-6",
)


def add_questions(project: Path, *blocks: str, page: Path = MODULE) -> list[int]:
    """Add the blocks to a page of the project, before its section on the dives (a module) or
    at its end; returns each block's `/// check` line."""
    path = project / page
    text = path.read_text(encoding="utf-8")
    added = "\n".join(blocks) + "\n"
    marker = "## The dives"
    at = text.index(marker) if marker in text else len(text)
    if at == len(text) and not text.endswith("\n\n"):
        added = "\n" + added
    before = text[:at]
    path.write_text(before + added + "\n" + text[at:], encoding="utf-8")
    first = before.count("\n") + 1 + (1 if added.startswith("\n") else 0)
    lines, line = [], first
    for block in blocks:
        lines.append(line)
        line += block.count("\n") + 1
    return lines


def project_with_questions(destination: Path, *blocks: str) -> tuple[Path, list[int]]:
    project = copy_project(destination)
    return project, add_questions(project, *(blocks or QUESTIONS))
