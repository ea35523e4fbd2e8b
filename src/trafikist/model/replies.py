"""The shapes of a reply beside bytes, int, list, None and `ReplyError` (RESP2 as the model
returns it): a simple string, and several replies to one command."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trafikist.model.errors import ReplyError


class Status(bytes):
    """A simple-string reply (+OK, +PONG): valkey-cli prints it without quotes."""

    __slots__ = ()


class Replies(list[Any]):
    """Several replies to one command (SUBSCRIBE a b sends one per channel)."""

    __slots__ = ()


OK = Status(b"OK")

# A reply as the server returns it, RESP2-shaped: a bulk or simple string (bytes, Status), an
# integer, an array (a list, Replies), nil (None) or an error (ReplyError, returned, not raised).
type Reply = bytes | int | ReplyError | Sequence[Reply] | None
