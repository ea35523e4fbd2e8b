"""trafikey's command registry: the snapshot (or a real checkout), the library manifest, and the
build-time checks of every excerpt, verb, claim and library name against them.

Nothing here imports MkDocs; the plugin calls these functions.
"""

from __future__ import annotations

from typing import Any

from trafikist.registry.checks import check_course, check_page
from trafikist.registry.loader import ENV_VAR, load_registry, resolve_registry_path
from trafikist.registry.manifest import Manifest, load_manifest, resolve_manifest_path
from trafikist.registry.model import (
    FieldValue,
    Registry,
    Row,
    command_page_id,
    command_slug,
)
from trafikist.registry.reference import reference_book, reference_pages

__all__ = [
    "ENV_VAR",
    "FieldValue",
    "Manifest",
    "Registry",
    "Row",
    "check_course",
    "check_page",
    "command_page_id",
    "command_slug",
    "export_command_table",
    "load_manifest",
    "load_registry",
    "reference_book",
    "reference_pages",
    "resolve_manifest_path",
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
