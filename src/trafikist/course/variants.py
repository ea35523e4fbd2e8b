"""The values a run's answers could depend on, and the runs with each changed, one at a time.

A question is fair when its answer follows from what the reader was told. The reader is told
the values the question gives (its `given`: trafikist.course.questions); every other value of
the run is one the answer must not depend on. This module lists those values (a scenario's
times, starts, work times, beats, intervals, batches, limits, counts, and the model's default
for each one the scenario leaves out) and makes the runs with each changed within its range:

    a time (a job's due time, a process's start, a client's or a bus's command time):
        0.7 s and 0.3 s earlier (not below 0), 0.3 s and 0.7 s later
    a duration (a work time, a beat, an interval, a block, a minimum idle time, a lease,
        a restart delay): half, twice and four times as long
    a count (a batch, a limit, a threshold, attempts, a crash point): one fewer (not below
        its least value) and one more

docs/authoring.md ("Fair questions") documents the same ranges. A variant the model refuses
(a value its schema does not take) is left out. Each variant's trace is made once per build,
in a memo beside the one every run shares (trafikist.course.runs).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trafikist.base.errors import CourseError
from trafikist.base.memo import BoundedCache
from trafikist.course.runs import load_scenario, model_signature
from trafikist.model import ScenarioError, Simulation
from trafikist.model import choices as model_choices
from trafikist.model.commands import table_signature
from trafikist.model.scenario import PROCESS_OPTIONS
from trafikist.model.trace import Trace
from trafikist.model_view.live import canonical_json

TIME_SHIFTS = (-0.7, -0.3, 0.3, 0.7)
DURATION_FACTORS = (0.5, 2.0, 4.0)
# The variants of the runs a page's questions ask about (a few dozen values each, shared by
# the questions on the same run).
VARIANTS: BoundedCache[tuple[str, ...], Trace | None] = BoundedCache(512)
COUNT_STEPS = (-1, 1)

# What each field is, and how a message names it.
LABELS = {
    "due": "due time",
    "start": "start",
    "at": "time",
    "work": "work time",
    "beat": "beat",
    "interval": "interval",
    "block": "block time",
    "min_idle": "minimum idle time",
    "lease": "lease",
    "restart": "restart delay",
    "batch": "batch",
    "limit": "limit",
    "count": "count",
    "max_attempts": "max attempts",
    "max_failures": "failure threshold",
    "failure_ttl": "failure TTL",
    "pool": "pool",
    "attempts": "attempts",
    "fail": "failing deliveries",
    "after": "crash point",
}
TIMES = ("due", "start", "at")
DURATIONS = ("work", "beat", "interval", "block", "min_idle", "lease", "restart", "failure_ttl")
# The least value a count takes (the schema's).
COUNT_LEAST = {"attempts": 0, "max_attempts": 0, "fail": 0, "after": 0}


@dataclass(frozen=True)
class Variable:
    """One value of a run that an answer could depend on."""

    subject: str  # a job, a message, a process or "scenario"
    field: str  # due, work, beat, batch … (at[N] for a client's Nth command)
    path: tuple[str | int, ...]  # where it is in the scenario's mapping
    value: float
    chosen: bool  # not written in the scenario: the model's default (or the seed's)

    @property
    def name(self) -> str:
        """How a question's `given` names it: `j1.work`, `consumer.beat`, `reader.after`."""
        return f"{self.subject}.{self.field}"

    @property
    def kind(self) -> str:
        base = self.field.split("[")[0]
        if base in TIMES:
            return "time"
        return "duration" if base in DURATIONS else "count"

    def shown(self, value: float | None = None) -> str:
        number = self.value if value is None else value
        unit = " s" if self.kind in ("time", "duration") else ""
        return f"{number:g}{unit}"

    def described(self) -> str:
        """`j1's work time (0.2 s, the model's default)`."""
        label = LABELS.get(self.field.split("[")[0], self.field)
        whose = "the scenario's" if self.subject == "scenario" else f"{self.subject}'s"
        default = ", the model's default" if self.chosen else ""
        return f"{whose} {label} ({self.shown()}{default})"

    def values(self) -> list[float]:
        """The variant values of its range, other than its own."""
        if self.kind == "time":
            found = [round(self.value + shift, 3) for shift in TIME_SHIFTS]
            return [value for value in found if value >= 0]
        if self.kind == "duration":
            found = [round(self.value * factor, 3) for factor in DURATION_FACTORS]
            return [value for value in found if value != self.value and value > 0]
        least = COUNT_LEAST.get(self.field, 1)
        return [self.value + step for step in COUNT_STEPS if self.value + step >= least]


def variables(data: dict[str, Any], overrides: dict[str, Any] | None) -> list[Variable]:
    """Every value of the scenario `data` that an answer could depend on, but those the
    question's own changes (`with:`, `crash:`) set."""
    found: list[Variable] = []
    set_by_question = set(overrides or {})
    for name, default in (
        ("lease", model_choices.LEASE_SECONDS),
        ("max_attempts", model_choices.MAX_ATTEMPTS),
    ):
        found.append(
            _variable("scenario", name, (name,), data.get(name, default), name not in data)
        )
    for index, job in enumerate(_list(data.get("jobs"))):
        subject = str(job.get("id", f"job {index + 1}"))
        if "due" in job:
            found.append(_variable(subject, "due", ("jobs", index, "due"), job["due"], False))
        work = job.get("work", model_choices.WORK_SECONDS)
        found.append(_variable(subject, "work", ("jobs", index, "work"), work, "work" not in job))
        if "attempts" in job:
            where: tuple[str | int, ...] = ("jobs", index, "attempts")
            found.append(_variable(subject, "attempts", where, job["attempts"], False))
    for s, stream in enumerate(_list(data.get("streams"))):
        for m, message in enumerate(_list(stream.get("messages"))):
            if "fail" in message:
                where = ("streams", s, "messages", m, "fail")
                found.append(
                    _variable(str(message.get("id")), "fail", where, message["fail"], False)
                )
    for p, process in enumerate(_list(data.get("processes"))):
        subject = str(process.get("name", f"process {p + 1}"))
        options = PROCESS_OPTIONS.get(str(process.get("kind")), {})
        for option, (check, default) in options.items():
            if check not in ("seconds", "seconds0", "count", "count0", "pool"):
                continue
            if option in set_by_question or (option not in process and default is None):
                continue
            value = process.get(option, default)
            where = ("processes", p, option)
            found.append(_variable(subject, option, where, value, option not in process))
        for kind in ("commands", "ops"):
            for c, command in enumerate(_list(process.get(kind))):
                if "at" in command:
                    where = ("processes", p, kind, c, "at")
                    found.append(_variable(subject, f"at[{c + 1}]", where, command["at"], False))
    if "faults" not in set_by_question:
        for f, fault in enumerate(_list(data.get("faults"))):
            subject = str(fault.get("client"))
            for option in ("after", "restart"):
                # A crash point named by its command ("XADD") is a step, not a number to vary.
                if option in fault and not isinstance(fault[option], str):
                    path = ("faults", f, option)
                    found.append(_variable(subject, option, path, fault[option], False))
    return [variable for variable in found if variable.values()]


def _variable(
    subject: str, field: str, path: tuple[str | int, ...], value: Any, chosen: bool
) -> Variable:
    number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0
    return Variable(subject, field, path, number, chosen)


def _list(value: Any) -> list[dict[str, Any]]:
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


def changed(data: dict[str, Any], variable: Variable, value: float) -> dict[str, Any]:
    """A copy of the scenario with one value changed (an integer stays an integer)."""
    result = copy.deepcopy(data)
    target: Any = result
    for part in variable.path[:-1]:
        target = target[part]
    number: float | int = int(value) if variable.kind == "count" else value
    target[variable.path[-1]] = number
    return result


# The scenarios the variants change, parsed once a build by file and bytes (never changed in
# place: `changed` copies).
SCENARIOS: BoundedCache[tuple[str, str], dict[str, Any]] = BoundedCache(64)


class VariantRuns:
    """The variants of one run (a scenario file and a question's changes), made once per build:
    the file is read, hashed and parsed, and the model's signature taken, once for all of a
    question's variants, not once a variant (a parse and a walk of the model's files cost more
    than many a run)."""

    def __init__(self, path: Path, overrides: dict[str, Any] | None) -> None:
        self.path, self.overrides = path, overrides
        try:
            self.content: str | None = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            self.content = None

    @functools.cached_property
    def key(self) -> tuple[str, ...]:
        """What each variant's run is made from, but the variant: the file's bytes, the
        question's changes, the model's code and its command table."""
        return (
            self.content or "",
            json.dumps(self.overrides, sort_keys=True),
            model_signature(),
            table_signature(),
        )

    def scenario(self) -> dict[str, Any]:
        """The scenario file, parsed once a build (CourseError when it cannot be read); not to
        be changed in place."""
        return SCENARIOS.get_or_make(
            (str(self.path), self.content or ""), lambda: load_scenario(self.path)
        )

    def variables(self) -> list[Variable]:
        """The values of the run an answer could depend on (`variables`)."""
        return variables(self.scenario(), self.overrides)

    def trace(self, variable: Variable, value: float) -> Trace | None:
        """The model's run with `variable` set to `value`, or None when the model refuses the
        value (or the file cannot be read)."""
        if self.content is None:
            return None
        key = (*self.key, json.dumps([list(variable.path), value]))
        return VARIANTS.get_or_make(key, lambda: self._run(variable, value))

    def _run(self, variable: Variable, value: float) -> Trace | None:
        try:
            data = changed(self.scenario(), variable, value)
            raw = Simulation(data, self.overrides, source=str(self.path)).run()
        except (ScenarioError, CourseError):
            return None
        trace: Trace = json.loads(canonical_json(raw))  # as every run's (course.runs)
        return trace


def variant_trace(
    path: Path, overrides: dict[str, Any] | None, variable: Variable, value: float
) -> Trace | None:
    """The model's run of the scenario at `path` with `variable` set to `value`, or None when
    the model refuses the value. Made once per build (the variants' memo)."""
    return VariantRuns(path, overrides).trace(variable, value)
