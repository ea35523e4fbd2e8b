"""What a command is to the model's server: its row (`Command`), what its handler may use of the
server and of the client (`Keyspace`, `Client`), the table its module declares it in
(`CommandTable`, the `@command` decorator), and what a blocking command returns while it waits
(`Block`). The handlers (builtins.py, streams.py, trafikey.py, echomq.py's scripts) are typed
against these, never against the server itself: the server imports them, and they never import
the server.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from trafikist.model.replies import Reply


class Client(Protocol):
    """What a handler uses of the connection that sent its command: its channels, and the
    messages published to them."""

    subscriptions: set[bytes]
    inbox: list[list[bytes]]


class Keyspace(Protocol):
    """What a handler (or a script) uses of the server: the keys and their expiry times, the
    clock, the keys written since the last look, the scripts, the channels; and a command run
    inside the current step (`call`)."""

    now_ms: int
    data: dict[bytes, Any]
    expires: dict[bytes, int]
    dirty: set[bytes]

    @property
    def scripts(self) -> Mapping[bytes, ScriptFunction]: ...

    @property
    def channels(self) -> Mapping[bytes, Sequence[Client]]: ...

    def lookup(self, key: bytes, kind: type | None = None) -> Any: ...

    def lookup_write(self, key: bytes, kind: type, create: bool = True) -> Any: ...

    def store(self, key: bytes, value: Any, keep_ttl: bool = False) -> None: ...

    def delete(self, key: bytes) -> bool: ...

    def drop_if_empty(self, key: bytes, value: Any) -> None: ...

    def live_keys(self) -> list[bytes]: ...

    def signal_ready(self, key: bytes) -> None: ...

    def subscribe(self, conn: Client, channel: bytes) -> None: ...

    def unsubscribe(self, conn: Client, channel: bytes) -> None: ...

    def call(self, *argv: Any) -> Reply: ...


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


# A command's handler: the reply, or a Block while it waits. A script: the reply.
Handler = Callable[[Keyspace, Client, list[bytes]], Reply | Block]
ScriptFunction = Callable[[Keyspace, list[bytes], list[bytes]], Reply]


class _Blocked:
    def __repr__(self) -> str:
        return "BLOCKED"


BLOCKED = _Blocked()


class CommandTable:
    """The commands a module declares, each with its row from Valkey 9's COMMAND INFO (a test
    checks them), in order: `@table.command(name, arity, flags, acl)` on its handler. A name
    `PARENT|SUB` is a subcommand of a container the table declared first (`container`)."""

    def __init__(self) -> None:
        self.commands: list[Command] = []

    def command(self, name: str, arity: int, flags: str, acl: str) -> Callable[[Handler], Handler]:
        def declare(handler: Handler) -> Handler:
            row = Command(name, arity, frozenset(flags.split()), frozenset(acl.split()), handler)
            parent, _, sub = name.partition("|")
            if sub:
                container = next(c for c in self.commands if c.name == parent)
                container.subcommands[sub.encode()] = row
            else:
                self.commands.append(row)
            return handler

        return declare

    def container(self, name: str, arity: int, flags: str, acl: str) -> None:
        """A command that only holds subcommands (XGROUP): its own row, no handler."""
        self.commands.append(Command(name, arity, frozenset(flags.split()), frozenset(acl.split())))
