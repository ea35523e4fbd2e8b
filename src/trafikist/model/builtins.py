"""Valkey's built-in commands that the library and the module use, on the model's keyspace.

Each handler takes (server, connection, argv) and returns a RESP2-shaped reply, a `Block` when it
has to wait, or raises `ReplyError` with Valkey's own text. Argument checks run in Valkey's order,
so a bad call gets the same error from the model as from a real server.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import Any

from trafikist.model.command import Block, Client, CommandTable, Keyspace
from trafikist.model.errors import NOT_INTEGER, ReplyError, syntax_error
from trafikist.model.replies import OK, Replies, Reply, Status
from trafikist.model.values import (
    INT64_MAX,
    INT64_MIN,
    HashValue,
    ListValue,
    ZSet,
    format_float,
    parse_float,
    parse_int,
)

COMMANDS = CommandTable()
command = COMMANDS.command


def _expire_time_error(name: str) -> ReplyError:
    return ReplyError(f"ERR invalid expire time in '{name}' command")


# --- connection and keyspace ---------------------------------------------------------------


@command("ping", -1, "fast", "fast connection")
def ping(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    if len(argv) > 2:
        raise ReplyError("ERR wrong number of arguments for 'ping' command")
    if conn.subscriptions:
        return [b"pong", argv[1] if len(argv) == 2 else b""]
    return argv[1] if len(argv) == 2 else Status(b"PONG")


@command("echo", 2, "loading stale fast", "fast connection")
def echo(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    return argv[1]


@command("time", 1, "loading stale fast", "fast")
def time(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    seconds, millis = divmod(server.now_ms, 1000)
    return [str(seconds).encode(), str(millis * 1000).encode()]


@command("del", -2, "write", "keyspace write slow")
def delete(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    return sum(1 for key in argv[1:] if server.lookup(key) is not None and server.delete(key))


@command("exists", -2, "readonly fast", "keyspace read fast")
def exists(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    return sum(1 for key in argv[1:] if server.lookup(key) is not None)


@command("type", 2, "readonly fast", "keyspace read fast")
def type_(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    value = server.lookup(argv[1])
    if value is None:
        return Status(b"none")
    return Status(b"string" if isinstance(value, bytes) else value.type_name)


@command("keys", 2, "readonly", "keyspace read slow dangerous")
def keys(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    # Valkey replies in hash-table order; the model sorts (a documented difference).
    pattern = argv[1].decode("latin-1")
    return sorted(key for key in server.live_keys() if fnmatchcase(key.decode("latin-1"), pattern))


@command("dbsize", 1, "readonly fast", "keyspace read fast")
def dbsize(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    return len(server.live_keys())


@command("flushall", -1, "write", "keyspace write slow dangerous")
def flushall(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    server.dirty.update(server.data)
    server.data.clear()
    server.expires.clear()
    return OK


@command("expire", -3, "write fast", "keyspace write fast")
def expire(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    options = set()
    for raw in argv[3:]:
        option = raw.lower()
        if option not in (b"nx", b"xx", b"gt", b"lt"):
            raise ReplyError(f"ERR Unsupported option {raw.decode(errors='replace')}")
        options.add(option)
    if b"nx" in options and options & {b"xx", b"gt", b"lt"}:
        raise ReplyError("ERR NX and XX, GT or LT options at the same time are not compatible")
    if {b"gt", b"lt"} <= options:
        raise ReplyError("ERR GT and LT options at the same time are not compatible")
    seconds = parse_int(argv[2])
    if seconds > INT64_MAX // 1000 or seconds < -(INT64_MAX // 1000):
        raise _expire_time_error("expire")
    when = seconds * 1000
    if when > INT64_MAX - server.now_ms:
        raise _expire_time_error("expire")
    when += server.now_ms
    key = argv[1]
    if server.lookup(key) is None:
        return 0
    current = server.expires.get(key, -1)
    if b"nx" in options and current != -1:
        return 0
    if b"xx" in options and current == -1:
        return 0
    if b"gt" in options and (when <= current or current == -1):
        return 0
    if b"lt" in options and current != -1 and when >= current:
        return 0
    if when <= server.now_ms:
        server.delete(key)
    else:
        server.expires[key] = when
        server.dirty.add(key)
    return 1


def _ttl_ms(server: Keyspace, key: bytes) -> int:
    if server.lookup(key) is None:
        return -2
    when = server.expires.get(key)
    return -1 if when is None else max(0, when - server.now_ms)


@command("ttl", 2, "readonly fast", "keyspace read fast")
def ttl(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    remaining = _ttl_ms(server, argv[1])
    return remaining if remaining < 0 else (remaining + 500) // 1000


@command("pttl", 2, "readonly fast", "keyspace read fast")
def pttl(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    return _ttl_ms(server, argv[1])


# --- strings -------------------------------------------------------------------------------


@command("get", 2, "readonly fast", "read string fast")
def get(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    value: bytes | None = server.lookup(argv[1], bytes)
    return value


@command("set", -3, "write denyoom", "write string slow")
def set_(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    flags: set[bytes] = set()
    expire_arg: tuple[bytes, bytes] | None = None
    index = 3
    while index < len(argv):
        option = argv[index].upper()
        has_next = index + 1 < len(argv)
        if option == b"NX" and not flags & {b"XX"}:
            flags.add(b"NX")
        elif option == b"XX" and not flags & {b"NX"}:
            flags.add(b"XX")
        elif option == b"GET":
            flags.add(b"GET")
        elif option == b"KEEPTTL" and expire_arg is None:
            flags.add(b"KEEPTTL")
        elif (
            option in (b"EX", b"PX", b"EXAT", b"PXAT")
            and expire_arg is None
            and b"KEEPTTL" not in flags
            and has_next
        ):
            expire_arg = (option, argv[index + 1])
            index += 1
        else:
            raise syntax_error()
        index += 1
    when: int | None = None
    if expire_arg is not None:
        unit, raw = expire_arg
        amount = parse_int(raw)
        if amount <= 0 or (unit in (b"EX", b"EXAT") and amount > INT64_MAX // 1000):
            raise _expire_time_error("set")
        millis = amount * 1000 if unit in (b"EX", b"EXAT") else amount
        if unit in (b"EX", b"PX"):
            if millis > INT64_MAX - server.now_ms:
                raise _expire_time_error("set")
            millis += server.now_ms
        when = millis
    key = argv[1]
    old = server.lookup(key)
    if b"GET" in flags and old is not None and not isinstance(old, bytes):
        raise ReplyError("WRONGTYPE Operation against a key holding the wrong kind of value")
    if (b"NX" in flags and old is not None) or (b"XX" in flags and old is None):
        return old if b"GET" in flags else None
    server.store(key, argv[2], keep_ttl=b"KEEPTTL" in flags)
    if when is not None:
        server.expires[key] = when
    return old if b"GET" in flags else OK


@command("incr", 2, "write denyoom fast", "write string fast")
def incr(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    key = argv[1]
    old = server.lookup(key, bytes)
    value = 0 if old is None else parse_int(old)
    if value == INT64_MAX:
        raise ReplyError("ERR increment or decrement would overflow")
    value += 1
    server.store(key, str(value).encode(), keep_ttl=True)
    return value


# --- lists ---------------------------------------------------------------------------------


def _push(server: Keyspace, conn: Client, argv: list[bytes], *, left: bool) -> int:
    key = argv[1]
    items = server.lookup_write(key, ListValue)
    if left:
        items.extendleft(argv[2:])
    else:
        items.extend(argv[2:])
    server.signal_ready(key)
    return len(items)


for _name, _left in (("lpush", True), ("rpush", False)):  # one handler, two ends of the list
    command(_name, -3, "write denyoom fast", "write list fast")(
        functools.partial(_push, left=_left)
    )


def _pop(server: Keyspace, conn: Client, argv: list[bytes], *, left: bool) -> Any:
    if len(argv) > 3:
        raise ReplyError(
            f"ERR wrong number of arguments for '{'lpop' if left else 'rpop'}' command"
        )
    count: int | None = None
    if len(argv) == 3:
        count = parse_int(argv[2], ReplyError("ERR value is out of range, must be positive"))
        if count < 0:
            raise ReplyError("ERR value is out of range, must be positive")
    key = argv[1]
    items = server.lookup(key, ListValue)
    if items is None:
        return None
    server.dirty.add(key)
    pop = items.popleft if left else items.pop
    reply = pop() if count is None else [pop() for _ in range(min(count, len(items)))]
    server.drop_if_empty(key, items)
    return reply


for _name, _left in (("lpop", True), ("rpop", False)):
    command(_name, -2, "write fast", "write list fast")(functools.partial(_pop, left=_left))


def _index_range(start: int, stop: int, length: int) -> tuple[int, int] | None:
    """Valkey's LRANGE/ZRANGE index rule: negative from the end, clipped; None when empty."""
    if start < 0:
        start += length
    if stop < 0:
        stop += length
    start = max(start, 0)
    if start > stop or start >= length:
        return None
    return start, min(stop, length - 1)


@command("lrange", 4, "readonly", "read list slow")
def lrange(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    start, stop = parse_int(argv[2]), parse_int(argv[3])
    items = server.lookup(argv[1], ListValue)
    if items is None:
        return []
    bounds = _index_range(start, stop, len(items))
    if bounds is None:
        return []
    return list(items)[bounds[0] : bounds[1] + 1]


@command("llen", 2, "readonly fast", "read list fast")
def llen(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    items = server.lookup(argv[1], ListValue)
    return 0 if items is None else len(items)


@command("lrem", 4, "write", "write list slow")
def lrem(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    count = parse_int(argv[2])
    key, element = argv[1], argv[3]
    items = server.lookup(key, ListValue)
    if items is None:
        return 0
    values = list(items)
    positions = [i for i, value in enumerate(values) if value == element]
    if count > 0:
        positions = positions[:count]
    elif count < 0:
        positions = positions[count:]
    if positions:
        drop = set(positions)
        items.clear()
        items.extend(value for i, value in enumerate(values) if i not in drop)
        server.dirty.add(key)
        server.drop_if_empty(key, items)
    return len(positions)


_TIMEOUT_ERROR = ReplyError("ERR timeout is not a float or out of range")


def parse_timeout(raw: bytes) -> int:
    """Valkey's blocking timeout: seconds as a float, not negative; returned in ms."""
    seconds = parse_float(raw, _TIMEOUT_ERROR)
    if seconds < 0:
        raise ReplyError("ERR timeout is negative")
    if seconds == float("inf"):
        raise ReplyError("ERR timeout is out of range")
    return int(seconds * 1000)


@command("blpop", -3, "write blocking", "write list slow blocking")
def blpop(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    timeout_ms = parse_timeout(argv[-1])
    keys = argv[1:-1]

    def serve() -> Reply:
        for key in keys:
            items = server.lookup(key, ListValue)
            if items:
                server.dirty.add(key)
                value = items.popleft()
                server.drop_if_empty(key, items)
                return [key, value]
        return None

    reply = serve()
    if reply is not None:
        return reply
    return Block(keys, timeout_ms, serve)


# --- sorted sets ---------------------------------------------------------------------------

_SCORE_RANGE_ERROR = ReplyError("ERR min or max is not a float")
_LEX_RANGE_ERROR = ReplyError("ERR min or max not valid string range item")


@command("zadd", -4, "write denyoom fast", "write sortedset fast")
def zadd(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    index = 2
    options: set[bytes] = set()
    while index < len(argv) and argv[index].lower() in (b"nx", b"xx", b"ch", b"incr", b"gt", b"lt"):
        options.add(argv[index].lower())
        index += 1
    pairs = argv[index:]
    if not pairs or len(pairs) % 2:
        raise syntax_error()
    if {b"nx", b"xx"} <= options:
        raise ReplyError("ERR XX and NX options at the same time are not compatible")
    if len(options & {b"gt", b"lt", b"nx"}) > 1:
        raise ReplyError("ERR GT, LT, and/or NX options at the same time are not compatible")
    incr_mode = b"incr" in options
    if incr_mode and len(pairs) > 2:
        raise ReplyError("ERR INCR option supports a single increment-element pair")
    scores = [parse_float(pairs[i]) for i in range(0, len(pairs), 2)]
    key = argv[1]
    zset = server.lookup(key, ZSet)
    if zset is None:
        if b"xx" in options:
            return None if incr_mode else 0
        zset = server.lookup_write(key, ZSet)
    server.dirty.add(key)
    added = updated = 0
    reply_score: float | None = None
    for score, member in zip(scores, pairs[1::2], strict=True):
        current = zset.scores.get(member)
        if current is not None:
            if b"nx" in options:
                continue
            new = current + score if incr_mode else score
            if new != new:
                raise ReplyError("ERR resulting score is not a number (NaN)")
            if (b"gt" in options and new <= current) or (b"lt" in options and new >= current):
                continue
            reply_score = new
            if new != current:
                zset.add(member, new)
                updated += 1
        else:
            if b"xx" in options:
                continue
            zset.add(member, score)
            reply_score = score
            added += 1
    server.drop_if_empty(key, zset)
    if incr_mode:
        return None if reply_score is None else format_float(reply_score)
    return added + updated if b"ch" in options else added


def _remove_each(
    server: Keyspace, argv: list[bytes], kind: type, remove: Callable[[Any, bytes], bool]
) -> int:
    """ZREM's and HDEL's shape: remove each named item of the key's value; the count removed."""
    key = argv[1]
    found = server.lookup(key, kind)
    if found is None:
        return 0
    server.dirty.add(key)
    removed = sum(1 for item in argv[2:] if remove(found, item))
    server.drop_if_empty(key, found)
    return removed


@command("zrem", -3, "write fast", "write sortedset fast")
def zrem(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    return _remove_each(server, argv, ZSet, lambda zset, member: zset.remove(member))


@command("zscore", 3, "readonly fast", "read sortedset fast")
def zscore(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    zset = server.lookup(argv[1], ZSet)
    if zset is None or argv[2] not in zset.scores:
        return None
    return format_float(zset.scores[argv[2]])


@command("zcard", 2, "readonly fast", "read sortedset fast")
def zcard(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    zset = server.lookup(argv[1], ZSet)
    return 0 if zset is None else len(zset)


def parse_score_bound(raw: bytes) -> tuple[float, bool]:
    if raw[:1] == b"(":
        return parse_float(raw[1:], _SCORE_RANGE_ERROR, empty_is_zero=True), True
    return parse_float(raw, _SCORE_RANGE_ERROR, empty_is_zero=True), False


def _parse_lex_bound(raw: bytes) -> tuple[bytes | None, bool, int]:
    """(value, open, infinity): infinity is -1 for '-', 1 for '+', 0 for a value."""
    if raw == b"-":
        return None, False, -1
    if raw == b"+":
        return None, False, 1
    if raw[:1] == b"(":
        return raw[1:], True, 0
    if raw[:1] == b"[":
        return raw[1:], False, 0
    raise _LEX_RANGE_ERROR


def _range_reply(items: list[tuple[float, bytes]], withscores: bool) -> list[bytes]:
    if not withscores:
        return [member for _, member in items]
    reply: list[bytes] = []
    for score, member in items:
        reply.append(member)
        reply.append(format_float(score))
    return reply


def _apply_limit(items: list[Any], offset: int, count: int) -> list[Any]:
    if offset < 0:
        return []
    items = items[offset:]
    return items if count < 0 else items[:count]


def zrange_generic(
    server: Keyspace,
    key: bytes,
    low: bytes,
    high: bytes,
    mode: str,
    rev: bool,
    limit: tuple[int, int] | None,
    withscores: bool,
) -> list[bytes]:
    if mode == "index":
        start, stop = parse_int(low), parse_int(high)
    elif mode == "score":
        if rev:
            low, high = high, low
        score_low, score_high = parse_score_bound(low), parse_score_bound(high)
    else:
        if rev:
            low, high = high, low
        lex_low, lex_high = _parse_lex_bound(low), _parse_lex_bound(high)
    zset = server.lookup(key, ZSet)
    if zset is None:
        return []
    if mode == "index":
        bounds = _index_range(start, stop, len(zset))
        if bounds is None:
            return []
        if rev:
            count = len(zset)
            items = zset.items[count - 1 - bounds[1] : count - bounds[0]][::-1]
        else:
            items = zset.items[bounds[0] : bounds[1] + 1]
        return _range_reply(items, withscores)
    if mode == "score":
        first, end = zset.score_range(score_low[0], score_low[1], score_high[0], score_high[1])
        items = zset.items[first:end]
    else:
        items = [item for item in zset.items if _in_lex_range(item[1], lex_low, lex_high)]
    if rev:
        items = items[::-1]
    if limit is not None:
        items = _apply_limit(items, *limit)
    return _range_reply(items, withscores)


def _in_lex_range(
    member: bytes, low: tuple[bytes | None, bool, int], high: tuple[bytes | None, bool, int]
) -> bool:
    # A bound's value is None only when the bound is infinite (infinity is 1 or -1).
    value, open_, infinity = low
    if infinity == 1 or (
        infinity == 0 and value is not None and (member < value or (open_ and member == value))
    ):
        return False
    value, open_, infinity = high
    return not (
        infinity == -1
        or (infinity == 0 and value is not None and (member > value or (open_ and member == value)))
    )


def _zrange_options(
    argv: list[bytes], *, by: bool
) -> tuple[str, bool, bool, tuple[int, int] | None]:
    """The options after a range's key, min and max: WITHSCORES and LIMIT, and with `by` (ZRANGE)
    BYSCORE, BYLEX and REV. Returns (mode, rev, withscores, limit)."""
    mode, rev, withscores, limit = "index", False, False, None
    index = 4
    while index < len(argv):
        option = argv[index].lower()
        if option == b"withscores":
            withscores = True
        elif option == b"limit" and index + 2 < len(argv):
            limit = (parse_int(argv[index + 1]), parse_int(argv[index + 2]))
            index += 2
        elif by and option == b"byscore" and mode == "index":
            mode = "score"
        elif by and option == b"bylex" and mode == "index":
            mode = "lex"
        elif by and option == b"rev" and not rev:
            rev = True
        else:
            raise syntax_error()
        index += 1
    return mode, rev, withscores, limit


@command("zrange", -4, "readonly", "read sortedset slow")
def zrange(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    mode, rev, withscores, limit = _zrange_options(argv, by=True)
    if limit is not None and mode == "index":
        raise ReplyError(
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"
        )
    if withscores and mode == "lex":
        raise ReplyError("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
    return zrange_generic(server, argv[1], argv[2], argv[3], mode, rev, limit, withscores)


@command("zrangebyscore", -4, "readonly", "read sortedset slow")
def zrangebyscore(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    _, _, withscores, limit = _zrange_options(argv, by=False)
    return zrange_generic(server, argv[1], argv[2], argv[3], "score", False, limit, withscores)


# --- hashes --------------------------------------------------------------------------------


@command("hset", -4, "write denyoom fast", "write hash fast")
def hset(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    if len(argv) % 2:
        raise ReplyError("ERR wrong number of arguments for 'hset' command")
    fields = server.lookup_write(argv[1], HashValue)
    added = 0
    for field, value in zip(argv[2::2], argv[3::2], strict=True):
        if field not in fields:
            added += 1
        fields[field] = value
    return added


@command("hget", 3, "readonly fast", "read hash fast")
def hget(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    fields = server.lookup(argv[1], HashValue)
    return None if fields is None else fields.get(argv[2])


@command("hgetall", 2, "readonly", "read hash slow")
def hgetall(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    fields = server.lookup(argv[1], HashValue)
    if fields is None:
        return []
    return [part for pair in fields.items() for part in pair]


@command("hdel", -3, "write fast", "write hash fast")
def hdel(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    return _remove_each(
        server, argv, HashValue, lambda fields, field: fields.pop(field, None) is not None
    )


# --- pub/sub -------------------------------------------------------------------------------


@command("publish", 3, "pubsub loading stale fast", "pubsub fast")
def publish(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    subscribers = server.channels.get(argv[1], [])
    for subscriber in subscribers:
        subscriber.inbox.append([b"message", argv[1], argv[2]])
    return len(subscribers)


@command("subscribe", -2, "pubsub noscript loading stale", "pubsub slow")
def subscribe(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    replies = Replies()
    for channel in argv[1:]:
        server.subscribe(conn, channel)
        replies.append([b"subscribe", channel, len(conn.subscriptions)])
    return replies[0] if len(replies) == 1 else replies


@command("unsubscribe", -1, "pubsub noscript loading stale", "pubsub slow")
def unsubscribe(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    channels = argv[1:] or sorted(conn.subscriptions)
    if not channels:
        return [b"unsubscribe", None, 0]
    replies = Replies()
    for channel in channels:
        server.unsubscribe(conn, channel)
        replies.append([b"unsubscribe", channel, len(conn.subscriptions)])
    return replies[0] if len(replies) == 1 else replies


# --- scripts -------------------------------------------------------------------------------


def _script_keys(argv: list[bytes]) -> tuple[list[bytes], list[bytes]]:
    numkeys = parse_int(argv[2])
    if numkeys > len(argv) - 3:
        raise ReplyError("ERR Number of keys can't be greater than number of args")
    if numkeys < 0:
        raise ReplyError("ERR Number of keys can't be negative")
    return argv[3 : 3 + numkeys], argv[3 + numkeys :]


@command(
    "evalsha", -3, "noscript stale skip_monitor no_mandatory_keys movablekeys", "slow scripting"
)
def evalsha(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    script = server.scripts.get(argv[1])
    if script is None:
        raise ReplyError("NOSCRIPT No matching script.")
    keys_, args = _script_keys(argv)
    # The whole function runs before any other command: a script is one atomic step.
    return script(server, keys_, args)


@command("eval", -3, "noscript stale skip_monitor no_mandatory_keys movablekeys", "slow scripting")
def eval_(server: Keyspace, conn: Client, argv: list[bytes]) -> Reply | Block:
    _script_keys(argv)
    raise ReplyError(
        "ERR the model runs no Lua: its scripts are Python functions, sent as EVALSHA @name"
    )


__all__ = ["COMMANDS", "INT64_MIN", "NOT_INTEGER", "OK", "Replies", "Status"]
