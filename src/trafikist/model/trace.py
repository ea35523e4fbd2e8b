"""The trace of a run, typed: exactly the JSON `Simulation.run()` returns, key for key.

A trace is plain data (dicts, lists, strings and numbers) so that it crosses to the page as JSON
and back unchanged; these TypedDicts name its keys for the type checker and for a reader of the
code. Everything that reads a trace (the predicates, the questions, the checks, the drawing, the
baked runs) takes a `Trace`. Stdlib only: the model ships in the page's wheel.

    Trace    the run: the scenario's name, duration, keys and processes; its jobs and their due
             times; the state before the first command (`initial`) and after the last (`final`);
             every command (`steps`) and every other happening (`events`); the model's choices
             it relied on
    Step     one command: virtual time, client, argv, reply, and the state after it
    Event    a happening that is not a command: a refusal, a wake, a crash, a message …
    State    where each job sits (schedule, pending, active, dead, done), and on a bus run the
             stream lengths, the groups' pending counts and the failure counters
"""

from __future__ import annotations

from typing import NotRequired, Required, TypedDict

# Where a job can be: the four keys of its queue, and done (acknowledged).
PLACES = ("schedule", "pending", "active", "dead", "done")


class ErrorReply(TypedDict):
    """An error reply, as JSON: Valkey's own text."""

    error: str


# A RESP2-shaped reply as JSON: bulk and simple strings as str, integers, nil as None, arrays as
# lists, errors as {"error": text} (trafikist.model.simulation.reply_to_json).
type Reply = str | int | ErrorReply | list[Reply] | None


class Failure(TypedDict):
    """A failure counter of the bus: its count (the value of the key) and its TTL."""

    count: int | str | None
    ttl: int


class State(TypedDict):
    """Where each job sits, by job id, in the order of its key; on a run with a bus, the bus."""

    schedule: list[str]
    pending: list[str]
    active: list[str]
    dead: list[str]
    done: list[str]
    streams: NotRequired[dict[str, int]]  # stream name -> length
    pel: NotRequired[dict[str, int]]  # "STREAM GROUP" -> pending entries
    failures: NotRequired[dict[str, Failure]]  # counter key -> count and TTL


class Step(TypedDict):
    """One command a client sent, and the state after the server served it."""

    t: float  # virtual seconds since the start
    client: str
    argv: list[str]
    reply: Reply  # None while blocked: see `blocked` and `replied`
    via: str  # what the client sent it for (its library call, "script", "console" …)
    state: State
    pipeline: NotRequired[bool]  # sent in a pipeline
    blocked: NotRequired[bool]  # the command blocked; its reply came later
    replied: NotRequired[float]  # when a blocked command's reply came (a push or the timeout)


class Event(TypedDict):
    """A happening of the run that is not a command."""

    t: float
    client: str
    kind: str  # refused, backoff, wake, timeout, crash, restart, failed, message, lease-lost …
    text: str
    via: NotRequired[str]  # a refusal's: what was refused


class Keys(TypedDict):
    """The names of the queue's keys in the run."""

    schedule: str
    pending: str
    active: str
    dead: str
    wake: str
    job_prefix: str


class Message(TypedDict):
    """A bus envelope as a scenario gives it."""

    id: str
    type: str
    data: str
    fail: int


class BusOp(TypedDict, total=False):
    """One operation of a Bus process: a publish, or an append of one or more envelopes."""

    at: Required[float]
    op: Required[str]  # publish, append, append_batch
    channel: str
    message: str
    stream: str
    messages: list[Message]


class ClientCommand(TypedDict):
    """One command of a Client process, at its time."""

    at: float
    argv: list[str]


class Process(TypedDict, total=False):
    """A process of the scenario: its name and kind, and its options (those its kind takes,
    trafikist.model.scenario.PROCESS_OPTIONS)."""

    name: Required[str]
    kind: Required[str]
    wire: int
    start: float
    beat: float
    reaper: bool
    batch: int
    limit: int
    lease: float
    max_attempts: int
    pool: int
    interval: float
    stream: str
    group: str
    count: int
    block: float
    min_idle: float
    max_failures: int
    failure_ttl: int
    dead: str
    work: float
    ops: list[BusOp]
    commands: list[ClientCommand]
    acl: str


class Trace(TypedDict):
    """A run of a scenario, as `Simulation.run()` returns it and the page receives it."""

    scenario: str
    description: str
    duration: float
    keys: Keys
    processes: list[Process]
    jobs: list[str]  # job ids, in the scenario's order
    due: dict[str, float | None]  # a scheduled job's due time
    initial: State
    steps: list[Step]
    events: list[Event]
    final: State
    choices: list[str]  # the ids of the model's choices the run relied on


def jobs_in(state: State, place: str) -> list[str]:
    """The jobs in `place` (one of PLACES) in `state`; none for another name."""
    jobs = state.get(place) if place in PLACES else None
    return jobs if isinstance(jobs, list) else []
