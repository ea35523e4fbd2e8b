"""The command table of trafikey's EMQ.* verbs: arity, flags and ACL categories.

The registry owns these rows (`trafikist.registry.export_command_table`); the model never looks
for it. Whoever loaded the registry hands the table over (`install_command_table`: the build,
the tests), and the model's wheel carries it as the package data file `registry_table.json`,
which the page's model reads. Valkey's arity rule: a positive arity is the exact argument count
including the command name, a negative one is the minimum.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REGISTRY_TABLE_FILE = Path(__file__).with_name("registry_table.json")

_installed: dict[str, dict[str, Any]] | None = None


class NoCommandTable(RuntimeError):
    """The model was asked to load trafikey before anyone gave it the registry's rows."""


def install_command_table(table: dict[str, Any]) -> None:
    """Use these rows (`export_command_table` of the registry the build loaded) from now on."""
    global _installed
    _installed = _normalise(table)


def command_table() -> dict[str, dict[str, Any]]:
    """The rows of the EMQ verbs: {name: {"arity": int, "flags": [...], "acl": [...], ...}}."""
    global _installed
    if _installed is None:
        try:
            text = REGISTRY_TABLE_FILE.read_text(encoding="utf-8")
        except OSError:
            raise NoCommandTable(
                "the model has no command table: install the registry's rows first "
                "(trafikist.model.commands.install_command_table), or run the model from its "
                "wheel, which carries registry_table.json"
            ) from None
        _installed = _normalise(json.loads(text))
    return _installed


def table_signature() -> str:
    """The table as one stable text, for the keys of cached runs."""
    return json.dumps(command_table(), sort_keys=True)


def _normalise(table: dict[str, Any]) -> dict[str, dict[str, Any]]:
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
    return rows
