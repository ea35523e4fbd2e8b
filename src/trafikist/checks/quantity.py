"""Numbers as the course writes them: "one second", "up to 100 members", "1000 ms", "wire: 4"."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The numbers the course spells out: every check that reads numbers reads these words as them.
NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "twenty": 20,
    "thirty": 30,
    "sixty": 60,
    "hundred": 100,
    "thousand": 1000,
}
# How many times, in a word.
TIMES_WORDS = {"once": 1, "twice": 2}
# time units, in milliseconds
UNITS = {
    "ms": 1,
    "millisecond": 1,
    "s": 1000,
    "sec": 1000,
    "second": 1000,
    "min": 60_000,
    "minute": 60_000,
    "h": 3_600_000,
    "hour": 3_600_000,
}
QUANTITY = re.compile(
    r"(?<![\w.])(?P<number>-?\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")\b"
    r"(?:\s*(?P<unit>[a-z]+))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quantity:
    number: float
    unit: str | None  # a time unit (singular) or None for a plain count

    def same_as(self, other: Quantity) -> bool:
        if self.unit and other.unit:
            return self.number * UNITS[self.unit] == other.number * UNITS[other.unit]
        return self.number == other.number

    def __str__(self) -> str:
        number = int(self.number) if self.number == int(self.number) else self.number
        if self.unit is None:
            return str(number)
        return f"{number} {self.unit}" + ("" if number == 1 or len(self.unit) < 3 else "s")


def parse_quantity(text: str) -> Quantity | None:
    """The first number in `text`, with its time unit if one follows."""
    match = QUANTITY.search(text.replace("`", ""))
    if match is None:
        return None
    raw = match["number"].lower()
    number = float(NUMBER_WORDS[raw]) if raw in NUMBER_WORDS else float(raw)
    unit = (match["unit"] or "").lower()
    singular = unit[:-1] if unit.endswith("s") and unit[:-1] in UNITS else unit
    return Quantity(number, singular if singular in UNITS else None)
