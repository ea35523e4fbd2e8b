"""Value types of the keyspace and the parsing and formatting rules Valkey applies to arguments."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right, insort
from collections import deque
from decimal import Decimal
from typing import Any

from trafikist.model.errors import NOT_FLOAT, NOT_INTEGER, ReplyError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
_INTEGER = re.compile(rb"-?[1-9][0-9]{0,19}|0")
_FLOAT = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?)", re.I
)


def parse_int(raw: bytes, error: ReplyError = NOT_INTEGER) -> int:
    """Valkey's string2ll: no sign but '-', no leading zero, no space, within int64."""
    if _INTEGER.fullmatch(raw):
        value = int(raw)
        if INT64_MIN <= value <= INT64_MAX:
            return value
    raise error


def parse_float(raw: bytes, error: ReplyError = NOT_FLOAT, empty_is_zero: bool = False) -> float:
    """Valkey's float parsing: decimal or inf, no NaN, no hex, no space, no overflow."""
    if not raw and empty_is_zero:
        return 0.0
    if not _FLOAT.fullmatch(raw):
        raise error
    value = float(raw)
    if value in (float("inf"), float("-inf")) and b"inf" not in raw.lower():
        raise error  # overflow (ERANGE)
    if value == 0.0 and re.search(rb"[1-9]", raw.split(b"e")[0].split(b"E")[0]):
        raise error  # underflow to zero (ERANGE)
    return value


def format_float(value: float) -> bytes:
    """Valkey's d2string: integers while exact and within ±2^62, else fpconv's shortest form."""
    if value != value:
        return b"nan"
    if value == float("inf"):
        return b"inf"
    if value == float("-inf"):
        return b"-inf"
    if value == 0:
        return b"0"
    if -(2**62) <= value <= 2**62 and value == int(value):
        return str(int(value)).encode()
    sign, digits, exponent = Decimal(repr(value)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0")
    exponent = int(exponent) + len(digits) - len(text)
    return (("-" if sign else "") + _emit_digits(text, exponent)).encode()


def _emit_digits(digits: str, k: int) -> str:
    # fpconv's emit_digits: value = digits × 10^k
    count = len(digits)
    exp = abs(k + count - 1)
    if k >= 0 and exp < count + 7:
        return digits + "0" * k
    if k < 0 and (k > -7 or exp < 4):
        offset = count + k
        if offset <= 0:
            return "0." + "0" * -offset + digits
        return digits[:offset] + "." + digits[offset:]
    mantissa = digits[0] + ("." + digits[1:] if count > 1 else "")
    return f"{mantissa}e{'-' if k + count - 1 < 0 else '+'}{exp}"


def as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bool):
        raise TypeError("a command argument cannot be a bool")
    if isinstance(value, int | float):
        return str(value).encode()
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    raise TypeError(f"a command argument must be str, bytes or a number, not {type(value)!r}")


class ListValue(deque[bytes]):
    """A list key: a deque of bytes, head on the left."""

    __slots__ = ()
    type_name = b"list"


class HashValue(dict[bytes, bytes]):
    """A hash key: field to value, in insertion order (as a small Valkey hash replies)."""

    __slots__ = ()
    type_name = b"hash"


class ZSet:
    """A sorted set: member to score, plus (score, member) pairs kept in order."""

    __slots__ = ("items", "scores")
    type_name = b"zset"

    def __init__(self) -> None:
        self.scores: dict[bytes, float] = {}
        self.items: list[tuple[float, bytes]] = []

    def __len__(self) -> int:
        return len(self.scores)

    def add(self, member: bytes, score: float) -> None:
        old = self.scores.get(member)
        if old is not None:
            if old == score:
                return
            del self.items[bisect_left(self.items, (old, member))]
        self.scores[member] = score
        insort(self.items, (score, member))

    def remove(self, member: bytes) -> bool:
        old = self.scores.pop(member, None)
        if old is None:
            return False
        del self.items[bisect_left(self.items, (old, member))]
        return True

    def score_range(
        self, low: float, low_open: bool, high: float, high_open: bool
    ) -> tuple[int, int]:
        """Index bounds [start, end) of the members whose score is within the range."""
        start = (bisect_right if low_open else bisect_left)(self.items, low, key=_score)
        end = (bisect_left if high_open else bisect_right)(self.items, high, key=_score)
        return start, max(start, end)


def _score(item: tuple[float, bytes]) -> float:
    return item[0]


class StreamGroup:
    __slots__ = ("consumers", "entries_read", "last_id", "pel")

    def __init__(self, last_id: tuple[int, int]):
        self.last_id = last_id
        # entry id -> [consumer name, delivery time ms, delivery count]
        self.pel: dict[tuple[int, int], list[Any]] = {}
        # consumer name -> last seen time ms
        self.consumers: dict[bytes, int] = {}
        self.entries_read = 0

    def sorted_pel(self) -> list[tuple[int, int]]:
        return sorted(self.pel)


class Stream:
    """A stream: entries in ID order, the last ID given out, and the consumer groups."""

    __slots__ = ("entries", "entries_added", "groups", "last_id")
    type_name = b"stream"

    def __init__(self) -> None:
        self.entries: list[tuple[tuple[int, int], list[bytes]]] = []
        self.last_id: tuple[int, int] = (0, 0)
        self.groups: dict[bytes, StreamGroup] = {}
        self.entries_added = 0

    def __len__(self) -> int:
        return len(self.entries)

    def index_after(self, entry_id: tuple[int, int], inclusive: bool) -> int:
        bisector = bisect_left if inclusive else bisect_right
        return bisector(self.entries, entry_id, key=_entry_id)

    def get(self, entry_id: tuple[int, int]) -> list[bytes] | None:
        index = bisect_left(self.entries, entry_id, key=_entry_id)
        if index < len(self.entries) and self.entries[index][0] == entry_id:
            return self.entries[index][1]
        return None


def _entry_id(entry: tuple[tuple[int, int], list[bytes]]) -> tuple[int, int]:
    return entry[0]


def format_id(entry_id: tuple[int, int]) -> bytes:
    return b"%d-%d" % entry_id
