"""trafikey's command registry, as the build reads it: the snapshot in `registry/` (or a real
trafikey checkout), parsed with tree-sitter (`rust`) into rows (`model`), with the host API calls
the crate makes (`hostapi`). Reading only: what the course says about the registry is checked by
trafikist.checks.
"""

from __future__ import annotations

from typing import Any

from trafikist.registry.loader import ENV_VAR, load_registry, resolve_registry_path
from trafikist.registry.rows import (
    FieldValue,
    Registry,
    Row,
    command_page_id,
    command_slug,
)

__all__ = [
    "ENV_VAR",
    "FieldValue",
    "Registry",
    "Row",
    "command_page_id",
    "command_slug",
    "export_command_table",
    "load_registry",
    "resolve_registry_path",
]


def export_command_table(registry: Registry) -> dict[str, dict[str, Any]]:
    """The rows as JSON-able data for the model: one entry per command name."""
    return {
        name: {
            "arity": row.arity,
            "flags": row.flags,
            "acl": row.acl,
            "keys": row.value("keys"),
            "caps": row.caps,
            "family": row.value("family"),
            "summary": row.value("summary"),
            "complexity": row.value("complexity"),
            "since": row.value("since"),
            "handler": row.handler,
            "chosen": sorted(row.chosen_fields),
        }
        for name, row in registry.rows.items()
    }
