"""The model's server against a real Valkey 9: the same argument vectors, the same replies.

Hand-written cases cover each command and its errors; generated sequences (hypothesis) mix the
non-blocking, time-independent commands over a few keys so types collide. Replies must be equal,
error texts included. The known differences are listed in `docs/model.md` and tested in
`test_known_differences.py`.
"""

from __future__ import annotations

import shlex
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trafikist.model import new_server
from trafikist.model.replies import Replies

pytestmark = pytest.mark.valkey


def normalise(argv: list[str], reply: Any) -> Any:
    """Blank what depends on wall-clock time: the idle field of extended XPENDING rows."""
    if argv[0].upper() == "XPENDING" and len(argv) > 3 and isinstance(reply, list):
        return [[row[0], row[1], 0, row[3]] if isinstance(row, list) else row for row in reply]
    if isinstance(reply, Replies):
        return list(reply)
    return reply


def run_both(valkey: Any, commands: list[list[str]]) -> tuple[list[Any], list[Any]]:
    model = new_server()
    valkey.execute("FLUSHALL")
    model_replies, real_replies = [], []
    for argv in commands:
        model_replies.append(normalise(argv, model.execute(*argv)))
        real_replies.append(normalise(argv, valkey.execute(*argv)))
    return model_replies, real_replies


def assert_same(valkey: Any, commands: list[list[str]]) -> None:
    model_replies, real_replies = run_both(valkey, commands)
    for argv, mine, theirs in zip(commands, model_replies, real_replies, strict=True):
        assert mine == theirs, f"{' '.join(argv)}: model {mine!r}, Valkey {theirs!r}"


def lines(text: str) -> list[list[str]]:
    return [shlex.split(line) for line in text.strip().splitlines() if line.strip()]


CASES = {
    "generic": """
        PING
        PING hello
        PING a b
        ECHO hi
        FOO bar baz
        foo
        SET k v
        EXISTS k nope k
        TYPE k
        TYPE nope
        DEL k nope k
        EXISTS k
        DBSIZE
    """,
    "strings": """
        GET nope
        SET s 1
        GET s
        INCR s
        INCR counter
        SET s 9223372036854775806
        INCR s
        INCR s
        SET s 01
        INCR s
        SET s -0
        INCR s
        SET s " 1"
        INCR s
        SET s abc NX
        SET s abc XX GET
        SET s new GET
        SET missing x XX
        SET s 1 NX XX
        SET s 1 EX 0
        SET s 1 EX -5
        SET s 1 EX abc
        SET s 1 EX 100 PX 100
        SET s 1 KEEPTTL EX 100
        SET s 1 BOGUS
        SET s 1 EX 1000
        TTL s
        SET s 2 KEEPTTL
        TTL s
        SET s 3
        TTL s
        RPUSH l a
        SET l x GET
        GET l
        INCR l
    """,
    "expire": """
        EXPIRE nope 10
        SET k v
        EXPIRE k 1000
        TTL k
        EXPIRE k 2000 NX
        EXPIRE k 2000 XX
        TTL k
        EXPIRE k 100 GT
        EXPIRE k 5000 GT
        EXPIRE k 5000 LT
        EXPIRE k 100 LT
        TTL k
        EXPIRE k 100 NX XX
        EXPIRE k 100 GT LT
        EXPIRE k 100 FOO
        EXPIRE k abc
        EXPIRE k 9223372036854775807
        EXPIRE k -9223372036854775807
        SET p v
        TTL p
        PTTL p
        EXPIRE p 100 XX
        EXPIRE p 100 GT
        EXPIRE p 100 LT
        EXPIRE p -1
        EXISTS p
        TTL p
        PTTL p
    """,
    "lists": """
        LPUSH l a b c
        RPUSH l d e
        LRANGE l 0 -1
        LRANGE l -2 -1
        LRANGE l 2 1
        LRANGE l 10 20
        LRANGE l -100 100
        LRANGE l x 1
        LLEN l
        LLEN nope
        LPOP l
        RPOP l
        LPOP l 2
        LPOP l 0
        LPOP l -1
        LPOP l abc
        LPOP l 1 2
        RPOP l 10
        EXISTS l
        LPOP l
        LPOP l 3
        RPOP nope 2
        RPUSH r a b a c a
        LREM r 2 a
        LRANGE r 0 -1
        LREM r -1 a
        LREM r 0 zzz
        LREM r 0 b
        LREM r 0 c
        EXISTS r
        LREM r x a
        SET s v
        LPUSH s x
        LRANGE s 0 1
        LLEN s
        LREM s 0 x
        LPUSH
        RPUSH l
    """,
    "blpop without waiting": """
        RPUSH a 1 2
        BLPOP nope a 0
        BLPOP a nope 1
        BLPOP a 1
        BLPOP a 0.01
        BLPOP a -1
        BLPOP a x
        SET s v
        BLPOP s 1
    """,
    "zadd": """
        ZADD z 1 a 2 b 3 c
        ZADD z NX 10 a 4 d
        ZADD z XX 10 a 5 e
        ZADD z CH 11 a 2 b 6 f
        ZADD z GT 1 a
        ZADD z GT CH 12 a
        ZADD z LT CH 20 a 1 b
        ZADD z INCR 2.5 a
        ZADD z INCR -inf a
        ZADD z INCR +inf a
        ZADD z NX INCR 1 a
        ZADD z XX INCR 1 nope
        ZADD nope XX 1 a
        ZADD nope XX INCR 1 a
        ZADD z NX XX 1 a
        ZADD z GT LT 1 a
        ZADD z NX LT 1 a
        ZADD z INCR 1 a 2 b
        ZADD z 1 a 2
        ZADD z abc a
        ZADD z nan a
        ZADD z 1e400 a
        ZADD z 0x10 a
        ZADD z 1_0 a
        ZADD z
        ZRANGE z 0 -1 WITHSCORES
        ZCARD z
        ZCARD nope
        ZSCORE z a
        ZSCORE z nope
        ZSCORE nope a
        ZREM z a b nope
        ZREM nope a
        ZRANGE z 0 -1
        SET s v
        ZADD s 1 a
        ZSCORE s a
    """,
    "score formatting": """
        ZADD f 1e20 c 0.1 d 1e-5 e 123456789012345678 g inf h -inf i 3.0 j -0 k 1e17 l
        ZADD f 0.30000000000000004 m 1.5e300 n 2.5e-7 o 1234567.125 p 0.000001 q 0.0000001 r
        ZADD f 9.2e18 s 4611686018427387904 t 4611686018427387903 u -9223372036854775808 v
        ZADD f 12345678.9e-3 w +1 x 1. y .5 z 00012 aa 1E5 bb infinity cc -Inf dd 1e-300 ee
        ZADD f 5e-324 ff 1.7976931348623157e308 gg 0.1e1 hh 100 ii 1e16 jj 1e15 kk
        ZRANGE f 0 -1 WITHSCORES
        ZADD g INCR 0.1 x
        ZADD g INCR 0.2 x
        ZSCORE g x
    """,
    "zrange": """
        ZADD z 1 a 2 b 3 c 4 d 5 e
        ZRANGE z 0 -1
        ZRANGE z 1 3 WITHSCORES
        ZRANGE z -2 -1 REV
        ZRANGE z 0 1 REV WITHSCORES
        ZRANGE z 5 1
        ZRANGE z (1 3 BYSCORE
        ZRANGE z 1 (3 BYSCORE WITHSCORES
        ZRANGE z 3 1 BYSCORE REV
        ZRANGE z +inf -inf BYSCORE REV LIMIT 1 2
        ZRANGE z -inf +inf BYSCORE LIMIT 2 -1
        ZRANGE z -inf +inf BYSCORE LIMIT -1 2
        ZRANGE z -inf +inf BYSCORE LIMIT 10 2
        ZRANGE z -inf +inf BYSCORE LIMIT 0 0
        ZRANGE z [b (d BYLEX
        ZRANGE z - + BYLEX LIMIT 1 2
        ZRANGE z + - BYLEX REV
        ZRANGE z (d [b BYLEX REV
        ZRANGE z a b BYLEX
        ZRANGE z [a [b BYLEX WITHSCORES
        ZRANGE z 0 1 LIMIT 0 1
        ZRANGE z 0 1 BYSCORE BYLEX
        ZRANGE z 0 1 REV REV
        ZRANGE z a b
        ZRANGE z a b BYSCORE
        ZRANGE z 0 1 LIMIT 0
        ZRANGE z 0 1 FOO
        ZRANGE nope 0 -1
        ZRANGE nope 0 -1 BYSCORE
        ZRANGEBYSCORE z -inf +inf
        ZRANGEBYSCORE z (1 (5
        ZRANGEBYSCORE z 2 4 WITHSCORES
        ZRANGEBYSCORE z 2 4 LIMIT 1 1
        ZRANGEBYSCORE z 2 4 LIMIT 1 1 WITHSCORES
        ZRANGEBYSCORE z 2 4 WITHSCORES LIMIT 0 2 WITHSCORES
        ZRANGEBYSCORE z 2 4 LIMIT 0 2 LIMIT 1 1
        ZRANGEBYSCORE z 5 1
        ZRANGEBYSCORE z ( +inf
        ZRANGEBYSCORE z ((1 +inf
        ZRANGEBYSCORE z x 1
        ZRANGEBYSCORE z 1 2 LIMIT a b
        ZRANGEBYSCORE z 1 2 LIMIT 0
        ZRANGEBYSCORE z 1 2 FOO
        ZRANGEBYSCORE nope 0 1
    """,
    "hashes": """
        HSET h a 1 b 2
        HSET h a 3 c 4
        HGET h a
        HGET h nope
        HGET nope a
        HGETALL h
        HGETALL nope
        HSET h a 1 b
        HDEL h a nope
        HGETALL h
        HDEL h b c
        EXISTS h
        HDEL nope a
        SET s v
        HSET s a 1
        HGET s a
        HGETALL s
        HDEL s a
    """,
    "xadd": """
        XADD x 0-0 f v
        XADD x 0-1 f v
        XADD x 1-1 f v
        XADD x 1-1 f v
        XADD x 1 f v
        XADD x 2 f v
        XADD x abc f v
        XADD x 5-* f v
        XADD x 5-* f v
        XADD x 4-* f v
        XADD x 18446744073709551615-0 f v
        XADD x 18446744073709551616-0 f v
        XADD x -1 f v
        XADD x 6-x f v
        XADD x MAXLEN 2 * f
        XADD x 7-1 f
        XADD x 7-1 f v g
        XADD x NOMKSTREAM 8-1 f v
        XADD y NOMKSTREAM 1-1 f v
        EXISTS y
        XADD x LIMIT 10 9-1 f v
        XADD x MAXLEN 2 MINID 1 10-1 f v
        XADD x MAXLEN -1 10-1 f v
        XADD x MAXLEN abc 10-1 f v
        XADD x MAXLEN = 4 LIMIT 2 10-1 f v
        XADD x MAXLEN 4 10-1 f v
        XLEN x
        XADD x MINID 5 11-1 f v
        XRANGE x - +
        XADD x MINID = 7 12-1 f v
        XRANGE x - +
        XADD x MAXLEN 0 13-1 f v
        XLEN x
        XADD x 13-1 f v
        SET s v
        XADD s 1-1 f v
        XLEN s
        XADD x
    """,
    "xrange and xtrim": """
        XADD x 1-1 a 1
        XADD x 1-2 b 2
        XADD x 2-1 c 3
        XADD x 3-0 d 4
        XRANGE x - +
        XRANGE x - + COUNT 2
        XRANGE x - + COUNT 0
        XRANGE x - + COUNT -1
        XRANGE x (1-1 +
        XRANGE x - (3-0
        XRANGE x 1 1
        XRANGE x 2 +
        XRANGE x (- +
        XRANGE x - (-
        XRANGE x - (+
        XRANGE x + -
        XRANGE x abc +
        XRANGE x - + FOO
        XRANGE x - + COUNT
        XRANGE x 18446744073709551615-18446744073709551615 +
        XRANGE x (18446744073709551615-18446744073709551615 +
        XRANGE nope - +
        XRANGE nope - + COUNT 0
        XLEN nope
        XTRIM x MAXLEN 3
        XTRIM x MAXLEN = 2
        XTRIM x MINID 3
        XTRIM x MINID 3-1
        XTRIM x MAXLEN -1
        XTRIM x FOO 2
        XTRIM x MAXLEN = 2 LIMIT 5
        XTRIM x
        XTRIM x MAXLEN
        XTRIM x LIMIT 2
        XTRIM nope MAXLEN 1
        XRANGE x - +
        XLEN x
    """,
    "groups": """
        XGROUP CREATE nos g $
        XADD x 1-1 f v
        XADD x 2-1 f w
        XGROUP CREATE x g 0
        XGROUP CREATE x g 0
        XGROUP CREATE x g2 $
        XGROUP CREATE x2 g $ MKSTREAM
        XGROUP CREATE x g3 0 MKSTREAM ENTRIESREAD 3
        XGROUP CREATE x g4 0 ENTRIESREAD -2
        XGROUP CREATE x g5 0 FOO
        XGROUP CREATE x g6 abc
        XGROUP CREATE x
        XGROUP FOO x
        XGROUP
        XLEN x2
        XGROUP DESTROY x g3
        XGROUP DESTROY x g3
        SET s v
        XGROUP CREATE s g $
    """,
    "readgroup, ack, pending, autoclaim": """
        XADD x 1-1 f a
        XADD x 2-1 f b
        XADD x 3-1 f c
        XGROUP CREATE x g 0
        XREADGROUP GROUP g c1 COUNT 1 STREAMS x >
        XREADGROUP GROUP g c1 STREAMS x >
        XREADGROUP GROUP g c1 STREAMS x >
        XREADGROUP GROUP g c1 STREAMS x 0
        XREADGROUP GROUP g c1 COUNT 1 STREAMS x 1-1
        XREADGROUP GROUP g c2 STREAMS x 0
        XREADGROUP GROUP nog c1 STREAMS x >
        XREADGROUP GROUP g c1 STREAMS nope >
        XREADGROUP GROUP g c1 STREAMS x y >
        XREADGROUP GROUP g c1 STREAMS x
        XREADGROUP GROUP g c1 FOO 1 STREAMS x >
        XREADGROUP GROUP g c1 STREAMS x $
        XREADGROUP GROUP g c1 STREAMS x abc
        XREADGROUP COUNT 1 STREAMS x > > >
        XREADGROUP GROUP g c1 COUNT -5 STREAMS x 0
        XPENDING x g
        XPENDING x nog
        XPENDING nope g
        XPENDING x g - + 10
        XPENDING x g - + 10 c1
        XPENDING x g - + 10 nobody
        XPENDING x g IDLE 0 - + 10
        XPENDING x g (1-1 + 1
        XPENDING x g - + abc
        XPENDING x g - +
        XPENDING x g IDLE 0 - +
        XACK x g 2-1 99-1
        XACK x g abc
        XACK x nog abc
        XACK nope g 1-1
        XPENDING x g
        XAUTOCLAIM x g c2 0 0-0 COUNT 1
        XAUTOCLAIM x g c2 0 0-0 COUNT 0
        XAUTOCLAIM x g c2 0 0-0 JUSTID
        XAUTOCLAIM x g c2 abc 0-0
        XAUTOCLAIM x g c2 0 abc
        XAUTOCLAIM x g c2 0 0-0 FOO
        XAUTOCLAIM x nog c2 0 0-0
        XAUTOCLAIM nope g c2 0 0-0
        XAUTOCLAIM x g c3 100000 0-0
        XPENDING x g
        XTRIM x MAXLEN 0
        XREADGROUP GROUP g c2 STREAMS x 0
        XAUTOCLAIM x g c3 0 0-0
        XPENDING x g
        XREADGROUP GROUP g c2 STREAMS x 0
        XREADGROUP GROUP g c2 STREAMS x >
        XADD x 4-1 f d
        XREADGROUP GROUP g c2 NOACK STREAMS x >
        XPENDING x g
    """,
    "autoclaim cursor": """
        XADD x 1-1 f a
        XADD x 2-1 f b
        XADD x 3-1 f c
        XADD x 4-1 f d
        XGROUP CREATE x g 0
        XREADGROUP GROUP g c1 STREAMS x >
        XAUTOCLAIM x g c2 0 0-0 COUNT 2
        XAUTOCLAIM x g c2 0 3-1 COUNT 2
        XAUTOCLAIM x g c2 0 (2-1 COUNT 1
        XPENDING x g - + 10
    """,
    "pubsub and time": """
        PUBLISH ch hello
        PUBLISH ch
        SUBSCRIBE ch
        PUBLISH ch hello
        GET x
        PING
        PING there
        UNSUBSCRIBE ch
    """,
    "scripts": """
        EVALSHA abc 0
        EVALSHA abc x
        EVALSHA abc -1
        EVALSHA abc 5 k
        EVALSHA
        TIME 1
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_written_case(valkey: Any, name: str) -> None:
    assert_same(valkey, lines(CASES[name]))


# --- generated sequences -----------------------------------------------------------------------

KEYS = st.sampled_from(["k1", "k2", "k3"])
MEMBERS = st.sampled_from(["a", "b", "c", "d", "e"])
INTS = st.sampled_from(["0", "1", "2", "-1", "-2", "3", "10", "-10", "x", "01", "1.5"])
SCORES = st.sampled_from(["0", "1", "2.5", "-3", "inf", "-inf", "1e3", "x", "(1", "0.1"])
BOUNDS = st.sampled_from(["-inf", "+inf", "0", "1", "(1", "2.5", "(2.5", "x", "(", "5"])
LEX = st.sampled_from(["-", "+", "[a", "(b", "[c", "(e", "a"])
IDS = st.sampled_from(["1-1", "1-2", "2-0", "2", "3-*", "0-0", "5-5", "x", "4-1", "7"])
RANGE_IDS = st.sampled_from(["-", "+", "1-1", "(1-1", "2", "(2-0", "3-0", "x", "0"])
GROUPS = st.sampled_from(["g1", "g2"])
CONSUMERS = st.sampled_from(["c1", "c2"])
OPTS = st.sampled_from(["NX", "XX", "GT", "LT", "CH", "INCR", "BOGUS"])


def _flat(*parts: Any) -> Any:
    return st.tuples(*parts).map(lambda items: [str(part) for part in _unnest(items)])


def _unnest(items: Any) -> list[str]:
    out: list[str] = []
    for item in items:
        if isinstance(item, list | tuple):
            out.extend(_unnest(item))
        else:
            out.append(item)
    return out


def _pairs(first: Any, second: Any, low: int = 1, high: int = 3) -> Any:
    return st.lists(st.tuples(first, second), min_size=low, max_size=high)


COMMANDS = st.one_of(
    _flat(st.sampled_from(["LPUSH", "RPUSH"]), KEYS, st.lists(MEMBERS, min_size=0, max_size=3)),
    _flat(st.sampled_from(["LPOP", "RPOP"]), KEYS, st.lists(INTS, max_size=1)),
    _flat(st.just("LRANGE"), KEYS, INTS, INTS),
    _flat(st.just("LLEN"), KEYS),
    _flat(st.just("LREM"), KEYS, INTS, MEMBERS),
    _flat(st.just("ZADD"), KEYS, st.lists(OPTS, max_size=2, unique=True), _pairs(SCORES, MEMBERS)),
    _flat(st.just("ZREM"), KEYS, st.lists(MEMBERS, min_size=1, max_size=2)),
    _flat(
        st.just("ZRANGEBYSCORE"),
        KEYS,
        BOUNDS,
        BOUNDS,
        st.sampled_from([[], ["WITHSCORES"], ["LIMIT", "1", "2"], ["LIMIT", "0", "-1"]]),
    ),
    _flat(
        st.just("ZRANGE"),
        KEYS,
        st.one_of(
            st.tuples(INTS, INTS, st.sampled_from([[], ["REV"], ["WITHSCORES"]])),
            st.tuples(BOUNDS, BOUNDS, st.just("BYSCORE"), st.sampled_from([[], ["REV"]])),
            st.tuples(LEX, LEX, st.just("BYLEX"), st.sampled_from([[], ["LIMIT", "0", "2"]])),
        ),
    ),
    _flat(st.just("ZSCORE"), KEYS, MEMBERS),
    _flat(st.just("ZCARD"), KEYS),
    _flat(st.just("GET"), KEYS),
    _flat(
        st.just("SET"),
        KEYS,
        st.sampled_from(["1", "v", "9223372036854775807"]),
        st.sampled_from([[], ["NX"], ["XX"], ["GET"], ["EX", "1000"], ["KEEPTTL"], ["EX", "0"]]),
    ),
    _flat(st.just("DEL"), st.lists(KEYS, min_size=1, max_size=2)),
    _flat(st.just("INCR"), KEYS),
    _flat(
        st.just("EXPIRE"),
        KEYS,
        st.sampled_from(["1000", "2000", "-1", "x"]),
        st.lists(st.sampled_from(["NX", "XX", "GT", "LT"]), max_size=1),
    ),
    _flat(st.just("TTL"), KEYS),
    _flat(st.just("HSET"), KEYS, _pairs(MEMBERS, INTS)),
    _flat(st.just("HGET"), KEYS, MEMBERS),
    _flat(st.just("HGETALL"), KEYS),
    _flat(st.just("HDEL"), KEYS, st.lists(MEMBERS, min_size=1, max_size=2)),
    _flat(
        st.just("XADD"),
        KEYS,
        st.sampled_from([[], ["MAXLEN", "2"], ["MINID", "2"], ["NOMKSTREAM"]]),
        IDS,
        _pairs(MEMBERS, INTS, 1, 2),
    ),
    _flat(st.just("XLEN"), KEYS),
    _flat(st.just("XRANGE"), KEYS, RANGE_IDS, RANGE_IDS, st.sampled_from([[], ["COUNT", "2"]])),
    _flat(
        st.just("XTRIM"), KEYS, st.sampled_from(["MAXLEN", "MINID"]), st.sampled_from(["1", "2"])
    ),
    _flat(
        st.just("XGROUP"),
        st.just("CREATE"),
        KEYS,
        GROUPS,
        st.sampled_from(["0", "$", "1-1"]),
        st.sampled_from([[], ["MKSTREAM"]]),
    ),
    _flat(
        st.just("XREADGROUP"),
        st.just("GROUP"),
        GROUPS,
        CONSUMERS,
        st.sampled_from([[], ["COUNT", "1"], ["NOACK"]]),
        st.just("STREAMS"),
        KEYS,
        st.sampled_from([">", "0", "1-1"]),
    ),
    _flat(st.just("XACK"), KEYS, GROUPS, st.lists(IDS, min_size=1, max_size=2)),
    _flat(st.just("XPENDING"), KEYS, GROUPS, st.sampled_from([[], ["-", "+", "5"]])),
    _flat(
        st.just("XAUTOCLAIM"),
        KEYS,
        GROUPS,
        CONSUMERS,
        st.just("0"),
        st.sampled_from(["0-0", "1-1", "(1-1"]),
        st.sampled_from([[], ["COUNT", "1"], ["JUSTID"]]),
    ),
    _flat(st.just("PUBLISH"), st.sampled_from(["ch"]), MEMBERS),
)


@given(st.lists(COMMANDS, min_size=1, max_size=30))
def test_generated_sequences(valkey: Any, commands: list[list[str]]) -> None:
    assert_same(valkey, commands)


# --- the command table -------------------------------------------------------------------------


def test_builtin_rows_match_command_info(valkey: Any) -> None:
    """Arity, flags and ACL categories of every built-in the model serves, as Valkey has them."""
    model = new_server()
    for name, command in sorted(model.commands.items()):
        if command.source != "valkey":
            continue
        info = valkey.execute("COMMAND", "INFO", name)[0]
        assert info is not None, name
        assert command.arity == info[1], name
        assert command.flags == {flag.decode() for flag in info[2]}, name
        assert command.acl == {category.decode().lstrip("@") for category in info[6]}, name
        for sub in command.subcommands.values():
            row = next(row for row in info[9] if row[0] == sub.name.encode())
            assert sub.arity == row[1], sub.name
            assert sub.acl == {category.decode().lstrip("@") for category in row[6]}, sub.name


def test_acl_refusal_text_matches(real_valkey: Any, valkey: Any) -> None:
    """A user that may not write gets Valkey's NOPERM text for a write command."""
    valkey.execute("ACL", "SETUSER", "reader", "on", "nopass", "~*", "+@all", "-@write")
    reader = real_valkey.client()
    try:
        assert reader.execute("AUTH", "reader", "x") == b"OK"
        expected = reader.execute("LPUSH", "a", "b")
        allowed = reader.execute("LLEN", "a")
    finally:
        reader.close()
        valkey.execute("ACL", "DELUSER", "reader")
    model = new_server()
    conn = model.connect("reader-conn", user="reader", acl=("+@all", "-@write"))
    assert conn.execute("LPUSH", "a", "b") == expected
    assert conn.execute("LLEN", "a") == allowed
