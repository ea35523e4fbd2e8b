"""Unfair questions, one per rule of "Fair questions" (trafikist.checks.fairness): each an edit
of the course's own pages (their sentences keep their sources, so only the rule under test
fails a strict build), the line it names, and the message. The in-process table
(tests/checks/test_fairness.py) and the end-to-end builds under each engine
(tests/authoring/test_failing_builds.py) share them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from support import edit
from support.authoring import DIVE_02, MODULE, MODULE_04

DIVE_03 = MODULE_04 / "dives/03-the-native-bus.md"


@dataclass(frozen=True)
class Unfair:
    name: str
    page: Path
    old: str  # what the edit replaces (its first occurrence) …
    new: str  # … by what
    offset: int  # the line named, from the edit's first line
    pattern: str  # the message, a regular expression
    fix: str

    def apply(self, project: Path) -> int:
        """Edit the copy of the project; the line the message names."""
        return edit(project / self.page, self.old, self.new) + self.offset


# The issue's own example: who claims j2 in dive 02's worked example turns on j1's work time,
# which this prompt does not give (with 4 s, consumer-b claims it at its timeout).
WHO_CLAIMS = """\
/// check | [j1 and j2 fall due at 2 s, and the Pump promotes both in one call then; consumer-a parks from 0 s and consumer-b from 0.1 s, each with a beat of 5 s]{choice: scenario}, and [the promotion rings once]{choice: promote-rings}. Who claims j2?
id: who-claims-the-second-job
run: worked example
given: {consumer-a.start: "", consumer-b.start: "", consumer-a.beat: "", consumer-b.beat: "", j1.due: "", j2.due: "", pump.start: "the Pump promotes both in one call then", pump.interval: "the Pump promotes both in one call then", promote-rings: ""}
options:
  - text: consumer-b, woken by the same ring.
    expect: consumer-b @claim replies j2
    why: "[The ring is one push, which wakes one parked consumer]{choice: promote-rings}."
  - text: consumer-a, after it finishes j1.
    right: true
    expect: consumer-a @claim replies j2
    why: "The ring woke consumer-a, and [its drain claims the next job when it finishes j1]{choice: claim}."
///

"""  # noqa: E501 - a prompt is one line

# Copied from the sentence above it: the flag of the sweeps, asked right after the sentence
# that names it.
THE_FLAG = """\

/// check | Which command flag does EMQ.PROMOTE carry in trafikey's registration table?
id: the-flag-of-a-sweep
options:
  - text: "`blocking`: the call waits until a job falls due."
    claim: EMQ.PROMOTE.flags has blocking
    # seed: "no row of its registration table carries the blocking command flag"
    why: "[No row of trafikey's registration table carries the blocking command flag]{claim: *.flags lacks blocking}."
  - text: "`write`: it is an ordinary write command."
    right: true
    claim: EMQ.PROMOTE.flags = write
    # seed: "The two commands that move time-driven work are ordinary write commands with a bound on how much one call does:"
    why: The two commands that move time-driven work are ordinary write commands, each with a bound on how much one call does.
///
"""  # noqa: E501

WORKED_EXAMPLE_TAKEAWAY = "only shortens the wait.\n"
TAKEAWAY_01 = "A module command runs when a client sends it and ends with its reply; between calls, nothing in the module runs.\n///\n"  # noqa: E501
GIVEN_FIX = "Fix: Give it in the prompt and in `given:`"

UNFAIR = [
    Unfair(
        "a hidden work time",
        DIVE_02,
        "/// check | Both consumers of the worked example run with",
        WHO_CLAIMS + "/// check | Both consumers of the worked example run with",
        0,
        r"the answer of 'who-claims-the-second-job' depends on j1's work time \(1 s\), which the "
        r"prompt does not give: with 4 s, \"consumer-b, woken by the same ring\.\" holds instead\.",
        GIVEN_FIX,
    ),
    Unfair(
        "a repeated order item",
        DIVE_03,
        "  - text: the first park appends m1 to the dead-letter stream\n",
        "  - text: the park appends m1 to the dead-letter stream\n",
        0,
        r"the item \"the park appends m1 to the dead-letter stream\" matches 2 steps of the run "
        r"\(at 2\.411, 4\.617 s\), and does not say which it means\.",
        "Fix: Say which time the item means",
    ),
    Unfair(
        "an answer copied from the prose above",
        MODULE,
        TAKEAWAY_01,
        TAKEAWAY_01 + THE_FLAG,
        3,
        r"the answer of 'the-flag-of-a-sweep' stands in the section above it, so copying is "
        r"enough: \"The two commands that move time-driven work are ordinary write commands "
        r"with a bound on how much one call does:\"\.",
        "Fix: Ask what the section teaches but does not say",
    ),
    Unfair(
        "a given the prompt does not state",
        MODULE,
        "[a beat of 2 s instead of one, its first beat at 0 s, and j1 falls due at 2.5 s]",
        "[a beat of 2 s instead of one, and j1 falls due at 2.5 s]",
        5,
        r"the question 'a-longer-beat' gives consumer's start \(0 s, the model's default\), and "
        r"neither its prompt nor the page above it says it \(consumer with 0 s\)\.",
        "Fix: Say it in the prompt, or in `given:` write the prompt's words for it",
    ),
    Unfair(
        "a number question without its precision",
        MODULE,
        "At what time, in seconds to the nearest tenth, does a beat move j1 to pending?",
        "At what time does a beat move j1 to pending?",
        0,
        r"the number question 'a-longer-beat' does not say its unit and precision in its "
        r"prompt: a time gives its unit and its precision \(nearest tenth or one decimal\)\.",
        'Fix: Say both, as "At what time, in seconds to the nearest tenth',
    ),
]
