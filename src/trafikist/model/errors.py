"""The two kinds of failure the model reports: a Valkey error reply, and a bad scenario."""

from __future__ import annotations


class ReplyError(Exception):
    """An error reply. It is returned as a reply (like RESP2 does), never raised to the caller.

    `str(error)` is the whole text the server sends, code first: `ERR syntax error`,
    `WRONGTYPE Operation against a key holding the wrong kind of value`.
    """

    __slots__ = ("text",)

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"ReplyError({self.text!r})"

    def __eq__(self, other: object) -> bool:
        # Compares equal to any exception whose text is the same, so replies from the model and
        # from a real server can be compared directly.
        return isinstance(other, Exception) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(self.text)


class ScenarioError(ValueError):
    """A scenario that does not fit the schema: names the file, the field path and the fix."""

    def __init__(self, source: str, path: str, what: str, fix: str):
        self.source = source
        self.path = path
        self.what = what
        self.fix = fix
        where = f"{source}: {path}" if path else source
        super().__init__(f"{where}: {what} Fix: {fix}")


def syntax_error() -> ReplyError:
    return ReplyError("ERR syntax error")


WRONGTYPE = ReplyError("WRONGTYPE Operation against a key holding the wrong kind of value")
NOT_INTEGER = ReplyError("ERR value is not an integer or out of range")
NOT_FLOAT = ReplyError("ERR value is not a valid float")
INVALID_STREAM_ID = ReplyError("ERR Invalid stream ID specified as stream command argument")
