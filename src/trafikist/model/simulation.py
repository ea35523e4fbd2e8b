"""The simulation: client processes on a virtual clock against the model's server.

Every command is a step in the trace: its virtual time, client, argument vector, reply, and the
state of schedule, pending, active and dead after it. Everything is deterministic: the same
scenario and overrides give the same trace, byte for byte.
"""

from __future__ import annotations

import dataclasses
import heapq
from typing import Any

from trafikist.model import choices, echomq, trafikey
from trafikist.model.echomq import Library, QueueKeys
from trafikist.model.errors import ReplyError, ScenarioError
from trafikist.model.processes import KINDS, Context, World, pool_member
from trafikist.model.replies import Replies
from trafikist.model.scenario import (
    PROCESS_OPTIONS,
    SWEEP_KINDS,
    FaultSpec,
    ProcessSpec,
    Scenario,
    _Reader,
)
from trafikist.model.server import BLOCKED, Connection, Server
from trafikist.model.trace import Event, Failure, Process, Reply, State, Step, Trace
from trafikist.model.values import HashValue, ListValue, Stream, ZSet

EPOCH_MS = 1_700_000_000_000  # the virtual wall clock at t = 0 (2023-11-14 22:13:20 UTC)
# model's own choice (choice "rtt"): a reply reaches its client 1 ms after the server served it.
ROUND_TRIP_MS = 1
# The commands one run may send: a trace the page can draw, made in a second or two. A run
# that would send more is refused (the run's note in the page, a build error at the file).
MAX_STEPS = 20_000
_TIMEOUT = object()


def reply_to_json(reply: Any) -> Reply:
    """A RESP2-shaped reply as JSON: str for strings, int, list, null, {"error": text}."""
    if isinstance(reply, bytes):
        return reply.decode("utf-8", errors="replace")
    if isinstance(reply, ReplyError):
        return {"error": reply.text}
    if isinstance(reply, list):
        return [reply_to_json(item) for item in reply]
    if reply is None or isinstance(reply, int):
        return reply
    raise TypeError(f"the model replied {reply!r}, which is not a RESP2 reply")


class _Process:
    __slots__ = (
        "conn",
        "context",
        "crashed",
        "generator",
        "kind",
        "last_sent",
        "name",
        "pool",
        "sent",
        "sent_names",
        "step",
        "tick_pending",
        "token",
        "waiting_tick",
    )

    def __init__(self, name: str, kind: str, context: Context):
        self.name = name
        self.kind = kind
        self.context = context
        self.generator: Any = None
        self.conn: Connection | None = None
        self.sent = 0
        # How many of each command (a script by its name) it sent, and the last: a fault may
        # name its crash point by a command ("after XADD", "after EXPIRE #2").
        self.sent_names: dict[str, int] = {}
        self.last_sent: tuple[str, int] = ("", 0)
        self.token = 0
        self.crashed = False
        self.pool: list[_Process] = []
        self.waiting_tick = False
        self.tick_pending = False
        self.step: Step | None = None  # the step of a command still blocked


def new_server(start_ms: int = EPOCH_MS) -> Server:
    """A server with trafikey loaded and EchoMQ's scripts registered, as a run starts with."""
    server = Server(start_ms=start_ms)
    trafikey.load(server)
    echomq.load_scripts(server)
    return server


class Simulation:
    """One run of a scenario. `run()` returns the trace; `server` is left for the console."""

    def __init__(
        self,
        scenario: Scenario | dict[str, Any],
        overrides: dict[str, Any] | None = None,
        source: str = "scenario",
    ):
        if not isinstance(scenario, Scenario):
            scenario = Scenario.from_dict(scenario, source=source)
        self.scenario = apply_overrides(scenario, overrides) if overrides else scenario
        self.server = new_server(start_ms=EPOCH_MS)
        self.keys = QueueKeys(self.scenario.queue)
        self.world = World(
            jobs={job.id: job for job in self.scenario.jobs},
            members={job.member: job.id for job in self.scenario.jobs},
            messages={m.id: m for stream in self.scenario.streams for m in stream.messages},
        )
        self.world.used.update(("keys", "scores", "rtt"))
        self.steps: list[Step] = []
        self.events: list[Event] = []
        self._heap: list[tuple[int, int, _Process, int, Any]] = []
        self._seq = 0
        self._now = 0  # ms since the start
        self._faults = {fault.client: fault for fault in self.scenario.faults}
        self._fired: set[str] = set()
        self._watched = {
            name: getattr(self.keys, name).encode()
            for name in ("schedule", "pending", "active", "dead")
        }
        self._lists: dict[str, list[str]] = {name: [] for name in self._watched}
        self._state: State = _empty_state()
        self._done_seen = 0
        self._bus = bool(self.scenario.streams) or any(
            p.kind in ("Bus", "StreamConsumer") for p in self.scenario.processes
        )
        self._bus_keys: set[bytes] = set()
        self._subscribers: list[_Process] = []
        self._processes: list[_Process] = []
        self._ran = False
        self._initial: State = _empty_state()
        self._member_cache = {m.encode(): job for m, job in self.world.members.items()}

    # --- set-up ------------------------------------------------------------------------------

    def _load(self) -> None:
        server = self.server
        for job in self.scenario.jobs:
            member = job.member.encode()
            fields = HashValue({b"attempts": str(job.attempts).encode()})
            if job.restart:
                fields[b"restart"] = b"1"
            server.store((self.keys.job_prefix + job.member).encode(), fields)
            if job.state in ("schedule", "active"):
                key = self._watched[job.state]
                due_ms = EPOCH_MS + round((job.due or 0) * 1000)
                server.lookup_write(key, ZSet).add(member, due_ms)
            else:
                server.lookup_write(self._watched[job.state], ListValue).append(member)
        for stream in self.scenario.streams:
            key = stream.name.encode()
            server.lookup_write(key, Stream)
            self._bus_keys.add(key)
            for message in stream.messages:
                server.call("XADD", key, "*", *message.fields())
            for group in stream.groups:
                server.call("XGROUP", "CREATE", key, group, "0", "MKSTREAM")
        for spec in self.scenario.processes:
            if spec.kind == "StreamConsumer":
                stream_key = spec.options["stream"].encode()
                self._bus_keys.update((stream_key, spec.options["dead"].encode()))
                server.call("XGROUP", "CREATE", stream_key, spec.options["group"], "0", "MKSTREAM")
            if spec.kind == "Bus":
                for op in spec.options["ops"]:
                    if "stream" in op:
                        self._bus_keys.add(op["stream"].encode())
        server.dirty.clear()
        self._refresh_state(force=True)
        self._initial = self._state

    def _spawn(self, spec: ProcessSpec) -> None:
        library = Library(self.keys, spec.wire)
        process = _Process(spec.name, spec.kind, Context(spec.name, spec, library, self.world))
        self._processes.append(process)
        start_ms = round(spec.options.get("start", 0) * 1000)
        self._start(process, KINDS[spec.kind], start_ms)
        if spec.kind == "Metronome":
            for number in range(1, spec.options["pool"] + 1):
                name = f"{spec.name}.{number}"
                member = _Process(name, "pool", Context(name, spec, library, self.world))
                process.pool.append(member)
                self._processes.append(member)
                self._start(member, pool_member, start_ms)

    def _start(self, process: _Process, kind: Any, at_ms: int) -> None:
        process.conn = self.server.connect(
            process.name,
            acl=tuple(process.context.options.get("acl", "+@all").split()),
            can_block=True,
        )
        process.conn.on_wake = lambda reply, process=process: self._woken(process, reply)
        process.generator = kind(process.context)
        process.crashed = False
        self._schedule(at_ms, process, None)

    # --- the clock ---------------------------------------------------------------------------

    def _schedule(self, at_ms: int, process: _Process, value: Any) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (at_ms, self._seq, process, process.token, value))

    def run(self) -> Trace:
        if self._ran:
            raise RuntimeError("a Simulation runs once; make a new one to run again")
        self._ran = True
        self._load()
        for spec in self.scenario.processes:
            self._spawn(spec)
        end_ms = round(self.scenario.duration * 1000)
        heap = self._heap
        while heap:
            at_ms, _, process, token, value = heapq.heappop(heap)
            if at_ms > end_ms:
                break
            if token != process.token or process.crashed:
                continue
            self._now = at_ms
            self.server.now_ms = EPOCH_MS + at_ms
            if value is _TIMEOUT:
                self._timed_out(process)
                continue
            self._advance(process, value)
        self._now = end_ms
        self.server.now_ms = EPOCH_MS + end_ms
        return self.trace()

    def _advance(self, process: _Process, value: Any) -> None:
        generator = process.generator
        while True:
            try:
                effect = generator.send(value)
            except StopIteration:
                return
            op = effect[0]
            value = None
            if op == "send":
                if self._crash_due(process):
                    return
                reply = self._send(process, effect[1], effect[2])
                if reply is BLOCKED:
                    assert process.conn is not None  # _send sent on it
                    deadline = process.conn.deadline_ms
                    if deadline is not None:
                        self._schedule(deadline - EPOCH_MS, process, _TIMEOUT)
                    return
                self._schedule(self._now + ROUND_TRIP_MS, process, reply)
                return
            if op == "sleep":
                self._schedule(self._now + max(0, effect[1]), process, None)
                return
            if op == "until":
                if effect[1] > self._now:
                    self._schedule(effect[1], process, None)
                    return
                continue
            if op == "pipeline":
                replies = []
                for argv in effect[1]:
                    if self._crash_due(process):
                        return
                    replies.append(self._send(process, argv, effect[2], pipeline=True))
                self._schedule(self._now + ROUND_TRIP_MS, process, replies)
                return
            if op == "refuse":
                self._event(process.name, "refused", effect[2], via=effect[1])
                continue
            if op == "event":
                self._event(process.name, effect[1], effect[2])
                continue
            if op == "tick":
                for member in process.pool:
                    if member.crashed:
                        continue
                    if member.waiting_tick:
                        member.waiting_tick = False
                        self._schedule(self._now, member, None)
                    else:
                        member.tick_pending = True
                continue
            if op == "wait_tick":
                if process.tick_pending:
                    process.tick_pending = False
                    continue
                process.waiting_tick = True
                return
            raise ValueError(f"unknown effect {op!r} from {process.name}")

    def _send(
        self, process: _Process, argv: tuple[str, ...], via: str, pipeline: bool = False
    ) -> Any:
        conn = process.conn
        assert conn is not None
        process.sent += 1
        name = (
            argv[1] if argv[0].upper() in ("EVALSHA", "EVAL") and len(argv) > 1 else argv[0]
        ).upper()
        process.sent_names[name] = process.sent_names.get(name, 0) + 1
        process.last_sent = (name, process.sent_names[name])
        if len(self.steps) >= MAX_STEPS:
            raise ScenarioError(
                self.scenario.source,
                "duration",
                f"the run sends more than {MAX_STEPS} commands by {self._now / 1000:g} s "
                f"(of {self.scenario.duration:g} s), the cap of one run.",
                "Shorten the duration, or lengthen the beats and intervals: a scenario shows "
                "one behaviour.",
            )
        reply = self.server.execute_on(conn, argv)
        step: Step = {
            "t": self._now / 1000,
            "client": process.name,
            "argv": list(argv),
            "reply": None if reply is BLOCKED else _json_reply(reply),
            "via": via,
            "state": self._state,  # the state after the command, set below
        }
        if pipeline:
            step["pipeline"] = True
        if reply is BLOCKED:
            step["blocked"] = True
            process.step = step
        self.steps.append(step)
        if via == "ack" and argv[0] == "ZREM" and reply == 1:
            self.world.done.append(self.world.job_of(argv[2]))
        if conn.subscriptions and process not in self._subscribers:
            self._subscribers.append(process)
        self._after_command()
        step["state"] = self._state
        return reply

    def _after_command(self) -> None:
        self._refresh_state()
        for subscriber in self._subscribers:
            conn = subscriber.conn
            while conn is not None and conn.inbox:
                _, channel, message = conn.inbox.pop(0)
                self._event(
                    subscriber.name,
                    "message",
                    f"{channel.decode()}: {message.decode(errors='replace')}",
                )

    def _woken(self, process: _Process, reply: Any) -> None:
        """A push served this blocked client: its reply arrives one round trip later."""
        process.token += 1  # the timeout timer no longer applies
        self._finish_blocked(process, reply, "wake")
        self._schedule(self._now + ROUND_TRIP_MS, process, reply)

    def _timed_out(self, process: _Process) -> None:
        conn = process.conn
        if conn is None or conn.blocked is None:
            return
        self.server.time_out(conn)
        self._finish_blocked(process, None, "timeout")
        self._schedule(self._now + ROUND_TRIP_MS, process, None)

    def _finish_blocked(self, process: _Process, reply: Any, kind: str) -> None:
        step = process.step
        process.step = None
        if step is not None:
            step["reply"] = _json_reply(reply)
            step["replied"] = self._now / 1000
        text = "served by a push" if kind == "wake" else "the timeout came first"
        self._event(process.name, kind, text)

    # --- faults ------------------------------------------------------------------------------

    def _crash_due(self, process: _Process) -> bool:
        fault = self._faults.get(process.name)
        if fault is None or process.name in self._fired or not _reached(process, fault):
            return False
        self._fired.add(process.name)
        process.crashed = True
        process.token += 1
        process.waiting_tick = False
        if process.conn is not None:
            process.conn.close()
        point = f"command {fault.after}" if isinstance(fault.after, int) else f"its {fault.after}"
        self._event(process.name, "crash", f"crashed after {point}, before sending the next")
        if fault.restart is not None:
            self._restart_later(process, fault)
        return True

    def _restart_later(self, process: _Process, fault: FaultSpec) -> None:
        # The restart is a fresh process on a new connection, at the fault's restart time.
        kind = pool_member if process.kind == "pool" else KINDS[process.kind]
        restart_ms = self._now + round((fault.restart or 0) * 1000)
        self._seq += 1
        restarter = _Process(process.name, process.kind, process.context)
        restarter.pool = process.pool
        restarter.sent = process.sent
        restarter.sent_names = process.sent_names
        restarter.last_sent = process.last_sent
        self._processes[self._processes.index(process)] = restarter
        for owner in self._processes:
            if process in owner.pool:
                owner.pool[owner.pool.index(process)] = restarter
        process.context.backoff_ms = 0

        def begin() -> Any:
            self._event(process.name, "restart", "starts again on a new connection")
            yield ("sleep", 0)
            yield from kind(process.context)

        restarter.conn = self.server.connect(process.name, can_block=True)
        restarter.conn.on_wake = lambda reply: self._woken(restarter, reply)
        restarter.generator = begin()
        self._schedule(restart_ms, restarter, None)

    # --- the trace ---------------------------------------------------------------------------

    def _event(self, client: str, kind: str, text: str, via: str | None = None) -> None:
        event: Event = {"t": self._now / 1000, "client": client, "kind": kind, "text": text}
        if via is not None:
            event["via"] = via
        self.events.append(event)

    def _member_ids(self, members: Any) -> list[str]:
        # Called on every change of a watched key: a dict lookup per member keeps it cheap.
        known = self._member_cache
        ids = [known.get(member) for member in members]
        if None in ids:
            for index, member in enumerate(members):
                if ids[index] is None:
                    text = member.decode("utf-8", errors="replace")
                    ids[index] = known[member] = self.world.members.get(text, text)
        return ids  # type: ignore[return-value]  # every None was filled in above

    def _refresh_state(self, force: bool = False) -> None:
        dirty = self.server.dirty
        done_changed = len(self.world.done) != self._done_seen
        if not dirty and not done_changed and not force:
            return
        changed = force or done_changed
        for name, key in self._watched.items():
            if force or key in dirty:
                value = self.server.lookup(key)
                if isinstance(value, ZSet):
                    members: Any = [member for _, member in value.items]
                elif isinstance(value, ListValue):
                    members = value
                else:
                    members = ()
                self._lists[name] = self._member_ids(members)
                changed = True
        bus_changed = self._bus and (
            force
            or any(key in dirty for key in self._bus_keys)
            or any(b":failures:" in key for key in dirty)
        )
        dirty.clear()
        if not changed and not bus_changed:
            return
        self._done_seen = len(self.world.done)
        lists = self._lists
        state: State = {
            "schedule": lists["schedule"],
            "pending": lists["pending"],
            "active": lists["active"],
            "dead": lists["dead"],
            "done": list(self.world.done),
        }
        if self._bus:
            if bus_changed:
                state["streams"], state["pel"], state["failures"] = self._bus_state()
            else:
                state["streams"] = self._state.get("streams", {})
                state["pel"] = self._state.get("pel", {})
                state["failures"] = self._state.get("failures", {})
        self._state = state

    def _bus_state(self) -> tuple[dict[str, int], dict[str, int], dict[str, Failure]]:
        """The streams' lengths, the groups' pending counts and the failure counters."""
        streams: dict[str, int] = {}
        pel: dict[str, int] = {}
        for key in sorted(self._bus_keys):
            value = self.server.lookup(key)
            name = key.decode()
            if isinstance(value, Stream):
                streams[name] = len(value)
                for group_name, group in sorted(value.groups.items()):
                    pel[f"{name} {group_name.decode()}"] = len(group.pel)
            else:
                streams[name] = 0
        failures: dict[str, Failure] = {}
        for key in sorted(self.server.data):
            if b":failures:" in key and self.server.lookup(key) is not None:
                ttl = self.server.call("TTL", key)
                assert isinstance(ttl, int), "TTL replies a number"
                value = reply_to_json(self.server.call("GET", key))
                count = int(value) if isinstance(value, str) and value.isdigit() else value
                assert isinstance(count, int | str | None), "GET replies a string or nil"
                failures[key.decode()] = {"count": count, "ttl": ttl}
        return streams, pel, failures

    def trace(self) -> Trace:
        scenario = self.scenario
        return {
            "scenario": scenario.name,
            "description": scenario.description,
            "duration": scenario.duration,
            "keys": {
                "schedule": self.keys.schedule,
                "pending": self.keys.pending,
                "active": self.keys.active,
                "dead": self.keys.dead,
                "wake": self.keys.wake,
                "job_prefix": self.keys.job_prefix,
            },
            "processes": [_process(spec) for spec in scenario.processes],
            "jobs": [job.id for job in scenario.jobs],
            "due": {job.id: job.due for job in scenario.jobs if job.state == "schedule"},
            "initial": self._initial,
            "steps": self.steps,
            "events": self.events,
            "final": self._state,
            "choices": sorted(self.world.used & choices.CHOICE_IDS),
        }


def _empty_state() -> State:
    return {"schedule": [], "pending": [], "active": [], "dead": [], "done": []}


def _process(spec: ProcessSpec) -> Process:
    """A process of the trace: its name, its kind and its options, as JSON."""
    process: Process = {"name": spec.name, "kind": spec.kind}
    # The options are those its kind takes (scenario.PROCESS_OPTIONS), as Process names them.
    process.update(_plain_options(spec.options))  # type: ignore[typeddict-item]
    return process


def _plain_options(options: dict[str, Any]) -> dict[str, Any]:
    plain: dict[str, Any] = {}
    for name, value in options.items():
        if name == "ops":
            plain[name] = [
                {**op, "messages": [m.__dict__ for m in op["messages"]]} if "messages" in op else op
                for op in value
            ]
        elif name == "commands":
            plain[name] = [{"at": c["at"], "argv": list(c["argv"])} for c in value]
        else:
            plain[name] = value
    return plain


def _json_reply(reply: Any) -> Reply:
    if isinstance(reply, Replies):
        return [reply_to_json(item) for item in reply]
    return reply_to_json(reply)


def _reached(process: _Process, fault: FaultSpec) -> bool:
    """Whether the process has just sent its crash point: its `after`-th command, or the
    command a fault names (`XADD`: its first; `EXPIRE 2`: its second EXPIRE)."""
    if isinstance(fault.after, int):
        return process.sent == fault.after
    name, _, nth = fault.after.partition(" ")
    return process.last_sent == (name.upper(), int(nth or 1))


# --- overrides -----------------------------------------------------------------------------

OVERRIDE_FIELDS = ("processes", "wire", "reaper", "beat", "batch", "limit", "faults", "duration")


def apply_overrides(scenario: Scenario, overrides: dict[str, Any]) -> Scenario:
    """The scenario with a reader's controls applied (see `run_scenario` for the schema)."""
    reader = _Reader("overrides")
    reader.mapping(overrides, "", OVERRIDE_FIELDS)
    processes = list(scenario.processes)
    if "processes" in overrides:
        kinds = reader.items(overrides["processes"], "processes")
        for index, kind in enumerate(kinds):
            if kind not in SWEEP_KINDS:
                raise ScenarioError(
                    "overrides",
                    f"processes[{index}]",
                    f"'{kind}' is not a process a reader can switch on.",
                    f"Use kinds among {', '.join(SWEEP_KINDS)}.",
                )
        processes = [p for p in processes if p.kind not in SWEEP_KINDS or p.kind in kinds]
        for kind in kinds:
            if not any(p.kind == kind for p in processes):
                processes.append(_default_process(scenario, kind, len(processes)))
    updated = []
    for spec in processes:
        options = dict(spec.options)
        table = PROCESS_OPTIONS[spec.kind]
        for name, check in (
            ("wire", "wire"),
            ("reaper", "bool"),
            ("beat", "seconds"),
            ("batch", "count"),
            ("limit", "count"),
        ):
            if name in overrides and name in table:
                options[name] = reader.option(check, overrides[name], name)
        updated.append(ProcessSpec(spec.kind, spec.name, options))
    result = dataclasses.replace(scenario, processes=tuple(updated))
    if "duration" in overrides:
        duration = reader.number(overrides["duration"], "duration", 0, strict=True)
        result = dataclasses.replace(result, duration=min(duration, 3600.0))
    if "faults" in overrides:
        faults = reader.faults(overrides["faults"], result.client_names())
        result = dataclasses.replace(result, faults=faults)
    return result


def _default_process(scenario: Scenario, kind: str, index: int) -> ProcessSpec:
    data: dict[str, Any] = {"kind": kind, "name": f"{kind.lower()}"}
    if kind == "StreamConsumer":
        stream = next(iter(scenario.streams), None)
        if stream is None:
            raise ScenarioError(
                "overrides",
                "processes",
                "a StreamConsumer needs a stream, and this scenario has none.",
                "Switch on StreamConsumer only in a scenario with streams.",
            )
        data["stream"] = stream.name
        data["group"] = stream.groups[0] if stream.groups else "workers"
    taken = {spec.name for spec in scenario.processes}
    while data["name"] in taken:
        data["name"] += "-added"
    reader = _Reader("overrides")
    spec = reader.processes([data], scenario.lease, scenario.max_attempts)[0]
    return spec


def run_scenario(
    data: dict[str, Any], overrides: dict[str, Any] | None = None, source: str = "scenario"
) -> Trace:
    """Run a scenario and return its trace (JSON-serialisable: trafikist.model.trace).

    `data` is the scenario as a dict (the YAML or JSON file, parsed). `overrides` carries the
    controls a reader changed, every key optional:

        processes: [Consumer, Pump, ...]  which sweep processes send (kinds among Consumer,
                                          Metronome, Pump, Stalled, StreamConsumer); [] for none.
                                          A kind the scenario lacks is added with its defaults;
                                          Bus and Client processes always stay.
        wire: 4 | 6                       the wire of every EchoMQ process
        reaper: true | false              Consumer and Metronome recover with the reaper or not
        beat: seconds                     the beat of Consumer and Metronome (> 0)
        batch: n                          promotion batch of Consumer, Metronome and Pump (>= 1)
        limit: n                          sweep limit of Consumer, Metronome and Stalled (>= 1)
        faults: [{client, after, restart?}]  replaces the scenario's faults: crash client after
                                          its `after`-th command; restart seconds later if given
        duration: seconds                 how long to run (at most 3600)

    A bad scenario or override raises `ScenarioError` naming the field.
    """
    return Simulation(data, overrides, source=source).run()
