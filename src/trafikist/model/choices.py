"""Every value the model had to choose because the seed does not give it, in one place.

The seed (the published module 04 page) states what trafikey and EchoMQ do; it does not give key
names, argument orders, envelope fields, reply shapes, defaults of most options, or whether a verb
rings the wake list. The model picks each here, and `MODEL_CHOICES` says so in words that a page
can show to readers. A trace lists the ids of the choices its run relied on.
"""

from __future__ import annotations

from typing import NamedTuple


class Choice(NamedTuple):
    id: str
    text: str


# --- keys -------------------------------------------------------------------------------------

# model's own choice: the queue's keys are `<queue>:schedule` (sorted set scored by due time in
# ms), `<queue>:pending` (list, head first), `<queue>:active` (sorted set scored by lease expiry
# in ms), `<queue>:dead` (list), `<queue>:wake` (the wake list) and one hash `<queue>:job:<id>`
# per job.
SCHEDULE_KEY = "{queue}:schedule"
PENDING_KEY = "{queue}:pending"
ACTIVE_KEY = "{queue}:active"
DEAD_KEY = "{queue}:dead"
WAKE_KEY = "{queue}:wake"
JOB_KEY_PREFIX = "{queue}:job:"
DEFAULT_QUEUE = "q"

# model's own choice: a lane row in schedule is the member `lane:<lane>:<job id>`; any other
# member is a flat row.
LANE_ROW_PREFIX = "lane:"

# model's own choice: the wake token one push leaves on the wake list.
WAKE_TOKEN = "1"

# --- verbs --------------------------------------------------------------------------------------

# model's own choice: EMQ.PROMOTE numkeys=3 <schedule> <pending> <wake> <batch> (6 arguments,
# the seed's arity), replying the count moved, and ringing the wake list once when it moved any.
PROMOTE_NUMKEYS = 3
# model's own choice: EMQ.STALLED.CHECK numkeys=3 <active> <pending> <dead> <limit>
# <max-attempts> <job-key-prefix> (8 arguments, the seed's arity), replying
# [recovered, dead-lettered]; it names no wake list, so it never rings.
STALLED_NUMKEYS = 3

# model's own choice: the envelope is three fields, id, type and data, in that order.
ENVELOPE_FIELDS = ("id", "type", "data")
# model's own choice: the failure count of a stream entry lives at
# `<stream>:failures:<entry id>`.
FAILURES_KEY = "{stream}:failures:{entry}"
# model's own choice: a dead-letter entry is the source entry's fields, then source_id and
# failures.
DEAD_STREAM = "{stream}:dead"

# --- library defaults ---------------------------------------------------------------------------

BEAT_SECONDS = 1.0  # the seed: "one second by default"
PROMOTE_BATCH = 100  # the seed: "up to 100 members a call by default"
# model's own choice: the remaining defaults.
STALLED_LIMIT = 100
MAX_ATTEMPTS = 3
LEASE_SECONDS = 30.0
PUMP_INTERVAL = 1.0
STALLED_INTERVAL = 5.0
BACKOFF_MAX = 30.0
METRONOME_POOL = 2
WORK_SECONDS = 0.2
STREAM_COUNT = 10
STREAM_BLOCK = 1.0
STREAM_MIN_IDLE = 5.0
STREAM_MAX_FAILURES = 3
FAILURE_TTL = 60

# --- the words a reader sees ---------------------------------------------------------------------

MODEL_CHOICES: tuple[Choice, ...] = (
    Choice(
        "keys",
        "Key names: <queue>:schedule, <queue>:pending, <queue>:active, <queue>:dead, the wake "
        "list <queue>:wake and one hash <queue>:job:<id> per job. Module 04 names schedule, "
        "pending, active and the wake list, not their keys.",
    ),
    Choice(
        "scores",
        "schedule is scored by due time and active by lease expiry, both in milliseconds of "
        "the server's clock; a lease is due for recovery when its expiry is at or before now.",
    ),
    Choice(
        "lane-row",
        "A lane row in schedule is the member lane:<lane>:<job id>; every other member is flat.",
    ),
    Choice(
        "promote-args",
        "EMQ.PROMOTE takes numkeys 3, then schedule, pending and the wake list, then batch; it "
        "replies with the number of members it moved.",
    ),
    Choice(
        "promote-lane-check",
        "EMQ.PROMOTE refuses the whole call when any due member of schedule is a lane row, "
        "with the error text ERR EMQ.PROMOTE refused: due lane row '<member>' (lane rows need "
        "@promote).",
    ),
    Choice(
        "promote-rings",
        "A promotion (@promote or EMQ.PROMOTE) that moves one member or more pushes one token "
        "on the wake list, so it wakes one parked waiter.",
    ),
    Choice(
        "recovery-silent",
        "Recovery (@sweep_stalled, EMQ.STALLED.CHECK and the reaper) names no wake list and "
        "rings nobody: a parked waiter learns of recovered work at its timeout.",
    ),
    Choice(
        "wake-beat",
        "A parked consumer whose BLPOP returns, at a ring or at its timeout, starts its next "
        "beat at once: recover, promote, drain the lanes, park. The drain is its check: when it "
        "finds nothing, the consumer parks again.",
    ),
    Choice(
        "stalled-args",
        "EMQ.STALLED.CHECK takes numkeys 3, then active, pending and dead, then limit, "
        "max-attempts and the job hash prefix; it replies [recovered, dead-lettered]. "
        "@sweep_stalled takes the same keys and arguments and has the same effect.",
    ),
    Choice(
        "stalled-count",
        "The counted sweep adds 1 to a job's attempts; past max-attempts (3 by default) the job "
        "goes to dead, otherwise back to the tail of pending. A restart expiry (restart = 1 in "
        "the job hash) is skipped and does not count toward limit.",
    ),
    Choice(
        "reaper",
        "The reaper (Jobs.reap/2, script @reap) returns every expired lease to pending, restart "
        "expiries included, with no count, at most 100 a call. A consumer configured without "
        "the reaper recovers with the counted sweep (Stalled.check/3) on its beat instead.",
    ),
    Choice(
        "library-refusal",
        "On a wire: 6 connection the library itself refuses EchoMQ.Jobs.reap/2 and the lane "
        "claim, when the beat reaches them and before it sends anything: the server sees no "
        "command.",
    ),
    Choice(
        "claim",
        "The lane claim (script @claim) pops the head of pending and puts it in active with a "
        "lease of 30 seconds by default; a consumer works one job at a time and acknowledges it "
        "with ZREM on active.",
    ),
    Choice(
        "scripts",
        "Scripts are named in a trace by their name (@promote) where a client sends the "
        "script's SHA1 digest to EVALSHA; each runs as one atomic step.",
    ),
    Choice(
        "backoff",
        "When a beat's step is refused, the process waits one beat, then twice as long after "
        "each refusal in a row, at most 30 seconds, and starts the beat again.",
    ),
    Choice(
        "intervals",
        "EchoMQ.Pump ticks every second and EchoMQ.Stalled sweeps every 5 seconds, limit 100, "
        "unless the scenario says otherwise; EchoMQ.Metronome drives a pool of 2 by default.",
    ),
    Choice(
        "envelope",
        "An envelope is three stream fields, id, type and data, in that order. EMQ.PUBLISH "
        "refuses an entry that lacks one, repeats one or carries another.",
    ),
    Choice(
        "bus-verb-args",
        "Like the sweeps, the bus verbs take numkeys then their key. EMQ.APPEND 1 <stream> "
        "<count> then, per entry, <pairs> and its field-value pairs; it replies with the new "
        "IDs. EMQ.PUBLISH 1 <stream> <field> <value> ... replies with the new ID. "
        "EMQ.FAILURES.INCR 1 <key> <ttl seconds> replies with the new count.",
    ),
    Choice(
        "bus-verb-rows",
        "The rows of EMQ.APPEND (arity -4), EMQ.PUBLISH (arity -4) and EMQ.FAILURES.INCR "
        "(arity 4): flags write, ACL write plus stream or string. Module 04 gives none of "
        "their fields; the registry snapshot marks them as chosen.",
    ),
    Choice(
        "failures",
        "A stream entry's failure count is <stream>:failures:<entry id> with a TTL of 60 "
        "seconds; at 3 failures the consumer parks the entry on <stream>:dead, whose entry is "
        "the source fields followed by source_id and failures.",
    ),
    Choice(
        "stream-consumer",
        "EchoMQ.StreamConsumer's pass: XAUTOCLAIM (min idle 5 s, COUNT 10), then XREADGROUP "
        "(COUNT 10, BLOCK one second), then each entry is handled in turn.",
    ),
    Choice(
        "gate-list",
        "The load gate's list of host functions in the registry snapshot. Module 04 states the "
        "gate and that its list names no blocked-client, ready-signal or timer function; it "
        "gives none of the list's entries.",
    ),
    Choice(
        "scenario",
        "A scenario's values: its jobs, their ids and due times, its processes' names, "
        "intervals, beats, batches and limits, its faults and how long it runs. Module 04 "
        "gives none of them; each scenario file states its own.",
    ),
    Choice(
        "rtt",
        "A command reaches the server when its client sends it, and the reply reaches the "
        "client one virtual millisecond after the server served it; a pipeline's commands reach "
        "the server together, and a client that stops part-way through one has sent only the "
        "commands before the stop.",
    ),
    Choice(
        "work",
        "A job or a stream entry takes 0.2 virtual seconds of work unless the scenario says "
        "otherwise.",
    ),
)

CHOICE_IDS = frozenset(choice.id for choice in MODEL_CHOICES)


def choices_as_json() -> list[dict[str, str]]:
    return [{"id": choice.id, "text": choice.text} for choice in MODEL_CHOICES]
