"""trafikey's verbs, as the seed states them, on the model's server."""

from __future__ import annotations

from trafikist.model import ReplyError, new_server

KEYS = ("q:schedule", "q:pending", "q:wake")
SWEEP_KEYS = ("q:active", "q:pending", "q:dead")


def promote(server, batch: int = 100):
    return server.execute("EMQ.PROMOTE", "3", *KEYS, str(batch))


def stalled(server, limit: int = 100, max_attempts: int = 3):
    return server.execute(
        "EMQ.STALLED.CHECK", "3", *SWEEP_KEYS, str(limit), str(max_attempts), "q:job:"
    )


def test_promote_moves_due_flat_members_at_most_batch() -> None:
    server = new_server()
    now = server.now_ms
    server.execute("ZADD", "q:schedule", now - 3, "a", now - 2, "b", now, "c", now + 1, "later")
    assert promote(server, batch=2) == 2
    assert server.execute("LRANGE", "q:pending", "0", "-1") == [b"a", b"b"]
    assert promote(server) == 1
    assert server.execute("ZRANGE", "q:schedule", "0", "-1") == [b"later"]


def test_promote_reads_the_clock_once_when_the_call_arrives() -> None:
    server = new_server()
    server.execute("ZADD", "q:schedule", server.now_ms + 1000, "j")
    assert promote(server) == 0  # not due yet: a due job moves only when a later call arrives
    server.now_ms += 1000
    assert promote(server) == 1


def test_a_due_lane_row_refuses_the_whole_call() -> None:
    server = new_server()
    now = server.now_ms
    server.execute("ZADD", "q:schedule", now - 2, "flat", now - 1, "lane:a:j2")
    reply = promote(server)
    assert isinstance(reply, ReplyError) and "lane row 'lane:a:j2'" in str(reply)
    assert server.execute("ZCARD", "q:schedule") == 2  # flat members included: nothing moved
    assert server.execute("EVALSHA", "@promote", "3", *KEYS, "100") == 2  # the script moves both


def test_promote_checks_its_arguments() -> None:
    server = new_server()
    assert "numkeys 3" in str(server.execute("EMQ.PROMOTE", "2", *KEYS, "1"))
    assert "batch must be a positive integer" in str(promote(server, batch=0))
    server.execute("SET", "q:schedule", "x")
    assert str(promote(server)).startswith("WRONGTYPE")


def test_stalled_check_recovers_dead_letters_and_exempts_restarts() -> None:
    server = new_server()
    now = server.now_ms
    server.execute(
        "ZADD", "q:active", now - 3, "r", now - 2, "old", now - 1, "fresh", now + 5, "ok"
    )
    server.execute("HSET", "q:job:r", "restart", "1")
    server.execute("HSET", "q:job:old", "attempts", "3")
    assert stalled(server) == [1, 1]
    assert server.execute("LRANGE", "q:pending", "0", "-1") == [b"fresh"]
    assert server.execute("LRANGE", "q:dead", "0", "-1") == [b"old"]
    assert server.execute("ZRANGE", "q:active", "0", "-1") == [b"r", b"ok"]
    assert server.execute("HGET", "q:job:fresh", "attempts") == b"1"


def test_stalled_check_is_bounded_by_limit() -> None:
    server = new_server()
    now = server.now_ms
    server.execute("ZADD", "q:active", now - 3, "a", now - 2, "b", now - 1, "c")
    assert stalled(server, limit=2) == [2, 0]
    assert stalled(server, limit=2) == [1, 0]


def test_append_writes_a_batch_whole_or_not_at_all() -> None:
    server = new_server()
    ok = server.execute("EMQ.APPEND", "1", "s", "2", "1", "id", "m1", "1", "id", "m2")
    assert isinstance(ok, list) and len(ok) == 2
    bad = server.execute("EMQ.APPEND", "1", "s", "2", "1", "id", "m3", "2", "id", "m4")
    assert isinstance(bad, ReplyError)
    assert server.execute("XLEN", "s") == 2  # the first entry of the bad batch is not there


def test_publish_checks_the_envelope() -> None:
    server = new_server()
    entry = server.execute("EMQ.PUBLISH", "1", "s", "id", "m1", "type", "t", "data", "d")
    assert isinstance(entry, bytes)
    assert "lacks the field 'data'" in str(
        server.execute("EMQ.PUBLISH", "1", "s", "id", "m", "type", "t")
    )
    assert "unknown field 'x'" in str(
        server.execute("EMQ.PUBLISH", "1", "s", "id", "m", "x", "t", "data", "d")
    )
    assert "repeats the field 'id'" in str(
        server.execute("EMQ.PUBLISH", "1", "s", "id", "m", "id", "t", "data", "d")
    )
    assert server.execute("XLEN", "s") == 1


def test_failures_incr_sets_count_and_ttl_together() -> None:
    server = new_server()
    assert server.execute("EMQ.FAILURES.INCR", "1", "f", "60") == 1
    assert server.execute("TTL", "f") == 60
    assert server.execute("EMQ.FAILURES.INCR", "1", "f", "60") == 2
    assert "ttl must be a positive integer" in str(
        server.execute("EMQ.FAILURES.INCR", "1", "f", "0")
    )
