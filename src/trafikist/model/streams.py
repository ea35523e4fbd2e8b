"""Valkey's stream commands on the model's keyspace: the durable tier of the bus.

XADD, XLEN, XRANGE, XTRIM, XGROUP CREATE/DESTROY, XREADGROUP, XACK, XPENDING and XAUTOCLAIM,
with their argument checks in Valkey's order. Approximate trimming (`~`) trims nothing in the
model: Valkey removes only whole nodes of up to 100 entries (a documented difference).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from trafikist.model.command import Block, Client, CommandTable, Keyspace
from trafikist.model.errors import INVALID_STREAM_ID, ReplyError, syntax_error
from trafikist.model.replies import OK, Reply
from trafikist.model.values import (
    INT64_MAX,
    UINT64_MAX,
    Stream,
    StreamGroup,
    format_id,
    parse_int,
)

StreamId = tuple[int, int]
MAX_ID: StreamId = (UINT64_MAX, UINT64_MAX)
_ULL = re.compile(rb"[ \t\n\v\f\r]*\+?[0-9]+")

COMMANDS = CommandTable()
command = COMMANDS.command


def _parse_ull(raw: bytes) -> int | None:
    if not _ULL.fullmatch(raw):
        return None
    value = int(raw)
    return value if value <= UINT64_MAX else None


def parse_id(
    raw: bytes,
    missing_seq: int = 0,
    strict: bool = True,
    allow_exclusive: bool = False,
    allow_star_seq: bool = False,
) -> tuple[StreamId, bool, bool]:
    """(id, exclusive, seq_given) from '-', '+', 'ms', 'ms-seq', '(ms-seq', 'ms-*'."""
    exclusive = allow_exclusive and len(raw) > 1 and raw[:1] == b"("
    if exclusive:
        raw = raw[1:]
    if len(raw) > 127:
        raise INVALID_STREAM_ID
    if raw in (b"-", b"+"):
        if strict or exclusive:
            raise INVALID_STREAM_ID
        return ((0, 0) if raw == b"-" else MAX_ID), exclusive, True
    ms_raw, dash, seq_raw = raw.partition(b"-")
    ms = _parse_ull(ms_raw)
    if ms is None:
        raise INVALID_STREAM_ID
    if not dash:
        return (ms, missing_seq), exclusive, True
    if allow_star_seq and seq_raw == b"*":
        return (ms, 0), exclusive, False
    seq = _parse_ull(seq_raw)
    if seq is None:
        raise INVALID_STREAM_ID
    return (ms, seq), exclusive, True


def _next_id(entry_id: StreamId) -> StreamId | None:
    ms, seq = entry_id
    if seq < UINT64_MAX:
        return ms, seq + 1
    return (ms + 1, 0) if ms < UINT64_MAX else None


def _previous_id(entry_id: StreamId) -> StreamId | None:
    ms, seq = entry_id
    if seq > 0:
        return ms, seq - 1
    return (ms - 1, UINT64_MAX) if ms > 0 else None


def _entry_reply(entry_id: StreamId, fields: list[bytes] | None) -> list[Any]:
    return [format_id(entry_id), None if fields is None else list(fields)]


# --- XADD and XTRIM ------------------------------------------------------------------------


class _TrimArgs:
    __slots__ = ("approx", "limit", "maxlen", "minid", "strategy")

    def __init__(self) -> None:
        self.strategy: str | None = None
        self.approx = False
        self.maxlen = 0
        self.minid: StreamId = (0, 0)
        self.limit = 0


def _parse_trim(argv: list[bytes], start: int, xadd: bool) -> tuple[_TrimArgs, int, dict[str, Any]]:
    """Valkey's streamParseAddOrTrimArgsOrReply: returns the options and where the ID is."""
    args = _TrimArgs()
    extra: dict[str, Any] = {"id": None, "seq_given": True, "nomkstream": False}
    limit_given = False
    index = start
    while index < len(argv):
        more = len(argv) - 1 - index
        option = argv[index]
        lowered = option.lower()
        if xadd and option == b"*":
            break
        if lowered in (b"maxlen", b"minid") and more:
            if args.strategy is not None:
                raise ReplyError(
                    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
                )
            following = argv[index + 1]
            args.approx = False
            if more >= 2 and following in (b"~", b"="):
                args.approx = following == b"~"
                index += 1
            if lowered == b"maxlen":
                args.maxlen = parse_int(argv[index + 1])
                if args.maxlen < 0:
                    raise ReplyError("ERR The MAXLEN argument must be >= 0.")
                args.strategy = "maxlen"
            else:
                args.minid = parse_id(argv[index + 1])[0]
                args.strategy = "minid"
            index += 1
        elif lowered == b"limit" and more:
            args.limit = parse_int(argv[index + 1])
            if args.limit < 0:
                raise ReplyError("ERR The LIMIT argument must be >= 0.")
            limit_given = True
            index += 1
        elif xadd and lowered == b"nomkstream":
            extra["nomkstream"] = True
        elif xadd:
            entry_id, _, seq_given = parse_id(option, allow_star_seq=True)
            extra["id"], extra["seq_given"] = entry_id, seq_given
            break
        else:
            raise syntax_error()
        index += 1
    if args.limit and args.strategy is None:
        raise ReplyError(
            "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
        )
    if not xadd and args.strategy is None:
        raise ReplyError("ERR syntax error, XTRIM must be called with a trimming strategy")
    if not args.approx and limit_given:
        raise ReplyError("ERR syntax error, LIMIT cannot be used without the special ~ option")
    return args, index, extra


def _trim(stream: Stream, args: _TrimArgs) -> int:
    if args.strategy is None or args.approx:
        return 0  # `~` removes whole nodes in Valkey; the model keeps them (documented)
    if args.strategy == "maxlen":
        drop = max(0, len(stream.entries) - args.maxlen)
    else:
        drop = stream.index_after(args.minid, inclusive=True)
    del stream.entries[:drop]
    return drop


@command("xadd", -5, "write denyoom fast", "write stream fast")
def xadd(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    args, index, extra = _parse_trim(argv, 2, xadd=True)
    field_pos = index + 1
    fields = argv[field_pos:]
    if len(fields) < 2 or len(fields) % 2:
        raise ReplyError("ERR wrong number of arguments for 'xadd' command")
    wanted: StreamId | None = extra["id"]
    if wanted == (0, 0) and extra["seq_given"]:
        raise ReplyError("ERR The ID specified in XADD must be greater than 0-0")
    key = argv[1]
    stream = server.lookup(key, Stream)
    if stream is None:
        if extra["nomkstream"]:
            return None
        stream = server.lookup_write(key, Stream)
    server.dirty.add(key)
    last = stream.last_id
    if last == MAX_ID:
        raise ReplyError(
            "ERR The stream has exhausted the last possible ID, unable to add more items"
        )
    if wanted is None:
        new_id = (server.now_ms, 0) if server.now_ms > last[0] else (last[0], last[1] + 1)
    elif not extra["seq_given"]:
        if wanted[0] == last[0]:
            if last[1] == UINT64_MAX:
                raise _id_too_small()
            new_id = (wanted[0], last[1] + 1)
        else:
            new_id = (wanted[0], 0)
    else:
        new_id = wanted
    if new_id <= last:
        raise _id_too_small()
    stream.entries.append((new_id, list(fields)))
    stream.last_id = new_id
    stream.entries_added += 1
    server.signal_ready(key)
    _trim(stream, args)
    return format_id(new_id)


def _id_too_small() -> ReplyError:
    return ReplyError(
        "ERR The ID specified in XADD is equal or smaller than the target stream top item"
    )


@command("xtrim", -4, "write", "write stream slow")
def xtrim(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    args, _, _ = _parse_trim(argv, 2, xadd=False)
    stream = server.lookup(argv[1], Stream)
    if stream is None:
        return 0
    server.dirty.add(argv[1])
    return _trim(stream, args)


def _interval_start(arg: bytes) -> StreamId:
    """An interval's first ID: `-`, an ID, or `(ID` for the one after it (XRANGE's rules)."""
    return _interval_bound(arg, 0, _next_id, "start")


def _interval_end(arg: bytes) -> StreamId:
    """An interval's last ID: `+`, an ID, or `(ID` for the one before it."""
    return _interval_bound(arg, UINT64_MAX, _previous_id, "end")


def _interval_bound(
    arg: bytes, missing_seq: int, step: Callable[[StreamId], StreamId | None], which: str
) -> StreamId:
    bound, exclusive, _ = parse_id(arg, missing_seq, strict=False, allow_exclusive=True)
    if not exclusive:
        return bound
    beside = step(bound)
    if beside is None:
        raise ReplyError(f"ERR invalid {which} ID for the interval")
    return beside


@command("xlen", 2, "readonly fast", "read stream fast")
def xlen(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    stream = server.lookup(argv[1], Stream)
    return 0 if stream is None else len(stream)


@command("xrange", -4, "readonly", "read stream slow")
def xrange(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    start = _interval_start(argv[2])
    end = _interval_end(argv[3])
    count = -1
    index = 4
    while index < len(argv):
        if argv[index].lower() == b"count" and index + 1 < len(argv):
            count = max(0, parse_int(argv[index + 1]))
            index += 2
        else:
            raise syntax_error()
    stream = server.lookup(argv[1], Stream)
    if stream is None:
        return []
    if count == 0:
        return None
    reply: list[Any] = []
    for entry_id, fields in stream.entries[stream.index_after(start, inclusive=True) :]:
        if entry_id > end or len(reply) == count:
            break
        reply.append(_entry_reply(entry_id, fields))
    return reply


# --- consumer groups -----------------------------------------------------------------------


def _subcommand_syntax_error(argv: list[bytes]) -> ReplyError:
    subcommand = argv[1].decode(errors="replace")
    command = argv[0].decode(errors="replace").upper()
    return ReplyError(
        "ERR unknown subcommand or wrong number of arguments for "
        f"'{subcommand}'. Try {command} HELP."
    )


COMMANDS.container("xgroup", -2, "", "slow")


@command("xgroup|create", -5, "write denyoom", "write stream slow")
def xgroup_create(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    if len(argv) > 8:
        raise _subcommand_syntax_error(argv)
    mkstream = False
    entries_read: int | None = None
    index = 5
    while index < len(argv):
        option = argv[index].lower()
        if option == b"mkstream":
            mkstream = True
            index += 1
        elif option == b"entriesread" and index + 1 < len(argv):
            entries_read = parse_int(argv[index + 1])
            if entries_read < 0 and entries_read != -1:
                raise ReplyError("ERR value for ENTRIESREAD must be positive or -1")
            index += 2
        else:
            raise _subcommand_syntax_error(argv)
    key, name = argv[2], argv[3]
    stream = server.lookup(key, Stream)
    if stream is None and not mkstream:
        raise ReplyError(
            "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
            "want to use the MKSTREAM option to create an empty stream automatically."
        )
    if argv[4] == b"$":
        start = stream.last_id if stream is not None else (0, 0)
    else:
        start = parse_id(argv[4])[0]
    if stream is None:
        stream = server.lookup_write(key, Stream)
    if name in stream.groups:
        raise ReplyError("BUSYGROUP Consumer Group name already exists")
    server.dirty.add(key)
    group = StreamGroup(start)
    if entries_read is not None:
        group.entries_read = entries_read
    stream.groups[name] = group
    return OK


@command("xgroup|destroy", 4, "write", "write stream slow")
def xgroup_destroy(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    stream = server.lookup(argv[2], Stream)
    if stream is None:
        raise ReplyError(
            "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
            "want to use the MKSTREAM option to create an empty stream automatically."
        )
    server.dirty.add(argv[2])
    return 1 if stream.groups.pop(argv[3], None) is not None else 0


def _nogroup(key: bytes, group: bytes, suffix: str = "") -> ReplyError:
    return ReplyError(
        f"NOGROUP No such key '{key.decode(errors='replace')}' or consumer group "
        f"'{group.decode(errors='replace')}'{suffix}"
    )


def _deliver_new(
    server: Keyspace, stream: Stream, group: StreamGroup, consumer: bytes, count: int, noack: bool
) -> list[Any]:
    entries: list[Any] = []
    for entry_id, fields in stream.entries[stream.index_after(group.last_id, inclusive=False) :]:
        if count and len(entries) == count:
            break
        group.last_id = entry_id
        group.entries_read += 1
        if not noack:
            group.pel[entry_id] = [consumer, server.now_ms, 1]
        entries.append(_entry_reply(entry_id, fields))
    return entries


def _deliver_history(
    server: Keyspace,
    stream: Stream,
    group: StreamGroup,
    consumer: bytes,
    after: StreamId,
    count: int,
) -> list[Any]:
    entries: list[Any] = []
    for entry_id in group.sorted_pel():
        if entry_id <= after:
            continue
        nack = group.pel[entry_id]
        if nack[0] != consumer:
            continue
        if count and len(entries) == count:
            break
        nack[1] = server.now_ms
        nack[2] += 1
        entries.append(_entry_reply(entry_id, stream.get(entry_id)))
    return entries


@command("xreadgroup", -7, "write blocking movablekeys", "write stream slow blocking")
def xreadgroup(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    timeout_ms: int | None = None
    count = 0
    streams_at = 0
    group_name = consumer = None
    noack = False
    index = 1
    while index < len(argv):
        more = len(argv) - index - 1
        option = argv[index].lower()
        if option == b"block" and more:
            index += 1
            timeout_ms = parse_int(
                argv[index], ReplyError("ERR timeout is not an integer or out of range")
            )
            if timeout_ms < 0:
                raise ReplyError("ERR timeout is negative")
        elif option == b"count" and more:
            index += 1
            count = max(0, parse_int(argv[index]))
        elif option == b"streams" and more:
            streams_at = index + 1
            if (len(argv) - streams_at) % 2:
                raise ReplyError(
                    "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or "
                    "'>' must be specified."
                )
            break
        elif option == b"group" and more >= 2:
            group_name, consumer = argv[index + 1], argv[index + 2]
            index += 2
        elif option == b"noack":
            noack = True
        else:
            raise syntax_error()
        index += 1
    if not streams_at:
        raise syntax_error()
    if group_name is None or consumer is None:
        raise ReplyError("ERR Missing GROUP option for XREADGROUP")
    half = (len(argv) - streams_at) // 2
    keys, raw_ids = argv[streams_at : streams_at + half], argv[streams_at + half :]
    targets: list[tuple[bytes, Stream, StreamGroup, StreamId | None]] = []
    for key, raw in zip(keys, raw_ids, strict=True):
        stream = server.lookup(key, Stream)
        group = None if stream is None else stream.groups.get(group_name)
        if stream is None or group is None:
            raise _nogroup(key, group_name, " in XREADGROUP with GROUP option")
        if raw == b"$":
            raise ReplyError(
                "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the "
                "history of this consumer by specifying a proper ID, or use the > ID to get new "
                "messages. The $ ID would just return an empty result set."
            )
        after = None if raw == b">" else parse_id(raw)[0]
        targets.append((key, stream, group, after))

    def serve() -> Reply:
        reply: list[Reply] = []
        for key, stream, group, after in targets:
            group.consumers[consumer] = server.now_ms
            if after is not None:
                history = _deliver_history(server, stream, group, consumer, after, count)
                reply.append([key, history])
            elif stream.entries and stream.entries[-1][0] > group.last_id:
                server.dirty.add(key)
                reply.append([key, _deliver_new(server, stream, group, consumer, count, noack)])
        return reply or None

    reply = serve()
    if reply is not None or timeout_ms is None:
        return reply
    return Block(list(keys), timeout_ms, serve)


@command("xack", -4, "write fast", "write stream fast")
def xack(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    stream = server.lookup(argv[1], Stream)
    group = None if stream is None else stream.groups.get(argv[2])
    if group is None:
        return 0
    ids = [parse_id(raw)[0] for raw in argv[3:]]
    server.dirty.add(argv[1])
    return sum(1 for entry_id in dict.fromkeys(ids) if group.pel.pop(entry_id, None) is not None)


@command("xpending", -3, "readonly", "read stream slow")
def xpending(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    summary = len(argv) == 3
    if not summary and not 6 <= len(argv) <= 9:
        raise syntax_error()
    min_idle = count = 0
    consumer = None
    start, end = (0, 0), MAX_ID
    if not summary:
        first = 3
        if argv[3].lower() == b"idle":
            min_idle = parse_int(argv[4])
            if len(argv) < 8:
                raise syntax_error()
            first += 2
        count = max(0, parse_int(argv[first + 2]))
        start = _interval_start(argv[first])
        end = _interval_end(argv[first + 1])
        if first + 3 < len(argv):
            consumer = argv[first + 3]
    stream = server.lookup(argv[1], Stream)
    group = None if stream is None else stream.groups.get(argv[2])
    if group is None:
        raise _nogroup(argv[1], argv[2])
    pending = group.sorted_pel()
    if summary:
        if not pending:
            return [0, None, None, None]
        owners: dict[bytes, int] = {}
        for entry_id in pending:
            owner = group.pel[entry_id][0]
            owners[owner] = owners.get(owner, 0) + 1
        return [
            len(pending),
            format_id(pending[0]),
            format_id(pending[-1]),
            [[name, str(owners[name]).encode()] for name in sorted(owners)],
        ]
    if consumer is not None and consumer not in group.consumers:
        return []
    reply = []
    for entry_id in pending:
        if not count or entry_id > end:
            break
        if entry_id < start:
            continue
        owner, delivered_at, deliveries = group.pel[entry_id]
        if consumer is not None and owner != consumer:
            continue
        idle = max(0, server.now_ms - delivered_at)
        if min_idle and idle < min_idle:
            continue
        count -= 1
        reply.append([format_id(entry_id), owner, idle, deliveries])
    return reply


@command("xautoclaim", -6, "write fast", "write stream fast")
def xautoclaim(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    min_idle = max(
        0, parse_int(argv[4], ReplyError("ERR Invalid min-idle-time argument for XAUTOCLAIM"))
    )
    start = _interval_start(argv[5])
    count, justid = 100, False
    index = 6
    while index < len(argv):
        option = argv[index].lower()
        if option == b"count" and index + 1 < len(argv):
            count_error = ReplyError("ERR COUNT must be > 0")
            count = parse_int(argv[index + 1], count_error)
            if not 1 <= count <= INT64_MAX // 16:
                raise count_error
            index += 1
        elif option == b"justid":
            justid = True
        else:
            raise syntax_error()
        index += 1
    key, name, consumer = argv[1], argv[2], argv[3]
    stream = server.lookup(key, Stream)
    group = None if stream is None else stream.groups.get(name)
    if stream is None or group is None:
        raise _nogroup(key, name)
    server.dirty.add(key)
    group.consumers[consumer] = server.now_ms
    candidates = [entry_id for entry_id in group.sorted_pel() if entry_id >= start]
    attempts = count * 10
    claimed: list[Any] = []
    deleted: list[bytes] = []
    position = 0
    while attempts and count and position < len(candidates):
        attempts -= 1
        entry_id = candidates[position]
        position += 1
        fields = stream.get(entry_id)
        if fields is None:
            del group.pel[entry_id]
            deleted.append(format_id(entry_id))
            count -= 1
            continue
        nack = group.pel[entry_id]
        if min_idle and server.now_ms - nack[1] < min_idle:
            continue
        nack[0] = consumer
        nack[1] = server.now_ms
        if not justid:
            nack[2] += 1
        claimed.append(format_id(entry_id) if justid else _entry_reply(entry_id, fields))
        count -= 1
    cursor = candidates[position] if position < len(candidates) else (0, 0)
    return [format_id(cursor), claimed, deleted]


__all__ = ["COMMANDS"]
