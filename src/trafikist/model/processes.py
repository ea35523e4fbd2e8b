"""The client processes, one generator each, as the seed describes them.

A process yields effects to the simulation and gets replies back:

    ("send", argv, via)        one command; the reply comes back (a blocking one when served)
    ("pipeline", [argv], via)  several commands sent together, not atomic; the replies come back
    ("sleep", ms)              virtual time passes
    ("until", ms)              virtual time passes until ms after the start, if still ahead
    ("refuse", via, text)      the library refuses a call before sending anything
    ("event", kind, text)      a note in the trace
    ("tick",)                  a Metronome's beat reaches its pool
    ("wait_tick",)             a pool member waits for its Metronome's beat
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from trafikist.model import choices
from trafikist.model.echomq import Call, Library
from trafikist.model.errors import ReplyError
from trafikist.model.scenario import JobSpec, MessageSpec, ProcessSpec

Effect = tuple[Any, ...]
Process = Generator[Effect, Any, None]


class _Refused:
    def __repr__(self) -> str:
        return "REFUSED"


REFUSED = _Refused()


@dataclass
class World:
    """What lives outside Valkey: the jobs' work, the messages' outcomes, what got done."""

    jobs: dict[str, JobSpec]
    members: dict[str, str]  # schedule/pending/active member -> job id
    messages: dict[str, MessageSpec]
    done: list[str] = field(default_factory=list)
    handled: dict[tuple[str, str], int] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def job_of(self, member: str) -> str:
        return self.members.get(member, member)


@dataclass
class Context:
    name: str
    spec: ProcessSpec
    library: Library
    world: World
    backoff_ms: int = 0

    @property
    def options(self) -> dict[str, Any]:
        return self.spec.options


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _text(reply: Any) -> str:
    return reply.decode() if isinstance(reply, bytes) else str(reply)


def is_refused(reply: Any) -> bool:
    return reply is REFUSED or isinstance(reply, ReplyError)


def call(ctx: Context, made: Call) -> Generator[Effect, Any, Any]:
    if made.refusal is not None:
        yield ("refuse", made.via, made.refusal)
        return REFUSED
    return (yield ("send", made.argv, made.via))


def back_off(ctx: Context, base_seconds: float) -> Generator[Effect, Any, None]:
    # model's own choice (choice "backoff"): one beat, doubling, at most 30 seconds.
    ctx.world.used.add("backoff")
    base = _ms(base_seconds)
    ctx.backoff_ms = (
        base if not ctx.backoff_ms else min(ctx.backoff_ms * 2, _ms(choices.BACKOFF_MAX))
    )
    ctx.backoff_ms = max(ctx.backoff_ms, base)
    yield ("event", "backoff", f"the beat stops and backs off for {ctx.backoff_ms / 1000:g} s")
    yield ("sleep", ctx.backoff_ms)


def recover(ctx: Context) -> Generator[Effect, Any, Any]:
    """The beat's first step: the reaper, or the counted sweep when configured otherwise."""
    ctx.world.used.add("recovery-silent")
    if ctx.options.get("reaper", True):
        ctx.world.used.add("reaper")
        return (yield from call(ctx, ctx.library.reap()))
    ctx.world.used.update(("stalled-args", "stalled-count"))
    made = ctx.library.stalled_check(ctx.options["limit"], ctx.options["max_attempts"])
    return (yield from call(ctx, made))


def promote(ctx: Context) -> Generator[Effect, Any, Any]:
    ctx.world.used.update(("promote-args", "promote-rings"))
    reply = yield from call(ctx, ctx.library.promote(ctx.options["batch"]))
    if isinstance(reply, ReplyError) and "lane row" in str(reply):
        ctx.world.used.add("promote-lane-check")
    return reply


def drain(ctx: Context) -> Generator[Effect, Any, bool]:
    """Claim and work jobs one at a time until pending is empty; False when refused."""
    ctx.world.used.update(("claim", "work"))
    lease_ms = _ms(ctx.options["lease"])
    while True:
        member = yield from call(ctx, ctx.library.claim(lease_ms))
        if is_refused(member):
            return False
        if member is None:
            return True
        job_id = ctx.world.job_of(_text(member))
        spec = ctx.world.jobs.get(job_id)
        yield ("sleep", _ms(spec.work if spec else choices.WORK_SECONDS))
        acked = yield from call(ctx, ctx.library.ack(_text(member)))
        if acked != 1:  # the simulation records a job as done when its ZREM removed it
            yield ("event", "lease-lost", f"{job_id} was no longer in active when it finished")


def consumer(ctx: Context) -> Process:
    """EchoMQ.Consumer: recover, promote, drain the lanes, park on the wake list."""
    beat = ctx.options["beat"]
    while True:
        if is_refused((yield from recover(ctx))) or is_refused((yield from promote(ctx))):
            yield from back_off(ctx, beat)
            continue
        if not (yield from drain(ctx)):
            yield from back_off(ctx, beat)
            continue
        ctx.backoff_ms = 0
        yield from call(ctx, ctx.library.park(beat))


def metronome(ctx: Context) -> Process:
    """EchoMQ.Metronome: one beat and a single park for a pool of consumers."""
    beat = ctx.options["beat"]
    ctx.world.used.add("intervals")
    while True:
        if is_refused((yield from recover(ctx))) or is_refused((yield from promote(ctx))):
            yield from back_off(ctx, beat)
            continue
        ctx.backoff_ms = 0
        yield ("tick",)
        yield from call(ctx, ctx.library.park(beat))


def pool_member(ctx: Context) -> Process:
    """A consumer of a Metronome's pool: it drains when the beat reaches it, and never parks."""
    while True:
        yield ("wait_tick",)
        yield from drain(ctx)


def pump(ctx: Context) -> Process:
    """EchoMQ.Pump: promotes on a tick of its own."""
    ctx.world.used.add("intervals")
    interval = _ms(ctx.options["interval"])
    while True:
        yield from promote(ctx)
        yield ("sleep", interval)


def stalled(ctx: Context) -> Process:
    """EchoMQ.Stalled: the counted sweep on an interval."""
    ctx.world.used.update(("intervals", "stalled-args", "stalled-count", "recovery-silent"))
    interval = _ms(ctx.options["interval"])
    while True:
        made = ctx.library.stalled_check(ctx.options["limit"], ctx.options["max_attempts"])
        yield from call(ctx, made)
        yield ("sleep", interval)


def stream_consumer(ctx: Context) -> Process:
    """EchoMQ.StreamConsumer: XAUTOCLAIM, then XREADGROUP, on each pass of its loop."""
    ctx.world.used.update(("stream-consumer", "failures", "envelope", "work"))
    options = ctx.options
    stream, group = options["stream"], options["group"]
    count = str(options["count"])
    while True:
        reclaimed = yield (
            "send",
            (
                "XAUTOCLAIM",
                stream,
                group,
                ctx.name,
                str(_ms(options["min_idle"])),
                "0-0",
                "COUNT",
                count,
            ),
            "reclaim",
        )
        if isinstance(reclaimed, list):
            for entry in reclaimed[1]:
                yield from handle_entry(ctx, entry)
        read = yield (
            "send",
            (
                "XREADGROUP",
                "GROUP",
                group,
                ctx.name,
                "COUNT",
                count,
                "BLOCK",
                str(_ms(options["block"])),
                "STREAMS",
                stream,
                ">",
            ),
            "read",
        )
        if isinstance(read, list):
            for _, entries in read:
                for entry in entries:
                    yield from handle_entry(ctx, entry)
        elif isinstance(read, ReplyError):
            yield ("sleep", _ms(options["block"]))


def handle_entry(ctx: Context, entry: list[Any]) -> Generator[Effect, Any, None]:
    options = ctx.options
    stream, group = options["stream"], options["group"]
    entry_id, raw_fields = _text(entry[0]), entry[1] or []
    fields = dict(zip(map(_text, raw_fields[::2]), map(_text, raw_fields[1::2]), strict=True))
    message = ctx.world.messages.get(fields.get("id", ""))
    handled = ctx.world.handled.get((stream, entry_id), 0) + 1
    ctx.world.handled[(stream, entry_id)] = handled
    yield ("sleep", _ms(options["work"]))
    if message is None or handled > message.fail:
        yield ("send", ("XACK", stream, group, entry_id), "ack")
        return
    # The failure count is two built-ins: the gap between them is the client's.
    key = choices.FAILURES_KEY.format(stream=stream, entry=entry_id)
    failures = yield ("send", ("INCR", key), "failure count")
    yield ("send", ("EXPIRE", key, str(options["failure_ttl"])), "failure count")
    if isinstance(failures, int) and failures >= options["max_failures"]:
        # The park appends to the dead-letter stream, then acknowledges the source entry.
        dead_fields = [*map(_text, raw_fields), "source_id", entry_id, "failures", str(failures)]
        yield ("send", ("XADD", options["dead"], "*", *dead_fields), "park")
        yield ("send", ("XACK", stream, group, entry_id), "park")
    else:
        yield ("event", "failed", f"{entry_id} failed ({failures}); it stays pending")


def bus(ctx: Context) -> Process:
    """EchoMQ.Bus and EchoMQ.Stream: PUBLISH, XADD, and a pipelined batch append."""
    ctx.world.used.add("envelope")
    for op in ctx.options["ops"]:
        yield ("until", _ms(op["at"]))
        if op["op"] == "publish":
            yield ("send", ("PUBLISH", op["channel"], op["message"]), "publish")
        elif op["op"] == "append":
            yield ("send", ("XADD", op["stream"], "*", *op["messages"][0].fields()), "append")
        else:
            # The replies of a batch append are dropped: nothing checks them.
            batch = [("XADD", op["stream"], "*", *message.fields()) for message in op["messages"]]
            yield ("pipeline", batch, "batch append")


def client(ctx: Context) -> Process:
    """A plain client (not EchoMQ): sends the scenario's commands at their times."""
    for command in ctx.options["commands"]:
        yield ("until", _ms(command["at"]))
        name = command["argv"][0].upper()
        if name.startswith("EMQ.") and name not in ("EMQ.PROMOTE", "EMQ.STALLED.CHECK"):
            ctx.world.used.update(("bus-verb-args", "bus-verb-rows", "envelope"))
        yield ("send", command["argv"], "client")


KINDS = {
    "Consumer": consumer,
    "Metronome": metronome,
    "Pump": pump,
    "Stalled": stalled,
    "StreamConsumer": stream_consumer,
    "Bus": bus,
    "Client": client,
}
