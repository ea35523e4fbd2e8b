"""What a command is to the model's server: its row (`Command`), and what a blocking command
returns while it waits (`Block`). Kept apart from the server, so that the built-in commands
(builtins.py, streams.py) and the server that registers them import each other in one direction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trafikist.model.server import Connection, Server

Handler = Callable[["Server", "Connection", list[bytes]], Any]
ScriptFunction = Callable[["Server", list[bytes], list[bytes]], Any]


@dataclass
class Command:
    name: str
    arity: int
    flags: frozenset[str]
    acl: frozenset[str]
    handler: Handler | None = None
    subcommands: dict[bytes, Command] = field(default_factory=dict)
    source: str = "valkey"


class Block:
    """What a blocking command returns when it has to wait: the keys, the timeout, the retry."""

    __slots__ = ("keys", "retry", "timeout_ms")

    def __init__(self, keys: list[bytes], timeout_ms: int, retry: Callable[[], Any]):
        self.keys = keys
        self.timeout_ms = timeout_ms  # 0 waits for ever
        self.retry = retry  # returns the reply, or None while there is still nothing to serve


class _Blocked:
    def __repr__(self) -> str:
        return "BLOCKED"


BLOCKED = _Blocked()
