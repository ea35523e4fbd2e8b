"""Kinds of Valkey module host functions that the course's claims name.

Valkey's Modules API reference groups them: a module can park a client until a key is
signalled ready (the blocked-client calls), signal a key itself (`ValkeyModule_SignalKeyAsReady`)
and arm a timer that fires inside the server (`ValkeyModule_CreateTimer` and its siblings).
Names are matched with the `ValkeyModule_`/`RedisModule_` prefix and case and underscores
removed, so the C names (`ValkeyModule_BlockClient`) and the Rust wrappers (`block_client`,
`create_timer`) both match.
"""

from __future__ import annotations

import re

from trafikist.registry.rust import HOST_PREFIXES

# kind -> fragments of a normalized name (lowercase, no underscores, no prefix)
KINDS: dict[str, tuple[str, ...]] = {
    "blocked-client": ("blockclient", "blockedclient", "unblockclient", "abortblock"),
    "ready-signal": ("signalkeyasready", "readykey"),
    "timer": ("timer",),
}


def normalize(name: str) -> str:
    for prefix in HOST_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix) :]
    return re.sub(r"[^a-z0-9]", "", name.lower())


def kind_of(name: str) -> str | None:
    normalized = normalize(name)
    for kind, fragments in KINDS.items():
        if any(fragment in normalized for fragment in fragments):
            return kind
    return None


def names_of_kind(names: list[str] | set[str], kind: str) -> list[str]:
    return sorted(name for name in names if kind_of(name) == kind)
