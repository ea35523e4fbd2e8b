"""The page's console: one valkey-cli style line in, the reply as valkey-cli prints it out.

Lines are split the way valkey-cli splits them ("..." with escapes, '...' with \\' only), and
replies are formatted the way valkey-cli formats them on a terminal. Nothing is evaluated: the
words go to `Server.execute` as an argument vector.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trafikist.model.errors import ReplyError
from trafikist.model.replies import Replies, Status
from trafikist.model.server import Server

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "a": "\a"}
_HEX = "0123456789abcdefABCDEF"
INVALID = "Invalid argument(s)"


class ParseError(ValueError):
    pass


def split_args(line: str) -> list[bytes]:
    """valkey-cli's sdssplitargs: words, "double quotes" with escapes, 'single quotes'."""
    args: list[bytes] = []
    index, length = 0, len(line)
    while True:
        while index < length and line[index].isspace():
            index += 1
        if index >= length:
            return args
        current = bytearray()
        quoted = ""  # the quote an argument is inside: '"', "'" or none
        while True:
            char = line[index] if index < length else ""
            following = line[index + 1] if index + 1 < length else ""
            if quoted == '"' and char == "\\" and following == "x" and _hex_at(line, index + 2):
                current.append(int(line[index + 2 : index + 4], 16))
                index += 3
            elif quoted == '"' and char == "\\" and following:
                index += 1
                current += _ESCAPES.get(following, following).encode()
            elif quoted == "'" and char == "\\" and following == "'":
                index += 1
                current += b"'"
            elif quoted and char == quoted:
                # A closing quote ends the argument, and only a space may follow it.
                if following and not following.isspace():
                    raise ParseError(INVALID)
                index += 1
                break
            elif quoted and not char:
                raise ParseError(INVALID)
            elif quoted:
                current += char.encode()
            elif char in ("", " ", "\n", "\r", "\t"):
                break
            elif char in ('"', "'"):
                quoted = char
            else:
                current += char.encode()
            index += 1
        args.append(bytes(current))


def _hex_at(line: str, index: int) -> bool:
    """Two hex digits at `index`: a \\xHH escape inside double quotes."""
    return index + 1 < len(line) and line[index] in _HEX and line[index + 1] in _HEX


def quote(data: bytes) -> str:
    """valkey-cli's sdscatrepr: quoted, escaped, non-printable bytes as \\xHH."""
    out = ['"']
    for byte in data:
        char = chr(byte)
        if char in ("\\", '"'):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif char == "\a":
            out.append("\\a")
        elif char == "\b":
            out.append("\\b")
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\x{byte:02x}")
    out.append('"')
    return "".join(out)


# What one reply shows at most: an LRANGE of millions of items would print tens of millions of
# characters (seconds in the page, and every later reply slower); the rest is cut, and said so.
MAX_REPLY_CHARS = 20_000


def format_reply(reply: Any, prefix: str = "") -> str:
    """valkey-cli's cliFormatReplyTTY, for RESP2 replies; ends with a newline."""
    return "".join(_pieces(reply, prefix))


def _pieces(reply: Any, prefix: str = "") -> Iterator[str]:
    """format_reply's output, piece by piece, so that a long reply can stop being formatted."""
    if isinstance(reply, ReplyError):
        yield f"(error) {reply.text}\n"
    elif reply is None:
        yield "(nil)\n"
    elif isinstance(reply, int):  # a bool too: RESP2 has no boolean, True is (integer) 1
        yield f"(integer) {int(reply)}\n"
    elif isinstance(reply, Status):
        yield reply.decode("utf-8", errors="replace") + "\n"
    elif isinstance(reply, bytes):
        yield quote(reply) + "\n"
    elif isinstance(reply, str):
        yield quote(reply.encode()) + "\n"
    elif isinstance(reply, list):
        if not reply:
            yield "(empty array)\n"
            return
        width = len(str(len(reply)))
        nested = prefix + " " * (width + 2)
        for number, item in enumerate(reply, start=1):
            yield f"{'' if number == 1 else prefix}{number:>{width}}) "
            yield from _pieces(item, nested)
    else:
        yield f"{reply}\n"


def execute_line(server: Server, line: str, limit: int = MAX_REPLY_CHARS) -> str:
    """Run one console line on the server's console connection; return valkey-cli's output,
    cut after `limit` characters with a line that says so."""
    try:
        args = split_args(line)
    except ParseError as error:
        return str(error)
    if not args:
        return ""
    reply = server.execute(*args)
    replies = list(reply) if isinstance(reply, Replies) else [reply]
    shown: list[str] = []
    size = 0
    for piece in (piece for item in replies for piece in _pieces(item)):
        shown.append(piece)
        size += len(piece)
        if size > limit + 1:  # past the limit, even without the last newline: stop formatting
            break
    else:
        whole = "".join(shown).rstrip("\n")
        if len(whole) <= limit:
            return whole
    return "".join(shown)[:limit].rstrip("\n") + "\n" + _cut(replies, limit)


def _cut(replies: list[Any], limit: int) -> str:
    """The line under a cut reply: how much there was, how much is shown."""
    items = sum(len(reply) if isinstance(reply, list) else 1 for reply in replies)
    whole = f"{items:,} items" if items > 1 else "one reply"
    return (
        f"(cut: the reply holds {whole}; the console shows its first {limit:,} characters. "
        "Ask for fewer, such as LRANGE key 0 99.)"
    )
