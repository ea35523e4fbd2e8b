"""The page's console: valkey-cli's line splitting and reply formatting."""

from __future__ import annotations

import pytest

from trafikist.model import new_server
from trafikist.model.console import MAX_REPLY_CHARS, execute_line, format_reply, split_args
from trafikist.model.errors import ReplyError


@pytest.mark.parametrize(
    ("line", "args"),
    [
        ("SET k v", [b"SET", b"k", b"v"]),
        ("  SET   k  v  ", [b"SET", b"k", b"v"]),
        ('SET k "two words"', [b"SET", b"k", b"two words"]),
        (r'SET k "a\"b\n\x41"', [b"SET", b"k", b'a"b\nA']),
        (r"SET k 'it\'s'", [b"SET", b"k", b"it's"]),
        (r"SET k 'no\nescape'", [b"SET", b"k", b"no\\nescape"]),
        ('SET k a"b c"', [b"SET", b"k", b"ab c"]),
        ('SET k ""', [b"SET", b"k", b""]),
        ("", []),
    ],
)
def test_split_like_valkey_cli(line: str, args: list[bytes]) -> None:
    assert split_args(line) == args


@pytest.mark.parametrize("line", ['SET k "open', "SET k 'open", 'SET k "a"b'])
def test_bad_quoting_is_invalid_arguments(line: str) -> None:
    assert execute_line(new_server(), line) == "Invalid argument(s)"


def test_replies_are_formatted_like_valkey_cli() -> None:
    assert format_reply(1) == "(integer) 1\n"
    assert format_reply(True) == "(integer) 1\n"
    assert format_reply(False) == "(integer) 0\n"
    assert format_reply(None) == "(nil)\n"
    assert format_reply([]) == "(empty array)\n"
    assert format_reply(b'say "hi"\n\xe2') == '"say \\"hi\\"\\n\\xe2"\n'
    assert format_reply(ReplyError("ERR syntax error")) == "(error) ERR syntax error\n"
    nested = [b"1-1", [b"f", b"v"]]
    assert format_reply([nested]) == '1) 1) "1-1"\n   2) 1) "f"\n      2) "v"\n'
    ten = [str(n).encode() for n in range(1, 11)]
    assert format_reply(ten).splitlines()[0] == ' 1) "1"'
    assert format_reply(ten).splitlines()[-1] == '10) "10"'


def test_a_console_session() -> None:
    server = new_server()
    assert execute_line(server, "SET k v") == "OK"
    assert execute_line(server, "GET k") == '"v"'
    assert execute_line(server, "PING") == "PONG"
    assert execute_line(server, "TYPE k") == "string"
    assert execute_line(server, "LPUSH k x") == (
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value"
    )
    assert execute_line(server, "EMQ.PROMOTE 3 q:schedule q:pending q:wake 10") == "(integer) 0"
    assert execute_line(server, "emq.promote 1") == (
        "(error) ERR wrong number of arguments for 'emq.promote' command"
    )
    assert execute_line(server, "SUBSCRIBE a b") == (
        '1) "subscribe"\n2) "a"\n3) (integer) 1\n1) "subscribe"\n2) "b"\n3) (integer) 2'
    )


def test_a_long_reply_is_cut_and_says_so() -> None:
    """LRANGE over 300,000 items would print millions of characters: the console prints the
    first MAX_REPLY_CHARS and one line that says the reply was cut, and how to ask for less."""
    server = new_server()
    items = " ".join(["x"] * 100_000)
    for _ in range(3):
        execute_line(server, f"RPUSH big {items}")
    shown = execute_line(server, "LRANGE big 0 -1")
    body, cut = shown.rsplit("\n", 1)
    assert cut == (
        "(cut: the reply holds 300,000 items; the console shows its first 20,000 characters. "
        "Ask for fewer, such as LRANGE key 0 99.)"
    )
    assert len(body) <= MAX_REPLY_CHARS and body.startswith('     1) "x"\n')
    assert execute_line(server, "LRANGE big 0 2") == '1) "x"\n2) "x"\n3) "x"'  # not cut
    assert execute_line(server, "PING") == "PONG"


def test_a_reply_just_under_the_limit_is_whole() -> None:
    server = new_server()
    value = "v" * (MAX_REPLY_CHARS - 2)  # with its quotes, exactly the limit
    execute_line(server, f"SET k {value}")
    assert execute_line(server, "GET k") == f'"{value}"'
    execute_line(server, f"SET k {value}vv")
    assert execute_line(server, "GET k").endswith(
        "(cut: the reply holds one reply; the console shows its first 20,000 characters. "
        "Ask for fewer, such as LRANGE key 0 99.)"
    )
