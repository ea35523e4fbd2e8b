"""An in-memory Valkey on a virtual clock: keyspace, command dispatch, ACL, blocking, scripts.

`Server.execute(*argv)` takes the argument vector a client sends and returns the reply in RESP2
shape: bytes, int, list, None, or a `ReplyError` whose text is Valkey's own. Every command runs to
completion before the next one starts, so a command, a script and a module verb are each one
atomic step; a pipeline is only several commands in a row.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from trafikist.model import builtins, streams
from trafikist.model.command import BLOCKED, Block, Client, Command, Handler, ScriptFunction
from trafikist.model.errors import WRONGTYPE, ReplyError
from trafikist.model.replies import Reply
from trafikist.model.values import as_bytes

__all__ = ["BLOCKED", "Block", "Command", "Connection", "Handler", "Server", "command_from_row"]

# Commands a RESP2 connection may send while it is subscribed (Valkey's own list).
SUBSCRIBED_CONTEXT = frozenset(
    {b"subscribe", b"ssubscribe", b"unsubscribe", b"sunsubscribe", b"psubscribe"}
    | {b"punsubscribe", b"ping", b"quit", b"reset"}
)


class Connection:
    """One client connection: its user's ACL, its subscriptions, and how it waits."""

    def __init__(
        self,
        server: Server,
        name: str,
        user: str = "default",
        acl: Iterable[str] = ("+@all",),
        can_block: bool = False,
    ):
        self.server = server
        self.name = name
        self.user = user
        self.acl_rules = tuple(rule.lower() for rule in acl)
        self.can_block = can_block
        self.subscriptions: set[bytes] = set()
        self.inbox: list[list[bytes]] = []
        self.blocked: Block | None = None
        self.deadline_ms: int | None = None
        # Called with the reply when a blocked command is served (the simulation sets it).
        self.on_wake: Callable[[Any], None] | None = None
        self._allowed: dict[str, bool] = {}

    def execute(self, *argv: Any) -> Any:
        return self.server.execute_on(self, argv)

    def may_run(self, command: Command) -> bool:
        allowed = self._allowed.get(command.name)
        if allowed is None:
            allowed = _acl_allows(self.acl_rules, command)
            self._allowed[command.name] = allowed
        return allowed

    def close(self) -> None:
        """The client is gone: it leaves its waits and its channels."""
        self.server.unblock(self)
        for channel in list(self.subscriptions):
            self.server.unsubscribe(self, channel)


def _acl_allows(rules: tuple[str, ...], command: Command) -> bool:
    # Rules apply in order, as ACL SETUSER does: the last rule that matches decides.
    allowed = False
    names = {command.name, command.name.split("|")[0]}
    for rule in rules:
        if rule in ("allcommands", "+@all"):
            allowed = True
        elif rule in ("nocommands", "-@all"):
            allowed = False
        elif rule[:2] in ("+@", "-@"):
            if rule[2:] in command.acl:
                allowed = rule[0] == "+"
        elif rule[:1] in ("+", "-") and rule[1:] in names:
            allowed = rule[0] == "+"
    return allowed


class Server:
    """The keyspace, the commands, the clock, the waiters and the channels."""

    def __init__(self, start_ms: int = 1_700_000_000_000):
        self.now_ms = start_ms  # virtual wall clock, in ms; only the simulation moves it
        self.data: dict[bytes, Any] = {}
        self.expires: dict[bytes, int] = {}
        self.commands: dict[bytes, Command] = {}
        self.scripts: dict[bytes, ScriptFunction] = {}
        self.waiters: dict[bytes, deque[Connection]] = {}
        self.ready: list[bytes] = []
        self.channels: dict[bytes, list[Client]] = {}
        self.dirty: set[bytes] = set()  # keys written since the last look (for trace states)
        self.console = Connection(self, "console")
        for table in (builtins.COMMANDS, streams.COMMANDS):
            for command in table.commands:
                self.add_command(command)

    # --- the entry points ------------------------------------------------------------------

    def execute(self, *argv: Any) -> Any:
        """Run one command on the console connection; return its RESP2-shaped reply."""
        return self.execute_on(self.console, argv)

    def connect(self, name: str, **options: Any) -> Connection:
        return Connection(self, name, **options)

    def execute_on(self, conn: Connection, argv: tuple[Any, ...] | list[Any]) -> Any:
        args = [as_bytes(arg) for arg in argv]
        if not args:
            return ReplyError("ERR empty command")  # valkey-cli sends nothing for an empty line
        command, error = self.resolve(args)
        if error is not None:
            return error
        assert command is not None and command.handler is not None
        if not conn.may_run(command):
            return ReplyError(
                f"NOPERM User {conn.user} has no permissions to run the '{command.name}' command"
            )
        if conn.subscriptions and args[0].lower() not in SUBSCRIBED_CONTEXT:
            return ReplyError(
                f"ERR Can't execute '{command.name}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE /"
                " PING / QUIT / RESET are allowed in this context"
            )
        try:
            reply = command.handler(self, conn, args)
        except ReplyError as raised:
            reply = ReplyError(raised.text)
        if isinstance(reply, Block):
            reply = self._block(conn, reply)
        if self.ready:
            self.serve_blocked()
        return reply

    def resolve(self, args: list[bytes]) -> tuple[Command | None, ReplyError | None]:
        """Find the command for an argument vector, or the error Valkey gives before running."""
        command = self.commands.get(args[0].lower())
        if command is None:
            shown = ""
            for arg in args[1:]:
                if len(shown) >= 128:
                    break
                shown += f"'{arg.decode(errors='replace')[: 128 - len(shown)]}' "
            name = args[0].decode(errors="replace")[:128]
            return None, ReplyError(
                f"ERR unknown command '{name}', with args beginning with: {shown}"
            )
        if command.subcommands:
            if len(args) < 2:
                return None, _arity_error(command)
            sub = command.subcommands.get(args[1].lower())
            if sub is None:
                return None, ReplyError(
                    f"ERR unknown subcommand '{args[1].decode(errors='replace')[:128]}'. "
                    f"Try {args[0].decode(errors='replace').upper()} HELP."
                )
            command = sub
        arity = command.arity
        if (arity > 0 and len(args) != arity) or (arity < 0 and len(args) < -arity):
            return None, _arity_error(command)
        return command, None

    def call(self, *argv: Any) -> Reply:
        """What a script or a module command calls: runs a command inside the current step."""
        args = [as_bytes(arg) for arg in argv]
        command, error = self.resolve(args)
        if error is not None:
            return error
        assert command is not None and command.handler is not None
        try:
            reply = command.handler(self, self.console, args)
        except ReplyError as failure:
            return ReplyError(failure.text)
        assert not isinstance(reply, Block), (
            "the model's scripts and verbs call no blocking command"
        )
        return reply

    # --- registration ---------------------------------------------------------------------

    def add_command(self, command: Command) -> None:
        self.commands[command.name.encode()] = command

    def add_script(self, name: str, function: ScriptFunction) -> None:
        self.scripts[name.encode()] = function

    # --- the keyspace ---------------------------------------------------------------------

    def lookup(self, key: bytes, kind: type | None = None) -> Any:
        """The live value at key (None when missing or expired); WRONGTYPE if of another kind."""
        when = self.expires.get(key)
        if when is not None and self.now_ms > when:
            self.delete(key)
            return None
        value = self.data.get(key)
        if value is not None and kind is not None and type(value) is not kind:
            raise WRONGTYPE
        return value

    def lookup_write(self, key: bytes, kind: type, create: bool = True) -> Any:
        value = self.lookup(key, kind)
        if value is None and create:
            value = kind()
            self.data[key] = value
        self.dirty.add(key)
        return value

    def store(self, key: bytes, value: Any, keep_ttl: bool = False) -> None:
        self.data[key] = value
        if not keep_ttl:
            self.expires.pop(key, None)
        self.dirty.add(key)

    def delete(self, key: bytes) -> bool:
        self.expires.pop(key, None)
        self.dirty.add(key)
        return self.data.pop(key, None) is not None

    def drop_if_empty(self, key: bytes, value: Any) -> None:
        if not value:
            self.delete(key)

    def exists(self, key: bytes) -> bool:
        return self.lookup(key) is not None

    def live_keys(self) -> list[bytes]:
        return [key for key in list(self.data) if self.lookup(key) is not None]

    # --- blocking -------------------------------------------------------------------------

    def signal_ready(self, key: bytes) -> None:
        if key in self.waiters:
            self.ready.append(key)

    def _block(self, conn: Connection, block: Block) -> Any:
        if not conn.can_block:
            # model's own choice (documented difference): the console has nobody to push, so a
            # blocking command there times out at once on the virtual clock.
            if block.timeout_ms == 0:
                return ReplyError(
                    "ERR the model's console cannot wait for ever: give this command a timeout"
                )
            self.now_ms += block.timeout_ms
            return None
        conn.blocked = block
        conn.deadline_ms = self.now_ms + block.timeout_ms if block.timeout_ms else None
        for key in block.keys:
            self.waiters.setdefault(key, deque()).append(conn)
        return BLOCKED

    def unblock(self, conn: Connection) -> None:
        block = conn.blocked
        if block is None:
            return
        for key in block.keys:
            queue = self.waiters.get(key)
            if queue is not None:
                if conn in queue:
                    queue.remove(conn)
                if not queue:
                    del self.waiters[key]
        conn.blocked = None
        conn.deadline_ms = None

    def serve_blocked(self) -> None:
        """Serve waiters on keys that became ready, first come first served, as Valkey does."""
        while self.ready:
            ready, self.ready = self.ready, []
            for key in dict.fromkeys(ready):
                for conn in list(self.waiters.get(key, ())):
                    block = conn.blocked
                    if block is None:
                        continue
                    reply = block.retry()
                    if reply is None:
                        continue
                    self.unblock(conn)
                    if conn.on_wake is not None:
                        conn.on_wake(reply)

    def time_out(self, conn: Connection) -> None:
        """A waiter's timeout has come: it leaves the waiters with a nil reply."""
        self.unblock(conn)

    # --- pub/sub --------------------------------------------------------------------------

    def subscribe(self, conn: Client, channel: bytes) -> None:
        if channel not in conn.subscriptions:
            conn.subscriptions.add(channel)
            self.channels.setdefault(channel, []).append(conn)

    def unsubscribe(self, conn: Client, channel: bytes) -> None:
        conn.subscriptions.discard(channel)
        subscribers = self.channels.get(channel)
        if subscribers and conn in subscribers:
            subscribers.remove(conn)
            if not subscribers:
                del self.channels[channel]


def _arity_error(command: Command) -> ReplyError:
    return ReplyError(f"ERR wrong number of arguments for '{command.name}' command")


def command_from_row(name: str, row: dict[str, Any], handler: Handler, source: str) -> Command:
    return Command(
        name=name.lower(),
        arity=int(row["arity"]),
        flags=frozenset(row.get("flags", ())),
        acl=frozenset(category.lstrip("@") for category in row.get("acl", ())),
        handler=handler,
        source=source,
    )
