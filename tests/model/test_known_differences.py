"""Every known difference between the model and Valkey 9, shown (docs/model.md lists them)."""

from __future__ import annotations

from typing import Any

import pytest

from trafikist.model import new_server

valkey_only = pytest.mark.valkey


@valkey_only
def test_keys_come_sorted_where_valkey_uses_hash_table_order(valkey: Any) -> None:
    model = new_server()
    valkey.execute("FLUSHALL")
    names = [f"key{n}" for n in (5, 1, 9, 3, 7, 2)]
    for name in names:
        model.execute("SET", name, "v")
        valkey.execute("SET", name, "v")
    assert model.execute("KEYS", "*") == sorted(name.encode() for name in names)
    assert sorted(valkey.execute("KEYS", "*")) == model.execute("KEYS", "*")


@valkey_only
def test_approximate_trimming_trims_nothing_in_the_model(valkey: Any) -> None:
    model = new_server()
    valkey.execute("FLUSHALL")
    for number in range(1, 251):
        model.execute("XADD", "s", f"{number}-1", "f", "v")
        valkey.execute("XADD", "s", f"{number}-1", "f", "v")
    assert model.execute("XTRIM", "s", "MAXLEN", "~", "10") == 0
    assert valkey.execute("XTRIM", "s", "MAXLEN", "~", "10") > 0  # whole nodes of up to 100
    assert model.execute("XTRIM", "s", "MAXLEN", "=", "10") == 240  # exact trimming matches


@valkey_only
def test_scripts_are_python_functions_named_in_place_of_a_digest(valkey: Any) -> None:
    model = new_server()
    argv = ("EVALSHA", "@promote", "3", "q:schedule", "q:pending", "q:wake", "10")
    assert model.execute(*argv) == 0
    assert str(valkey.execute(*argv)) == "NOSCRIPT No matching script."
    assert "runs no Lua" in str(model.execute("EVAL", "return 1", "0"))
    assert valkey.execute("EVAL", "return 1", "0") == 1


@valkey_only
def test_large_hashes_keep_insertion_order_in_the_model(valkey: Any) -> None:
    model = new_server()
    valkey.execute("FLUSHALL")
    pairs = [part for n in range(300) for part in (f"f{n}", "v")]
    model.execute("HSET", "h", *pairs)
    valkey.execute("HSET", "h", *pairs)
    mine, theirs = model.execute("HGETALL", "h"), valkey.execute("HGETALL", "h")
    assert mine[::2] == [f"f{n}".encode() for n in range(300)]
    assert sorted(mine[::2]) == sorted(theirs[::2])


def test_the_console_times_out_at_once_where_valkey_would_wait() -> None:
    server = new_server()
    before = server.now_ms
    assert server.execute("BLPOP", "q:wake", "3") is None
    assert server.now_ms - before == 3000
    assert "cannot wait for ever" in str(server.execute("BLPOP", "q:wake", "0"))


def test_commands_outside_the_models_set_are_unknown() -> None:
    reply = new_server().execute("SADD", "s", "a")
    assert str(reply) == "ERR unknown command 'SADD', with args beginning with: 's' 'a' "


def test_subscribe_to_several_channels_replies_once_with_each_confirmation() -> None:
    reply = new_server().execute("SUBSCRIBE", "a", "b")
    assert list(reply) == [[b"subscribe", b"a", 1], [b"subscribe", b"b", 2]]


def test_xgroup_has_create_and_destroy_only() -> None:
    reply = new_server().execute("XGROUP", "SETID", "s", "g", "$")
    assert str(reply) == "ERR unknown subcommand 'SETID'. Try XGROUP HELP."
