"""Predicates on a run of the model: what a sentence (`{expect: …}`) or a question's option
(`/// check`) says the run shows, parsed and evaluated on its trace. Each verdict names the
trace step that decides it, whether the predicate holds or not: the checks quote it when a
sentence is wrong (trafikist.checks.expectations), a question shows it to the reader.

Times are seconds of the model's virtual clock. A time written with d decimals matches a step's
time when the two agree to d decimals (`3` matches 3.003, `5.1` matches 5.104); `end` is the
scenario's duration. PLACE is one of schedule, pending, active, dead or done.

    j1 in schedule at 2.9                 where a job sits at a moment
    j1 in schedule from 2.5 to 3          … at every moment of an interval
    j1 reaches pending at 3               a step moves it there at that moment
    j5 never reaches pending              no step moves it there
    j5 reaches pending                    … some step does, at any time
    pump sends EMQ.PROMOTE at 3, 4        a client's command (a script by its name: @promote)
    pump sends EMQ.PROMOTE 12 times
    consumer sends nothing                … or no command at all
    pump EMQ.PROMOTE at 3 replies 2       the reply (a number, nil, ok, error, or "text")
    consumer-b @claim replies j2          … of some call, at any time
    pump EMQ.PROMOTE errors from 8        every reply from that moment on is an error
    consumer refused at 0, 1, 3, 7        an event of the run: refused, backoff, wake, timeout,
                                          crash, restart, failed, message, lease-lost
    stream events:dead length 2 at end    the length of a stream
    pel events workers 1 at 5             the pending entries of a stream's group
    failures events:failures:1-1 ttl -1 at end    a failure count's TTL (or: count 2)
    failures events:failures:1-1 has a ttl at end  … any TTL (the key expires)

A predicate may start with a fault the run adds to the scenario, which holds for the predicates
after it in the same span: `given reader crashes after 3: failures events:failures:1-1 ttl -1 at
end` (`given C crashes after N restarts after S: …` restarts the client S seconds later).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NotRequired, TypedDict

from trafikist.model.trace import PLACES, Event, Reply, State, Step, Trace, jobs_in

EVENTS = (
    "refused",
    "backoff",
    "wake",
    "timeout",
    "crash",
    "restart",
    "failed",
    "message",
    "lease-lost",
)
FORMS = (
    "`JOB in PLACE at T`, `JOB in PLACE from T to T`, `JOB reaches PLACE at T`, "
    "`JOB never reaches PLACE`, `JOB reaches PLACE`, `CLIENT sends COMMAND at T, …`, "
    "`CLIENT sends COMMAND N times`, `CLIENT sends nothing`, `CLIENT COMMAND at T replies VALUE`, "
    "`CLIENT COMMAND replies VALUE`, `CLIENT COMMAND errors from T`, `CLIENT EVENT at T, …`, "
    "`stream KEY length N at T`, `pel KEY GROUP N at T`, `failures KEY ttl|count N at T`, "
    "`failures KEY has a ttl at T`; optionally after `given CLIENT crashes after N:`"
)

_NAME = r"[\w.:@{}-]+"
_TIME = r"(?:end|-?\d+(?:\.\d+)?)"
_TIMES = rf"{_TIME}(?:\s*,\s*{_TIME})*"
GIVEN = re.compile(
    rf"^given\s+(?P<client>{_NAME})\s+crashes\s+after\s+(?P<after>\d+)"
    rf"(?:\s+restarts\s+after\s+(?P<restart>{_TIME}))?\s*:\s*(?P<rest>.+)$"
)
_JOB, _CLIENT, _KEY = rf"(?P<job>{_NAME})", rf"(?P<client>{_NAME})", rf"(?P<key>{_NAME})"
_COMMAND = rf"(?P<command>{_NAME})"
FORM_PATTERNS = {
    "in_from": rf"{_JOB} in (?P<place>\w+) from (?P<a>{_TIME}) to (?P<b>{_TIME})",
    "in_at": rf"{_JOB} in (?P<place>\w+) at (?P<t>{_TIME})",
    "reaches": rf"{_JOB} reaches (?P<place>\w+) at (?P<t>{_TIME})",
    "never": rf"{_JOB} never reaches (?P<place>\w+)",
    "ever": rf"{_JOB} reaches (?P<place>\w+)",
    "sends_nothing": rf"{_CLIENT} sends nothing",
    "sends_count": rf"{_CLIENT} sends {_COMMAND} (?P<n>\d+) times?",
    "sends_at": rf"{_CLIENT} sends {_COMMAND} at (?P<times>{_TIMES})",
    "replies": rf"{_CLIENT} {_COMMAND} at (?P<t>{_TIME}) replies (?P<value>.+)",
    "replies_any": rf"{_CLIENT} {_COMMAND} replies (?P<value>.+)",
    "errors": rf"{_CLIENT} {_COMMAND} errors from (?P<t>{_TIME})",
    "event": rf"{_CLIENT} (?P<event>[a-z-]+) at (?P<times>{_TIMES})",
    "stream": rf"stream {_KEY} length (?P<n>\d+) at (?P<t>{_TIME})",
    "pel": rf"pel {_KEY} (?P<group>{_NAME}) (?P<n>\d+) at (?P<t>{_TIME})",
    "failures": rf"failures {_KEY} (?P<what>ttl|count) (?P<n>-?\d+) at (?P<t>{_TIME})",
    "expiring": rf"failures {_KEY} has a ttl at (?P<t>{_TIME})",
}
PATTERNS = tuple((form, re.compile(f"^{pattern}$")) for form, pattern in FORM_PATTERNS.items())


class ExpectationSyntaxError(ValueError):
    pass


class Fault(TypedDict):
    """A fault a run adds, as a scenario's `faults:` entry writes it: CLIENT stops right after
    its AFTER-th command (or the command AFTER names: XADD, EXPIRE 2), and comes back RESTART
    seconds later, or never."""

    client: str
    after: int | str
    restart: NotRequired[float]


@dataclass(frozen=True)
class Expectation:
    text: str  # the predicate as written
    form: str
    fields: dict[str, str]
    fault: Fault | None  # from `given …`: a fault the run adds

    @property
    def overrides(self) -> dict[str, Any] | None:
        return {"faults": [self.fault]} if self.fault else None


@dataclass(frozen=True)
class Verdict:
    holds: bool
    why: str = ""  # what the run shows instead, with the trace step
    # The step that MADE the predicate true or false (a trace step's index, or an event of the
    # run), the one place every reader takes it from (a question's deciding step, the evidence
    # of a sentence): for a place at a time, the step that last moved the job (None: the job is
    # where the run began it); for a count, the step that reached it (or went past it); for a
    # length, a TTL or a pending count, the step that last changed it; for a time, the step
    # (or event) at that time, or the nearest one when there is none there.
    step: int | None = None
    event: Event | None = None
    place: str | None = None  # for a place predicate: where the job is at the moment decided
    # The run cannot answer it (a time outside the run, a job or client it does not have): a
    # false sentence, and an option of a question that checks nothing.
    unrunnable: bool = False


def parse(text: str) -> Expectation:
    text = " ".join(text.split())
    fault: Fault | None = None
    given = GIVEN.match(text)
    body = text
    if given:
        fault = Fault(client=given["client"], after=int(given["after"]))
        if given["restart"]:
            fault["restart"] = float(given["restart"])
        body = given["rest"].strip()
    for form, pattern in PATTERNS:
        match = pattern.match(body)
        if match is None:
            continue
        fields = {name: value for name, value in match.groupdict().items() if value is not None}
        if "place" in fields and fields["place"] not in PLACES:
            raise ExpectationSyntaxError(
                f"'{fields['place']}' is not a place (one of {', '.join(PLACES)})."
            )
        if form == "event" and fields["event"] not in EVENTS:
            raise ExpectationSyntaxError(
                f"'{fields['event']}' is not an event of a run (one of {', '.join(EVENTS)})."
            )
        return Expectation(text, form, fields, fault)
    raise ExpectationSyntaxError(f"cannot read '{body}'.")


def evaluate(expectation: Expectation, run: Callable[[dict[str, Any] | None], Trace]) -> Verdict:
    """Check one expectation; `run(overrides)` gives the trace of the scenario it is about. A
    time outside the run, or a range that ends before it starts, checks nothing: it does not
    hold."""
    trace = run(expectation.overrides)
    read = _Run(trace)
    if (outside := _outside(read, expectation.fields)) is not None:
        return outside
    return _FORMS[expectation.form](read, expectation.fields)


def _outside(run: _Run, fields: dict[str, str]) -> Verdict | None:
    stated = [fields[name] for name in ("t", "a", "b") if name in fields]
    stated += _times(fields["times"]) if "times" in fields else []
    for text in stated:
        if text != "end" and not 0 <= float(text) <= run.duration:
            return Verdict(
                False,
                f"the time {text} s lies outside the run, which lasts {run.duration:g} s",
                unrunnable=True,
            )
    if "a" in fields and "b" in fields and run.time(fields["b"]) < run.time(fields["a"]):
        return Verdict(
            False,
            f"the range from {fields['a']} to {fields['b']} s ends before it starts",
            unrunnable=True,
        )
    return None


# -- the trace, read -------------------------------------------------------------------------


class _Run:
    def __init__(self, trace: Trace):
        self.trace = trace
        self.steps = trace["steps"]
        self.duration = float(trace["duration"])

    def time(self, text: str) -> float:
        return self.duration if text == "end" else float(text)

    def state_at(self, t: float) -> tuple[State, int | None]:
        """The state after the last step at or before `t` (the initial state before any)."""
        state, index = self.trace["initial"], None
        for number, step in enumerate(self.steps):
            if step["t"] > t + 1e-9:
                break
            state, index = step["state"], number
        return state, index

    def place_of(self, job: str, state: State) -> str | None:
        return place_of(job, state)

    def describe(self, index: int | None) -> str:
        if index is None:
            return "no step has changed it since the run began"
        step = self.steps[index]
        reply = json.dumps(step["reply"], ensure_ascii=False)
        return (
            f"trace step {index + 1}, t={step['t']:g} s: {step['client']} "
            f"{' '.join(step['argv'])} → {reply}"
        )

    def arrival(self, job: str, index: int | None) -> int | None:
        """The last step at or before `index` that moved `job` to where it is after `index`
        (None: it is where the run started it)."""
        if index is None:
            return None
        place = self.place_of(job, self.steps[index]["state"])
        for number in range(index, -1, -1):
            before = self.steps[number - 1]["state"] if number else self.trace["initial"]
            if self.place_of(job, before) != place:
                return number
        return None

    def commands_of(self, client: str, command: str) -> list[tuple[int, Step]]:
        return [
            (index, step)
            for index, step in enumerate(self.steps)
            if step["client"] == client and command_name(step["argv"]) == command
        ]

    def known_job(self, job: str) -> Verdict | None:
        if job not in self.trace["jobs"]:
            known = ", ".join(self.trace["jobs"]) or "none"
            return Verdict(False, f"the run has no job '{job}' (jobs: {known})", unrunnable=True)
        return None

    def known_client(self, client: str) -> Verdict | None:
        clients = {p["name"] for p in self.trace["processes"]}
        clients |= {step["client"] for step in self.steps}
        clients |= {event["client"] for event in self.trace["events"]}
        if client not in clients:
            return Verdict(
                False,
                f"the run has no client '{client}' (clients: {', '.join(sorted(clients))})",
                unrunnable=True,
            )
        return None


def place_of(job: str, state: State) -> str | None:
    """Where `job` sits in `state` (one of PLACES), or None."""
    return next((place for place in PLACES if job in jobs_in(state, place)), None)


def command_name(argv: list[str]) -> str:
    """A step's command as the course names it: a script by its name (@promote)."""
    if argv and argv[0].upper() in ("EVALSHA", "EVAL") and len(argv) > 1:
        return argv[1]  # the trace names a script by its name (@promote)
    return argv[0] if argv else ""


def _matches(actual: float, stated: str) -> bool:
    """True when `actual` agrees with the stated time to the stated number of decimals."""
    if stated == "end":
        return False
    exponent = Decimal(stated).as_tuple().exponent
    decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return abs(actual - float(stated)) < 0.5 * 10.0**-decimals + 1e-9


def _nearest(found: list[tuple[float, int]], t: float) -> int | None:
    """Of (time, step) pairs, the step nearest to `t` (the earlier of two as near)."""
    if not found:
        return None
    return min(found, key=lambda pair: abs(pair[0] - t))[1]


def _times(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")]


# -- the forms -------------------------------------------------------------------------------


def _in_at(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_job(f["job"])) is not None:
        return unknown
    t = run.time(f["t"])
    state, index = run.state_at(t)
    place = run.place_of(f["job"], state)
    decider = run.arrival(f["job"], index)
    if place == f["place"]:
        return Verdict(True, step=decider, place=place)
    return _elsewhere(run, f["job"], t, place, decider)


def _in_from(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_job(f["job"])) is not None:
        return unknown
    start, stop = run.time(f["a"]), run.time(f["b"])
    state, index = run.state_at(start)
    moments = [(start, state, index)]
    moments += [
        (step["t"], step["state"], number)
        for number, step in enumerate(run.steps)
        if start < step["t"] <= stop + 1e-9
    ]
    for t, state, index in moments:
        place = run.place_of(f["job"], state)
        if place != f["place"]:
            # The step that moved it out of the place (or, at the range's start, to where it
            # is then), not merely the last step before the moment.
            return _elsewhere(run, f["job"], t, place, run.arrival(f["job"], index))
    return Verdict(True, step=run.arrival(f["job"], moments[0][2]), place=f["place"])


def _elsewhere(run: _Run, job: str, t: float, place: str | None, decider: int | None) -> Verdict:
    """A place predicate that fails: where the job is at `t`, and the step that moved it
    there (None: the run began it there)."""
    return Verdict(
        False,
        f"at {t:g} s {job} is in {place or 'no place'} ({run.describe(decider)})",
        step=decider,
        place=place,
    )


def _entries(run: _Run, job: str, place: str) -> list[tuple[float, int]]:
    """(time, step) of every step that moves `job` into `place`."""
    entered = []
    before = run.place_of(job, run.trace["initial"])
    for index, step in enumerate(run.steps):
        now = run.place_of(job, step["state"])
        if now == place and before != place:
            entered.append((step["t"], index))
        before = now
    return entered


def _reaches(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_job(f["job"])) is not None:
        return unknown
    entered = _entries(run, f["job"], f["place"])
    for t, index in entered:
        if _matches(t, f["t"]) or (f["t"] == "end" and t == run.duration):
            return Verdict(True, step=index, place=f["place"])
    if not entered:
        return Verdict(False, f"{f['job']} never moves into {f['place']} in the run")
    nearest = _nearest(entered, run.time(f["t"]))
    times = ", ".join(f"{t:g}" for t, _ in entered)
    return Verdict(
        False,
        f"{f['job']} moves into {f['place']} at {times} s ({run.describe(nearest)})",
        step=nearest,
    )


def _never(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_job(f["job"])) is not None:
        return unknown
    entered = _entries(run, f["job"], f["place"])
    if not entered:
        return Verdict(True)
    t, index = entered[0]
    return Verdict(
        False,
        f"{f['job']} moves into {f['place']} at {t:g} s ({run.describe(index)})",
        step=index,
        place=f["place"],
    )


def _ever(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_job(f["job"])) is not None:
        return unknown
    entered = _entries(run, f["job"], f["place"])
    if entered:
        return Verdict(True, step=entered[0][1], place=f["place"])
    return Verdict(False, f"{f['job']} never moves into {f['place']} in the run")


def _sends_nothing(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_client(f["client"])) is not None:
        return unknown
    for index, step in enumerate(run.steps):
        if step["client"] == f["client"]:
            return Verdict(
                False, f"{f['client']} sends a command ({run.describe(index)})", step=index
            )
    return Verdict(True)


def _sends_count(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_client(f["client"])) is not None:
        return unknown
    sent = run.commands_of(f["client"], f["command"])
    wanted = int(f["n"])
    if len(sent) == wanted:
        return Verdict(True, step=sent[-1][0] if sent else None)  # the send that reached it
    # Past the count: the send that went past it; short of it: the last send there was.
    decider = sent[wanted][0] if len(sent) > wanted else (sent[-1][0] if sent else None)
    return Verdict(
        False, f"{f['client']} sends {f['command']} {len(sent)} times in the run", step=decider
    )


def _sends_at(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_client(f["client"])) is not None:
        return unknown
    sent = run.commands_of(f["client"], f["command"])
    decider = None
    for stated in _times(f["times"]):
        found = next((index for index, step in sent if _matches(step["t"], stated)), None)
        if found is None:
            times = ", ".join(f"{step['t']:g}" for _, step in sent) or "never"
            nearest = _nearest([(step["t"], index) for index, step in sent], run.time(stated))
            return Verdict(
                False,
                f"{f['client']} sends {f['command']} at {times} s, not at {stated} s",
                step=nearest,
            )
        decider = found
    return Verdict(True, step=decider)


def _at(run: _Run, f: dict[str, str]) -> tuple[int, Step] | Verdict:
    if (unknown := run.known_client(f["client"])) is not None:
        return unknown
    sent = run.commands_of(f["client"], f["command"])
    near = [(abs(step["t"] - run.time(f["t"])), index, step) for index, step in sent]
    near = [item for item in near if _matches(item[2]["t"], f["t"])]
    if near:
        _, index, step = min(near, key=lambda item: item[0])
        return index, step
    times = ", ".join(f"{step['t']:g}" for _, step in sent) or "never"
    nearest = _nearest([(step["t"], index) for index, step in sent], run.time(f["t"]))
    return Verdict(
        False, f"{f['client']} sends {f['command']} at {times} s, not at {f['t']} s", step=nearest
    )


def _replies(run: _Run, f: dict[str, str]) -> Verdict:
    found = _at(run, f)
    if isinstance(found, Verdict):
        return found
    index, step = found
    if reply_matches(step["reply"], f["value"].strip()):
        return Verdict(True, step=index)
    return Verdict(False, f"the reply differs ({run.describe(index)})", step=index)


def _replies_any(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_client(f["client"])) is not None:
        return unknown
    sent = run.commands_of(f["client"], f["command"])
    for index, step in sent:
        if reply_matches(step["reply"], f["value"].strip()):
            return Verdict(True, step=index)  # the call that replied it
    if not sent:
        return Verdict(False, f"{f['client']} never sends {f['command']} in the run")
    return Verdict(
        False,
        f"no {f['command']} of {f['client']} replies {f['value'].strip()} "
        f"({run.describe(sent[-1][0])}, the last)",
        step=sent[-1][0],
    )


def reply_matches(reply: Reply, stated: str) -> bool:
    """True when a step's reply is the value a predicate states (a number, nil, ok, error, a
    JSON list or "text")."""
    if stated == "nil":
        return reply is None
    if stated == "error":
        return isinstance(reply, dict) and "error" in reply
    if stated.lower() == "ok":
        return reply == "OK"
    if re.fullmatch(r"-?\d+", stated):
        return reply == int(stated)
    if stated.startswith("[") or stated.startswith('"'):
        try:
            return bool(reply == json.loads(stated))
        except ValueError:
            return False
    return reply == stated


def _errors(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_client(f["client"])) is not None:
        return unknown
    start = run.time(f["t"])
    sent = [
        (index, step)
        for index, step in run.commands_of(f["client"], f["command"])
        if step["t"] >= start or _matches(step["t"], f["t"])
    ]
    if not sent:
        return Verdict(False, f"{f['client']} sends no {f['command']} from {start:g} s on")
    for index, step in sent:
        reply = step["reply"]
        if not (isinstance(reply, dict) and "error" in reply):
            return Verdict(False, f"a reply is not an error ({run.describe(index)})", step=index)
    return Verdict(True, step=sent[0][0])


def _event(run: _Run, f: dict[str, str]) -> Verdict:
    if (unknown := run.known_client(f["client"])) is not None:
        return unknown
    events = [
        event
        for event in run.trace["events"]
        if event["client"] == f["client"] and event["kind"] == f["event"]
    ]
    decider = None
    for stated in _times(f["times"]):
        decider = next((event for event in events if _matches(event["t"], stated)), None)
        if decider is None:
            times = ", ".join(f"{event['t']:g}" for event in events)
            at = run.time(stated)
            nearest = min(events, key=lambda event: abs(event["t"] - at)) if events else None
            return Verdict(
                False,
                f"{f['client']}'s '{f['event']}' events are at {times} s, not at {stated} s"
                if events
                else f"{f['client']} has no '{f['event']}' event in the run",
                event=nearest,
            )
    return Verdict(True, event=decider)


def _bus(
    run: _Run,
    f: dict[str, str],
    read: Callable[[State], object],
    what: str,
    changes: Callable[[object, object], bool] = lambda before, now: before != now,
) -> Verdict:
    t = run.time(f["t"])
    state, index = run.state_at(t)
    actual = read(state)
    # The step that last changed the value (a length, a TTL, a count), not merely the last
    # step before the moment; None: the value is the one the run began with.
    changed = None
    if index is not None:
        before = read(run.trace["initial"])
        for number in range(index + 1):
            now = read(run.steps[number]["state"])
            if changes(before, now):
                changed = number
            before = now
    if actual == int(f["n"]):
        return Verdict(True, step=changed)
    return Verdict(False, f"at {t:g} s {what} is {actual} ({run.describe(changed)})", step=changed)


def _stream(run: _Run, f: dict[str, str]) -> Verdict:
    return _bus(
        run, f, lambda s: s.get("streams", {}).get(f["key"], 0), f"the length of {f['key']}"
    )


def _pel(run: _Run, f: dict[str, str]) -> Verdict:
    name = f"{f['key']} {f['group']}"
    return _bus(run, f, lambda s: s.get("pel", {}).get(name), f"the pending count of {name}")


def _failures(run: _Run, f: dict[str, str]) -> Verdict:
    def read(state: State) -> object:
        entry = state.get("failures", {}).get(f["key"])
        if entry is None:
            return None
        return entry["ttl"] if f["what"] == "ttl" else entry["count"]

    def set_again(before: object, now: object) -> bool:
        # A TTL counts down with the clock: a step changes it only when it sets, drops or
        # makes the key (the countdown between two steps is no step's doing).
        counting = isinstance(before, int) and isinstance(now, int) and 0 <= now <= before
        return before != now and not counting

    changes = set_again if f["what"] == "ttl" else (lambda before, now: before != now)
    return _bus(run, f, read, f"the {f['what']} of {f['key']}", changes)


def _expiring(run: _Run, f: dict[str, str]) -> Verdict:
    """The count has a TTL (any): the step that last set or dropped one decides."""
    found = _failures(run, {**f, "what": "ttl", "n": "-1"})
    t = run.time(f["t"])
    state, _ = run.state_at(t)
    entry = state.get("failures", {}).get(f["key"])
    if entry is not None and isinstance(entry["ttl"], int) and entry["ttl"] >= 0:
        return Verdict(True, step=found.step)
    ttl = "no key" if entry is None else f"TTL {entry['ttl']}"
    return Verdict(False, f"at {t:g} s {f['key']} has {ttl}", step=found.step)


_FORMS: dict[str, Callable[[_Run, dict[str, str]], Verdict]] = {
    "in_at": _in_at,
    "in_from": _in_from,
    "reaches": _reaches,
    "never": _never,
    "ever": _ever,
    "sends_nothing": _sends_nothing,
    "sends_count": _sends_count,
    "sends_at": _sends_at,
    "replies": _replies,
    "replies_any": _replies_any,
    "errors": _errors,
    "event": _event,
    "stream": _stream,
    "pel": _pel,
    "failures": _failures,
    "expiring": _expiring,
}
