"""The registry as data: rows of `registry::TABLE`, the load gate's list, and the host calls.

Plain data with no parsing in it; `rust.py` builds it from trafikey's Rust source.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trafikist.base.errors import display_path

# The fields of a row, in the order trafikey writes them. `key` (the macro's row key, e.g.
# `emq_promote`) and `handler` (the function the row routes to) come before `Row { … }`.
ROW_FIELDS = (
    "name",
    "family",
    "arity",
    "flags",
    "keys",
    "acl",
    "caps",
    "summary",
    "complexity",
    "since",
)
ALL_FIELDS = ("key", "handler", *ROW_FIELDS)
# Fields that hold space-separated words (flags, ACL categories) or a list of strings (caps).
WORD_FIELDS = ("flags", "acl")
LIST_FIELDS = ("caps",)


# A field's value in Python: a number, a text, a list of names, or none (`None` in Rust).
Value = int | str | list[str] | None


@dataclass(frozen=True)
class FieldValue:
    """One field of a row as written in the source."""

    text: str  # the value as written, whitespace collapsed: `Some("0.1.0")`
    tokens: tuple[str, ...]  # the value's tokens, the unit of comparison
    value: Value  # the Python value (a path as a string)
    line: int  # line of the value in its file (or excerpt)


@dataclass
class Row:
    """One row of `registry::TABLE`."""

    name: str
    fields: dict[str, FieldValue]  # by field name, including `key` and `handler` when written
    chosen_fields: frozenset[str]  # fields whose value is the model's own choice, not trafikey's
    file: Path
    line: int  # line where the row starts
    text: str = ""  # the row's source text, comments included
    elided: bool = False  # an excerpt row that skips some of its lines with `// …`

    def value(self, name: str) -> Value:
        found = self.fields.get(name)
        return found.value if found is not None else None

    @property
    def arity(self) -> int | None:
        arity = self.value("arity")
        return arity if isinstance(arity, int) else None

    @property
    def flags(self) -> list[str]:
        return words(self.value("flags"))

    @property
    def acl(self) -> list[str]:
        return words(self.value("acl"))

    @property
    def caps(self) -> list[str]:
        caps = self.value("caps")
        return [str(cap) for cap in caps] if isinstance(caps, list) else []

    @property
    def handler(self) -> str | None:
        handler = self.value("handler")
        return handler if isinstance(handler, str) else None

    @property
    def location(self) -> str:
        return f"{display_path(self.file)}:{self.line}"


@dataclass
class Registry:
    """Everything the checks read from trafikey: a snapshot folder or a real checkout."""

    root: Path
    rows: dict[str, Row]  # by command name, in source order
    gate_functions: list[str]
    source_calls: set[str] | None  # host API names called in the crate; None for a snapshot
    gate_file: Path | None = None
    gate_line: int | None = None
    gate_chosen: bool = False  # True when the list's entries are the model's own choice
    is_snapshot: bool = True
    files: list[Path] = field(default_factory=list)


def words(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(item) for item in value]
    return []


def command_page_id(name: str) -> str:
    """`EMQ.STALLED.CHECK` -> `command-emq-stalled-check`, the id of its reference page."""
    return "command-" + command_slug(name)


def command_slug(name: str) -> str:
    return name.lower().replace(".", "-").replace("_", "-")
