"""trafikey's five EMQ.* verbs, as the seed describes them, on the model's keyspace.

Each verb reads the server's clock once, when the call arrives, and reads, checks, writes and
replies inside one call: nothing in the module waits, ticks or runs between calls. Argument
layouts, reply shapes and error texts the seed does not give are the model's own (see
`choices.py`).
"""

from __future__ import annotations

from trafikist.model import choices
from trafikist.model.command import Block, Client, Keyspace
from trafikist.model.commands import command_table
from trafikist.model.errors import ReplyError
from trafikist.model.replies import Reply
from trafikist.model.server import Server, command_from_row
from trafikist.model.values import HashValue, ListValue, Stream, ZSet, parse_int

LANE_PREFIX = choices.LANE_ROW_PREFIX.encode()
WAKE_TOKEN = choices.WAKE_TOKEN.encode()


def _positive(raw: bytes, what: str) -> int:
    error = ReplyError(f"ERR {what} must be a positive integer")
    value = parse_int(raw, error)
    if value <= 0:
        raise error
    return value


def _numkeys(argv: list[bytes], verb: str, expected: int, names: str) -> None:
    # The registry's rows give every verb `keys: EVAL_KEYS`: numkeys, then the keys, as EVAL.
    # model's own choice: the number of keys and their order (choices "promote-args",
    # "stalled-args", "bus-verb-args").
    if argv[1] != str(expected).encode():
        raise ReplyError(f"ERR {verb} takes numkeys {expected} ({names})")


def is_lane_row(member: bytes) -> bool:
    return member.startswith(LANE_PREFIX)


def due_members(server: Keyspace, schedule: ZSet | None, now_ms: int) -> list[bytes]:
    if schedule is None:
        return []
    _, end = schedule.score_range(float("-inf"), False, now_ms, False)
    return [member for _, member in schedule.items[:end]]


def move_due(
    server: Keyspace, keys: list[bytes], now_ms: int, batch: int, lanes_allowed: bool, verb: str
) -> int:
    """Move due members of schedule to the tail of pending, at most batch; ring if any moved."""
    schedule_key, pending_key, wake_key = keys
    schedule = server.lookup(schedule_key, ZSet)
    server.lookup(pending_key, ListValue)  # WRONGTYPE before any write
    due = due_members(server, schedule, now_ms)
    if not due:
        return 0
    if not lanes_allowed:
        for member in due:
            if is_lane_row(member):
                # model's own choice: the error text of the refusal.
                raise ReplyError(
                    f"ERR {verb} refused: due lane row '{member.decode(errors='replace')}' "
                    "(lane rows need @promote)"
                )
    moving = due[:batch]
    assert schedule is not None
    server.dirty.add(schedule_key)
    for member in moving:
        schedule.remove(member)
    server.drop_if_empty(schedule_key, schedule)
    pending = server.lookup_write(pending_key, ListValue)
    pending.extend(moving)
    server.signal_ready(pending_key)
    # model's own choice: a promotion that moved members pushes one token on the wake list.
    server.call("LPUSH", wake_key, WAKE_TOKEN)
    return len(moving)


def sweep_stalled(
    server: Keyspace, keys: list[bytes], now_ms: int, limit: int, max_attempts: int, prefix: bytes
) -> list[int]:
    """The counted sweep: recover or dead-letter expired leases, at most limit; skip restarts."""
    active_key, pending_key, dead_key = keys
    active = server.lookup(active_key, ZSet)
    server.lookup(pending_key, ListValue)
    server.lookup(dead_key, ListValue)
    recovered = dead = 0
    if active is None:
        return [0, 0]
    _, end = active.score_range(float("-inf"), False, now_ms, False)
    for _, member in list(active.items[:end]):
        if recovered + dead >= limit:
            break
        job = server.lookup(prefix + member, HashValue)
        if job is not None and job.get(b"restart") == b"1":
            continue  # a restart expiry is exempt, and does not count toward limit
        attempts = 1 + (int(job[b"attempts"]) if job and b"attempts" in job else 0)
        server.lookup_write(prefix + member, HashValue)[b"attempts"] = str(attempts).encode()
        server.dirty.add(active_key)
        active.remove(member)
        target = dead_key if attempts > max_attempts else pending_key
        server.lookup_write(target, ListValue).append(member)
        server.signal_ready(target)
        if attempts > max_attempts:
            dead += 1
        else:
            recovered += 1
    server.drop_if_empty(active_key, active)
    return [recovered, dead]


def emq_promote(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    now_ms = server.now_ms  # the one clock reading of this call
    _numkeys(argv, "EMQ.PROMOTE", choices.PROMOTE_NUMKEYS, "schedule, pending, wake")
    batch = _positive(argv[5], "EMQ.PROMOTE batch")
    return move_due(server, argv[2:5], now_ms, batch, lanes_allowed=False, verb="EMQ.PROMOTE")


def emq_stalled_check(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    now_ms = server.now_ms
    _numkeys(argv, "EMQ.STALLED.CHECK", choices.STALLED_NUMKEYS, "active, pending, dead")
    limit = _positive(argv[5], "EMQ.STALLED.CHECK limit")
    max_attempts = parse_int(argv[6])
    return sweep_stalled(server, argv[2:5], now_ms, limit, max_attempts, argv[7])


def emq_append(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    """EMQ.APPEND 1 <stream> <count> (<pairs> <field> <value> ...) x count: whole or nothing."""
    _numkeys(argv, "EMQ.APPEND", 1, "stream")
    key = argv[2]
    count = _positive(argv[3], "EMQ.APPEND count")
    entries: list[list[bytes]] = []
    index = 4
    for number in range(1, count + 1):
        if index >= len(argv):
            raise ReplyError(f"ERR EMQ.APPEND entry {number} of {count} is missing")
        pairs = _positive(argv[index], f"EMQ.APPEND entry {number} pairs")
        fields = argv[index + 1 : index + 1 + 2 * pairs]
        if len(fields) < 2 * pairs:
            raise ReplyError(f"ERR EMQ.APPEND entry {number} declares {pairs} pairs")
        entries.append(fields)
        index += 1 + 2 * pairs
    if index != len(argv):
        raise ReplyError(f"ERR EMQ.APPEND has {len(argv) - index} arguments after the last entry")
    server.lookup(key, Stream)  # WRONGTYPE before any write: the batch is whole or nothing
    return [server.call("XADD", key, "*", *fields) for fields in entries]


def emq_publish(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    """EMQ.PUBLISH 1 <stream> <field> <value> ...: one envelope, after checking its fields."""
    _numkeys(argv, "EMQ.PUBLISH", 1, "stream")
    if len(argv) % 2 == 0:
        raise ReplyError("ERR wrong number of arguments for 'emq.publish' command")
    names = argv[3::2]
    expected = [name.encode() for name in choices.ENVELOPE_FIELDS]
    for name in names:
        if name not in expected:
            raise ReplyError(f"ERR EMQ.PUBLISH envelope has an unknown field '{name.decode()}'")
        if names.count(name) > 1:
            raise ReplyError(f"ERR EMQ.PUBLISH envelope repeats the field '{name.decode()}'")
    for name in expected:
        if name not in names:
            raise ReplyError(f"ERR EMQ.PUBLISH envelope lacks the field '{name.decode()}'")
    server.lookup(argv[2], Stream)
    return server.call("XADD", argv[2], "*", *argv[3:])


def emq_failures_incr(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    """EMQ.FAILURES.INCR 1 <key> <ttl seconds>: the count and its TTL in one turn."""
    _numkeys(argv, "EMQ.FAILURES.INCR", 1, "key")
    ttl = _positive(argv[3], "EMQ.FAILURES.INCR ttl")
    count = server.call("INCR", argv[2])
    if isinstance(count, ReplyError):
        raise count
    server.call("EXPIRE", argv[2], ttl)
    return count


HANDLERS = {
    "EMQ.PROMOTE": emq_promote,
    "EMQ.STALLED.CHECK": emq_stalled_check,
    "EMQ.APPEND": emq_append,
    "EMQ.PUBLISH": emq_publish,
    "EMQ.FAILURES.INCR": emq_failures_incr,
}


def load(server: Server) -> None:
    """Load the module: register each verb of the command table that the model implements (a
    real trafikey checkout registers more rows than the model has handlers for)."""
    for name, row in command_table().items():
        if name in HANDLERS:
            server.add_command(command_from_row(name, row, HANDLERS[name], source="trafikey"))
