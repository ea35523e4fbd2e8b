"""The scenario schema: what a scenario file may say, checked field by field.

A scenario gives the jobs with their states and due times, the streams and their messages, the
processes with their options and wires, the faults, and how long to run. `Scenario.from_dict`
checks every field and raises `ScenarioError` naming the file, the field path and the fix.
`docs/scenarios.md` is the authors' page for this schema.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from trafikist.model import choices
from trafikist.model.errors import ScenarioError

JOB_STATES = ("schedule", "pending", "active", "dead")
SWEEP_KINDS = ("Consumer", "Metronome", "Pump", "Stalled", "StreamConsumer")
PROCESS_KINDS = (*SWEEP_KINDS, "Bus", "Client")
BUS_OPS = ("publish", "append", "append_batch")
MAX_DURATION = 3600
# Caps that keep one run small enough to draw and to run in a page: a scenario shows one
# behaviour. A run that would pass them is refused, the cap named (docs/scenarios.md).
MAX_ITEMS = 1000  # jobs, messages, commands, faults: the items of any one list
MAX_PROCESSES = 50
MAX_POOL = 100  # a Metronome's consumers
MAX_COUNT = 1_000_000  # a batch, a limit, a count
MIN_SECONDS = 0.01  # a beat, an interval, a block: below it the steps of a run explode
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
# A fault's crash point by command: its first XADD, or its Nth (`EXPIRE 2`); a script by name.
CRASH_POINT = re.compile(r"^\s*@?[A-Za-z][\w.:-]*(?:\s+[1-9]\d*)?\s*$")

# Per kind: option -> (check, default). The check names a type: "seconds" (a number > 0),
# "seconds0" (>= 0), "count" (an integer > 0), "count0" (>= 0), "bool", "wire", "name".
_COMMON = {"wire": ("wire", 4), "start": ("seconds0", 0.0)}
_SWEEPS = {
    "beat": ("seconds", choices.BEAT_SECONDS),
    "reaper": ("bool", True),
    "batch": ("count", choices.PROMOTE_BATCH),
    "limit": ("count", choices.STALLED_LIMIT),
    "lease": ("seconds", None),  # None: the scenario's lease
    "max_attempts": ("count0", None),  # None: the scenario's max_attempts
}
PROCESS_OPTIONS: dict[str, dict[str, tuple[str, Any]]] = {
    "Consumer": {**_COMMON, **_SWEEPS},
    "Metronome": {**_COMMON, **_SWEEPS, "pool": ("pool", choices.METRONOME_POOL)},
    "Pump": {
        **_COMMON,
        "interval": ("seconds", choices.PUMP_INTERVAL),
        "batch": ("count", choices.PROMOTE_BATCH),
    },
    "Stalled": {
        **_COMMON,
        "interval": ("seconds", choices.STALLED_INTERVAL),
        "limit": ("count", choices.STALLED_LIMIT),
        "max_attempts": ("count0", None),
    },
    "StreamConsumer": {
        **_COMMON,
        "stream": ("name", None),
        "group": ("name", None),
        "count": ("count", choices.STREAM_COUNT),
        "block": ("seconds", choices.STREAM_BLOCK),
        "min_idle": ("seconds0", choices.STREAM_MIN_IDLE),
        "max_failures": ("count", choices.STREAM_MAX_FAILURES),
        "failure_ttl": ("count", choices.FAILURE_TTL),
        "dead": ("name", None),
        "work": ("seconds0", choices.WORK_SECONDS),
    },
    "Bus": {**_COMMON, "ops": ("list", None)},
    "Client": {"start": ("seconds0", 0.0), "commands": ("list", None), "acl": ("text", None)},
}
REQUIRED_OPTIONS = {"StreamConsumer": ("stream", "group"), "Bus": ("ops",), "Client": ("commands",)}


@dataclass(frozen=True)
class JobSpec:
    id: str
    state: str
    due: float | None = None
    lane: str | None = None
    work: float = choices.WORK_SECONDS
    restart: bool = False
    attempts: int = 0

    @property
    def member(self) -> str:
        if self.lane is None:
            return self.id
        return f"{choices.LANE_ROW_PREFIX}{self.lane}:{self.id}"


@dataclass(frozen=True)
class MessageSpec:
    id: str
    type: str = "event"
    data: str = ""
    fail: int = 0

    def fields(self) -> list[str]:
        values = {"id": self.id, "type": self.type, "data": self.data}
        return [part for name in choices.ENVELOPE_FIELDS for part in (name, values[name])]


@dataclass(frozen=True)
class StreamSpec:
    name: str
    groups: tuple[str, ...] = ()
    messages: tuple[MessageSpec, ...] = ()


@dataclass(frozen=True)
class ProcessSpec:
    kind: str
    name: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def wire(self) -> int:
        return int(self.options.get("wire", 4))


@dataclass(frozen=True)
class FaultSpec:
    client: str
    after: int | str  # its Nth command, or a command it names: "XADD", "EXPIRE 2" (its second)
    restart: float | None = None


@dataclass(frozen=True)
class Scenario:
    name: str
    duration: float
    description: str = ""
    queue: str = choices.DEFAULT_QUEUE
    lease: float = choices.LEASE_SECONDS
    max_attempts: int = choices.MAX_ATTEMPTS
    jobs: tuple[JobSpec, ...] = ()
    streams: tuple[StreamSpec, ...] = ()
    processes: tuple[ProcessSpec, ...] = ()
    faults: tuple[FaultSpec, ...] = ()
    source: str = "scenario"

    @classmethod
    def from_dict(cls, data: Any, source: str = "scenario") -> Scenario:
        return _Reader(source).scenario(data)

    def client_names(self) -> list[str]:
        names = []
        for process in self.processes:
            names.append(process.name)
            if process.kind == "Metronome":
                pool = process.options["pool"]
                names.extend(f"{process.name}.{number}" for number in range(1, pool + 1))
        return names


TOP_FIELDS = (
    "name",
    "description",
    "duration",
    "queue",
    "lease",
    "max_attempts",
    "jobs",
    "streams",
    "processes",
    "faults",
)


class _Reader:
    def __init__(self, source: str):
        self.source = source

    def fail(self, path: str, what: str, fix: str) -> ScenarioError:
        return ScenarioError(self.source, path, what, fix)

    def mapping(
        self, value: Any, path: str, allowed: tuple[str, ...] | list[str]
    ) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(
                path or "(top)",
                f"expected a mapping, got {describe_value(value)}.",
                "Write the fields as key: value lines.",
            )
        for key in value:
            if key not in allowed:
                raise self.fail(
                    _join(path, str(key)),
                    "is not a field here.",
                    f"Use one of: {', '.join(allowed)}.",
                )
        return value

    def items(self, value: Any, path: str, cap: int = MAX_ITEMS) -> list[Any]:
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(
                path,
                f"expected a list, got {describe_value(value)}.",
                "Write one item a line, each starting with '- '.",
            )
        if len(value) > cap:
            raise self.fail(
                path,
                f"holds {len(value)} items, more than the cap of {cap}.",
                "Shorten the list: a scenario shows one behaviour.",
            )
        return value

    def entries(
        self, value: Any, path: str, fields: tuple[str, ...]
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each item of the list at `path`, a mapping of `fields` only, with its own path
        (`jobs[2]`): the list is refused first, as a whole, then each item in turn."""
        for index, raw in enumerate(self.items(value, path)):
            here = f"{path}[{index}]"
            yield here, self.mapping(raw, here, fields)

    def text(self, value: Any, path: str, pattern: re.Pattern[str] | None = None) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(
                path,
                f"expected a non-empty string, got {describe_value(value)}.",
                "Write a name in quotes if it looks like a number.",
            )
        if pattern is not None and not pattern.match(value):
            raise self.fail(
                path,
                f"'{value}' is not a valid name.",
                "Use letters, digits and . _ : - only, starting with a letter or digit.",
            )
        return value

    def number(self, value: Any, path: str, minimum: float, strict: bool) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(
                path,
                f"expected a number of seconds, got {describe_value(value)}.",
                "Write a number such as 1 or 0.5.",
            )
        if not math.isfinite(value) or abs(value) > MAX_DURATION * 1000:
            raise self.fail(
                path, f"must be a finite number of seconds, got {value}.", "Write a number."
            )
        if value < minimum or (strict and value == minimum):
            bound = f"greater than {minimum:g}" if strict else f"at least {minimum:g}"
            raise self.fail(path, f"must be {bound}, got {value}.", f"Write a number {bound}.")
        return float(value)

    def integer(self, value: Any, path: str, minimum: int, maximum: int = MAX_COUNT) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(
                path,
                f"expected a whole number, got {describe_value(value)}.",
                "Write a whole number such as 3.",
            )
        if value < minimum:
            raise self.fail(
                path,
                f"must be at least {minimum}, got {value}.",
                f"Write a whole number of at least {minimum}.",
            )
        if value > maximum:
            raise self.fail(
                path,
                f"must be at most {maximum}, got {value}.",
                f"Write a whole number of at most {maximum}.",
            )
        return value

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(
                path,
                f"expected true or false, got {describe_value(value)}.",
                "Write true or false.",
            )
        return value

    def option(self, check: str, value: Any, path: str) -> Any:
        if check == "seconds":
            seconds = self.number(value, path, 0, strict=True)
            if seconds < MIN_SECONDS:
                raise self.fail(
                    path,
                    f"must be at least {MIN_SECONDS:g} s, got {seconds:g}.",
                    f"Write {MIN_SECONDS:g} or more: the model counts time in milliseconds, "
                    "and a shorter period floods the run.",
                )
            return seconds
        if check == "seconds0":
            return self.number(value, path, 0, strict=False)
        if check == "count":
            return self.integer(value, path, 1)
        if check == "count0":
            return self.integer(value, path, 0)
        if check == "pool":
            return self.integer(value, path, 1, MAX_POOL)
        if check == "bool":
            return self.boolean(value, path)
        if check == "wire":
            if value not in (4, 6) or isinstance(value, bool):
                raise self.fail(
                    path,
                    f"must be 4 or 6, got {value!r}.",
                    "Write wire: 4 (the library's scripts) or wire: 6 (the verbs).",
                )
            return value
        if check == "name":
            return self.text(value, path, NAME)
        if check == "text":
            return self.text(value, path)
        return value  # "list": checked by the caller

    # --- the parts -------------------------------------------------------------------------

    def scenario(self, data: Any) -> Scenario:
        data = self.mapping(data, "", TOP_FIELDS)
        for required in ("name", "duration"):
            if required not in data:
                raise self.fail(
                    required, "is missing.", f"Add '{required}:' at the top of the scenario."
                )
        name = self.text(data["name"], "name", NAME)
        duration = self.number(data["duration"], "duration", 0, strict=True)
        if duration > MAX_DURATION:
            raise self.fail(
                "duration",
                f"must be at most {MAX_DURATION} seconds, got {duration:g}.",
                "Shorten the run; a scenario shows one behaviour.",
            )
        description = data.get("description", "")
        if not isinstance(description, str):
            raise self.fail("description", "expected text.", "Write the description as text.")
        queue = self.text(data.get("queue", choices.DEFAULT_QUEUE), "queue", NAME)
        lease = self.number(data.get("lease", choices.LEASE_SECONDS), "lease", 0, strict=True)
        max_attempts = self.integer(
            data.get("max_attempts", choices.MAX_ATTEMPTS), "max_attempts", 0
        )
        jobs = self.jobs(data.get("jobs"), lease)
        streams = self.streams(data.get("streams"))
        processes = self.processes(data.get("processes"), lease, max_attempts)
        scenario = Scenario(
            name=name,
            duration=duration,
            description=description,
            queue=queue,
            lease=lease,
            max_attempts=max_attempts,
            jobs=jobs,
            streams=streams,
            processes=processes,
            source=self.source,
        )
        faults = self.faults(data.get("faults"), scenario.client_names())
        return replace(scenario, faults=faults)

    def jobs(self, value: Any, lease: float) -> tuple[JobSpec, ...]:
        allowed = ("id", "state", "due", "lane", "work", "restart", "attempts")
        jobs: list[JobSpec] = []
        seen: set[str] = set()
        for path, raw in self.entries(value, "jobs", allowed):
            for required in ("id", "state"):
                if required not in raw:
                    raise self.fail(
                        f"{path}.{required}", "is missing.", "Give every job an id and a state."
                    )
            job_id = self.text(raw["id"], f"{path}.id", NAME)
            if job_id in seen:
                raise self.fail(
                    f"{path}.id", f"'{job_id}' is given twice.", "Give each job its own id."
                )
            seen.add(job_id)
            state = raw["state"]
            if state not in JOB_STATES:
                raise self.fail(
                    f"{path}.state",
                    f"must be one of {', '.join(JOB_STATES)}, got {state!r}.",
                    "Write the state the job starts in.",
                )
            due = None
            if "due" in raw:
                if state not in ("schedule", "active"):
                    raise self.fail(
                        f"{path}.due",
                        f"applies to schedule and active jobs, not {state}.",
                        "Remove due, or change the state.",
                    )
                due = self.number(raw["due"], f"{path}.due", 0, strict=False)
            elif state == "schedule":
                raise self.fail(
                    f"{path}.due",
                    "is missing: a scheduled job needs its due time.",
                    "Add due: <seconds from the start>.",
                )
            elif state == "active":
                due = lease
            if raw.get("restart") and state != "active":
                raise self.fail(
                    f"{path}.restart",
                    "applies to active jobs only.",
                    "Remove restart, or make the job active.",
                )
            jobs.append(
                JobSpec(
                    id=job_id,
                    state=state,
                    due=due,
                    lane=self.text(raw["lane"], f"{path}.lane", NAME) if "lane" in raw else None,
                    work=self.number(
                        raw.get("work", choices.WORK_SECONDS), f"{path}.work", 0, strict=False
                    ),
                    restart=self.boolean(raw.get("restart", False), f"{path}.restart"),
                    attempts=self.integer(raw.get("attempts", 0), f"{path}.attempts", 0),
                )
            )
        return tuple(jobs)

    def message(self, raw: Any, path: str) -> MessageSpec:
        raw = self.mapping(raw, path, ("id", "type", "data", "fail"))
        if "id" not in raw:
            raise self.fail(f"{path}.id", "is missing.", "Give every message an id.")
        data = raw.get("data", "")
        if not isinstance(data, str):
            raise self.fail(
                f"{path}.data",
                f"expected text, got {describe_value(data)}.",
                "Write the payload as a string.",
            )
        return MessageSpec(
            id=self.text(raw["id"], f"{path}.id", NAME),
            type=self.text(raw.get("type", "event"), f"{path}.type", NAME),
            data=data,
            fail=self.integer(raw.get("fail", 0), f"{path}.fail", 0),
        )

    def streams(self, value: Any) -> tuple[StreamSpec, ...]:
        streams = []
        for path, raw in self.entries(value, "streams", ("name", "groups", "messages")):
            if "name" not in raw:
                raise self.fail(f"{path}.name", "is missing.", "Name the stream's key.")
            groups = tuple(
                self.text(group, f"{path}.groups[{number}]", NAME)
                for number, group in enumerate(self.items(raw.get("groups"), f"{path}.groups"))
            )
            messages = tuple(
                self.message(message, f"{path}.messages[{number}]")
                for number, message in enumerate(
                    self.items(raw.get("messages"), f"{path}.messages")
                )
            )
            streams.append(
                StreamSpec(self.text(raw["name"], f"{path}.name", NAME), groups, messages)
            )
        return tuple(streams)

    def processes(self, value: Any, lease: float, max_attempts: int) -> tuple[ProcessSpec, ...]:
        processes: list[ProcessSpec] = []
        counts: dict[str, int] = {}
        names: set[str] = set()
        for index, raw in enumerate(self.items(value, "processes", MAX_PROCESSES)):
            path = f"processes[{index}]"
            if not isinstance(raw, dict) or "kind" not in raw:
                raise self.fail(
                    f"{path}.kind",
                    "is missing.",
                    f"Start each process with kind: one of {', '.join(PROCESS_KINDS)}.",
                )
            kind = raw["kind"]
            if kind not in PROCESS_KINDS:
                raise self.fail(
                    f"{path}.kind",
                    f"'{kind}' is not a process kind.",
                    f"Use one of {', '.join(PROCESS_KINDS)}.",
                )
            table = PROCESS_OPTIONS[kind]
            raw = self.mapping(raw, path, ("kind", "name", *table))
            counts[kind] = counts.get(kind, 0) + 1
            name = raw.get("name", f"{kind.lower()}{counts[kind]}")
            name = self.text(name, f"{path}.name", NAME)
            if name in names:
                raise self.fail(
                    f"{path}.name",
                    f"'{name}' names two processes.",
                    "Give each process its own name.",
                )
            names.add(name)
            for required in REQUIRED_OPTIONS.get(kind, ()):
                if required not in raw:
                    raise self.fail(
                        f"{path}.{required}",
                        f"is missing: a {kind} needs it.",
                        f"Add {required}: to the process.",
                    )
            options: dict[str, Any] = {}
            for option, (check, default) in table.items():
                if option in raw:
                    options[option] = self.option(check, raw[option], f"{path}.{option}")
                elif default is not None:
                    options[option] = default
            if "lease" in table:
                options.setdefault("lease", lease)
            if "max_attempts" in table:
                options.setdefault("max_attempts", max_attempts)
            if kind == "StreamConsumer":
                options.setdefault("dead", choices.DEAD_STREAM.format(stream=options["stream"]))
            if kind == "Bus":
                options["ops"] = self.bus_ops(raw["ops"], f"{path}.ops")
            if kind == "Client":
                options["commands"] = self.client_commands(raw["commands"], f"{path}.commands")
            processes.append(ProcessSpec(kind, name, options))
        return tuple(processes)

    def bus_ops(self, value: Any, path: str) -> tuple[dict[str, Any], ...]:
        ops = []
        fields = ("at", "op", "channel", "stream", "message", "messages")
        for here, raw in self.entries(value, path, fields):
            op = raw.get("op")
            if op not in BUS_OPS:
                raise self.fail(
                    f"{here}.op",
                    f"must be one of {', '.join(BUS_OPS)}, got {op!r}.",
                    "Say which bus operation the process sends.",
                )
            at = self.number(raw.get("at", 0), f"{here}.at", 0, strict=False)
            if op == "publish":
                if "channel" not in raw or "message" not in raw:
                    raise self.fail(
                        f"{here}",
                        "a publish needs channel and message.",
                        "Add channel: and message: (text).",
                    )
                message = raw["message"]
                if not isinstance(message, str):
                    raise self.fail(
                        f"{here}.message",
                        "a published message is text.",
                        "Write the message as a string.",
                    )
                ops.append(
                    {
                        "at": at,
                        "op": op,
                        "channel": self.text(raw["channel"], f"{here}.channel", NAME),
                        "message": message,
                    }
                )
                continue
            if "stream" not in raw:
                raise self.fail(f"{here}.stream", "is missing.", "Name the stream to append to.")
            stream = self.text(raw["stream"], f"{here}.stream", NAME)
            messages: tuple[MessageSpec, ...]
            if op == "append":
                if "message" not in raw:
                    raise self.fail(
                        f"{here}.message", "is missing.", "Give the envelope to append."
                    )
                messages = (self.message(raw["message"], f"{here}.message"),)
            else:
                listed = self.items(raw.get("messages"), f"{here}.messages")
                if not listed:
                    raise self.fail(f"{here}.messages", "is empty.", "List the batch's envelopes.")
                messages = tuple(
                    self.message(item, f"{here}.messages[{number}]")
                    for number, item in enumerate(listed)
                )
            ops.append({"at": at, "op": op, "stream": stream, "messages": messages})
        return tuple(sorted(ops, key=lambda op: op["at"]))

    def client_commands(self, value: Any, path: str) -> tuple[dict[str, Any], ...]:
        commands = []
        for here, raw in self.entries(value, path, ("at", "argv")):
            argv = raw.get("argv")
            if not isinstance(argv, list) or not argv:
                raise self.fail(
                    f"{here}.argv",
                    "expected a non-empty list of arguments.",
                    "Write the command as a list, e.g. [EMQ.PROMOTE, 3, ...].",
                )
            for number, arg in enumerate(argv):
                if isinstance(arg, bool) or not isinstance(arg, str | int | float):
                    raise self.fail(
                        f"{here}.argv[{number}]",
                        f"got {describe_value(arg)}.",
                        "Write each argument as a string or a number.",
                    )
            at = self.number(raw.get("at", 0), f"{here}.at", 0, strict=False)
            commands.append({"at": at, "argv": tuple(_arg_text(arg) for arg in argv)})
        return tuple(sorted(commands, key=lambda command: command["at"]))

    def faults(self, value: Any, clients: list[str]) -> tuple[FaultSpec, ...]:
        faults = []
        for path, raw in self.entries(value, "faults", ("client", "after", "restart")):
            for required in ("client", "after"):
                if required not in raw:
                    raise self.fail(
                        f"{path}.{required}",
                        "is missing.",
                        "A fault names a client and after how many of its commands it crashes.",
                    )
            client = self.text(raw["client"], f"{path}.client")
            if client not in clients:
                raise self.fail(
                    f"{path}.client",
                    f"no process is named '{client}'.",
                    f"Use one of: {', '.join(clients) or '(no processes)'}.",
                )
            restart = raw.get("restart")
            after = raw["after"]
            if isinstance(after, str):
                if not CRASH_POINT.match(after):
                    raise self.fail(
                        f"{path}.after",
                        f"'{after}' names no command.",
                        "Write a number of commands (3), a command (XADD) or its Nth time "
                        "(EXPIRE 2).",
                    )
                point: int | str = " ".join(after.split())
            else:
                point = self.integer(after, f"{path}.after", 0)
            faults.append(
                FaultSpec(
                    client=client,
                    after=point,
                    restart=None
                    if restart is None
                    else self.number(restart, f"{path}.restart", 0, strict=False),
                )
            )
        return tuple(faults)


def _arg_text(arg: str | int | float) -> str:
    if isinstance(arg, float) and arg.is_integer():
        return str(int(arg))
    return str(arg)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def describe_value(value: Any) -> str:
    """What a value read from YAML is, for an error that says what was found instead: the
    model's scenarios and the course's metadata say it in the same words."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a flag)"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"
