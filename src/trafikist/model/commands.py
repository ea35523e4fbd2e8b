"""The command table of trafikey's EMQ.* verbs: arity, flags and ACL categories.

The registry (`registry/`, `trafikist.registry`) owns these rows. The model reads them from, in
order: the package data file `registry_table.json` (written when the wheel is built), the registry
snapshot through `trafikist.registry` (in a checkout), and last the fallback rows below, which
repeat the snapshot's. Valkey's arity rule: a positive arity is the exact
argument count including the command name, a negative one is the minimum.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

REGISTRY_TABLE_FILE = Path(__file__).with_name("registry_table.json")
EMQ_VERBS = ("EMQ.PROMOTE", "EMQ.STALLED.CHECK", "EMQ.APPEND", "EMQ.PUBLISH", "EMQ.FAILURES.INCR")

# Fallback rows, used only while the registry has not landed: remove them once
# `trafikist.registry.export_command_table` exists and the wheel ships registry_table.json.
# EMQ.PROMOTE and EMQ.STALLED.CHECK are quoted from trafikey's registry::TABLE (the seed).
FALLBACK_TABLE: dict[str, dict[str, Any]] = {
    "EMQ.PROMOTE": {"arity": 6, "flags": ["write"], "acl": ["write", "slow"], "source": "seed"},
    "EMQ.STALLED.CHECK": {
        "arity": 8,
        "flags": ["write"],
        "acl": ["write", "slow"],
        "source": "seed",
    },
    # model's own choice: the seed names the three bus verbs but none of their fields; these rows
    # repeat the registry snapshot's (registry/src/registry.rs), where they are marked the same
    # way (choice "bus-verb-rows").
    "EMQ.APPEND": {"arity": -4, "flags": ["write"], "acl": ["write", "stream"], "source": "model"},
    "EMQ.PUBLISH": {"arity": -4, "flags": ["write"], "acl": ["write", "stream"], "source": "model"},
    "EMQ.FAILURES.INCR": {
        "arity": 4,
        "flags": ["write"],
        "acl": ["write", "string"],
        "source": "model",
    },
}


@cache
def default_command_table() -> dict[str, dict[str, Any]]:
    """Rows for the five EMQ verbs: {name: {"arity": int, "flags": [...], "acl": [...]}}."""
    table = _from_package_file() or _from_registry() or FALLBACK_TABLE
    return {name: dict(table[name]) for name in EMQ_VERBS if name in table}


def _from_package_file() -> dict[str, dict[str, Any]] | None:
    try:
        text = REGISTRY_TABLE_FILE.read_text(encoding="utf-8")
    except OSError:
        return None
    return _normalise(json.loads(text))


def _from_registry() -> dict[str, dict[str, Any]] | None:
    # Only in a checkout: the wheel for the page ships the model alone, without the registry.
    try:
        from trafikist.registry import (
            export_command_table,
            load_registry,
            resolve_registry_path,
        )
    except ImportError:
        return None
    repository = Path(__file__).resolve().parents[3]
    try:
        registry = load_registry(resolve_registry_path(None, repository))
    except Exception:
        return None
    return _normalise(export_command_table(registry))


def _normalise(table: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    rows: dict[str, dict[str, Any]] = {}
    for name, row in table.items():
        flags = row.get("flags", [])
        acl = row.get("acl", [])
        rows[name.upper()] = {
            **row,
            "arity": int(row["arity"]),
            "flags": flags.split() if isinstance(flags, str) else list(flags),
            "acl": acl.split() if isinstance(acl, str) else list(acl),
        }
    missing = [name for name in EMQ_VERBS if name not in rows]
    # A partial table would silently drop verbs: complete it from the fallback, row by row.
    for name in missing:
        rows[name] = FALLBACK_TABLE[name]
    return rows or None
