"""The model's server on its own: the virtual clock, blocking, scripts, ACL and the verbs' rows."""

from __future__ import annotations

from trafikist.model import ReplyError, Server, command_table, new_server
from trafikist.model.server import BLOCKED


def test_keys_expire_on_the_virtual_clock() -> None:
    server = Server()
    assert server.execute("SET", "k", "v", "EX", "10") == b"OK"
    server.now_ms += 9_999
    assert server.execute("TTL", "k") == 0
    assert server.execute("PTTL", "k") == 1
    server.now_ms += 1
    assert server.execute("GET", "k") == b"v"  # Valkey expires a key once now is past its time
    server.now_ms += 1
    assert server.execute("GET", "k") is None
    assert server.execute("TTL", "k") == -2


def test_time_reads_the_virtual_clock() -> None:
    server = Server(start_ms=1_700_000_000_123)
    assert server.execute("TIME") == [b"1700000000", b"123000"]


def test_a_blocked_blpop_is_woken_by_a_push_first_come_first_served() -> None:
    server = Server()
    woken: list[tuple[str, object]] = []
    first = server.connect("first", can_block=True)
    second = server.connect("second", can_block=True)
    for conn in (first, second):
        conn.on_wake = lambda reply, conn=conn: woken.append((conn.name, reply))
    assert first.execute("BLPOP", "wake", "5") is BLOCKED
    assert second.execute("BLPOP", "wake", "5") is BLOCKED
    assert server.execute("RPUSH", "wake", "a") == 1
    assert woken == [("first", [b"wake", b"a"])]
    assert second.blocked is not None and second.deadline_ms == server.now_ms + 5000
    server.time_out(second)
    assert second.blocked is None and not server.waiters


def test_one_push_of_two_tokens_wakes_two_waiters() -> None:
    server = Server()
    woken: list[str] = []
    for name in ("a", "b", "c"):
        conn = server.connect(name, can_block=True)
        conn.on_wake = lambda reply, name=name: woken.append(name)
        conn.execute("BLPOP", "wake", "0")
    server.execute("LPUSH", "wake", "1", "2")
    assert woken == ["a", "b"]


def test_the_console_cannot_wait() -> None:
    server = Server()
    start = server.now_ms
    assert server.execute("BLPOP", "wake", "2.5") is None
    assert server.now_ms == start + 2500  # the timeout passes on the virtual clock
    error = server.execute("BLPOP", "wake", "0")
    assert isinstance(error, ReplyError) and "cannot wait for ever" in str(error)


def test_a_script_is_one_atomic_step() -> None:
    server = new_server()
    server.execute("ZADD", "q:schedule", str(server.now_ms - 1), "j1", str(server.now_ms), "j2")
    reply = server.execute("EVALSHA", "@promote", "3", "q:schedule", "q:pending", "q:wake", "10")
    assert reply == 2
    assert server.execute("LRANGE", "q:pending", "0", "-1") == [b"j1", b"j2"]
    assert server.execute("LRANGE", "q:wake", "0", "-1") == [b"1"]


def test_the_verbs_rows_come_from_the_table() -> None:
    server = new_server()
    table = command_table()
    for name, row in table.items():
        command = server.commands[name.lower().encode()]
        assert command.arity == row["arity"]
        assert command.acl == set(row["acl"])
    assert table["EMQ.PROMOTE"]["arity"] == 6
    assert table["EMQ.STALLED.CHECK"]["arity"] == 8
    for name in ("EMQ.PROMOTE", "EMQ.STALLED.CHECK"):
        assert table[name]["flags"] == ["write"]
        assert table[name]["acl"] == ["write", "slow"]


def test_wrong_arity_gets_valkeys_error() -> None:
    server = new_server()
    assert str(server.execute("EMQ.PROMOTE", "3", "a", "b", "c")) == (
        "ERR wrong number of arguments for 'emq.promote' command"
    )
    assert str(server.execute("emq.stalled.check", "3")) == (
        "ERR wrong number of arguments for 'emq.stalled.check' command"
    )
    assert str(server.execute("EMQ.FAILURES.INCR", "1", "k")) == (
        "ERR wrong number of arguments for 'emq.failures.incr' command"
    )


def test_a_connection_that_may_not_write_gets_noperm() -> None:
    server = new_server()
    reader = server.connect("reader", user="reader", acl=("+@all", "-@write"))
    reply = reader.execute("EMQ.PROMOTE", "3", "q:schedule", "q:pending", "q:wake", "10")
    assert str(reply) == "NOPERM User reader has no permissions to run the 'emq.promote' command"
    no_slow = server.connect("fast-only", user="fast", acl=("+@all", "-@slow"))
    assert str(no_slow.execute("EMQ.STALLED.CHECK", "3", "a", "p", "d", "1", "3", "j:")).startswith(
        "NOPERM User fast has no permissions to run the 'emq.stalled.check'"
    )
    assert no_slow.execute("EMQ.PUBLISH", "1", "s", "id", "m", "type", "t", "data", "d") != (
        ReplyError("NOPERM")
    )
    assert reader.execute("ZCARD", "q:schedule") == 0


def test_subscribed_connection_is_limited() -> None:
    server = Server()
    listener = server.connect("listener")
    assert listener.execute("SUBSCRIBE", "news") == [b"subscribe", b"news", 1]
    assert str(listener.execute("GET", "x")).startswith("ERR Can't execute 'get'")
    assert server.execute("PUBLISH", "news", "hi") == 1
    assert listener.inbox == [[b"message", b"news", b"hi"]]


def test_the_model_imports_only_the_standard_library() -> None:
    """It is shipped alone to Pyodide: importing it loads nothing from outside the stdlib."""
    import subprocess
    import sys

    code = (
        "import sys, trafikist.model as m\n"
        "m.Server().execute('PING')\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] not in sys.stdlib_module_names"
        " and not n.startswith('trafikist.model')"
        " and n not in ('trafikist', '__main__')"
        # the editable install's own finder, loaded at start-up for every import
        " and not n.startswith('__editable__')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", result.stdout
