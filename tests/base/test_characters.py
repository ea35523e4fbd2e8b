"""trafikist.base.characters: which characters a course source may not hold. The sources'
tests (tests/checks/test_hostile_sources.py) build the course with them; here each class, and
what the course's own text uses, which stays fine."""

from __future__ import annotations

import pytest

from trafikist.base.characters import first_suspect, line_index, normalized


@pytest.mark.parametrize(
    "character",
    [
        "\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u180e", "\u034f",
        "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\u061c",
        "\ufe0f", "\U000e0041", "\U000e0100", "\u3164", "\u2800", "\x07", "\x0b", "\x7f",
        "\x85", "\u2028", "\u2029", "\ue000",
    ],
)  # fmt: skip
def test_an_invisible_character_is_named_at_its_column(character: str) -> None:
    text = f"first line\nEMQ.PRO{character}MOTE moves due jobs.\n"
    suspect = first_suspect(normalized(text))
    assert suspect is not None
    assert line_index(text, suspect.offset) == 1
    assert f"U+{ord(character):04X}" in suspect.what and "at column 8" in suspect.what


@pytest.mark.parametrize(
    ("word", "letter"),
    [
        ("tr\u0430fikey", "\u0430"),  # Cyrillic a
        ("Ech\u043eMQ", "\u043e"),  # Cyrillic o
        ("\u0415MQ.PROMOTE", "\u0415"),  # Cyrillic capital Ie
        ("Valk\u0435y", "\u0435"),
        ("tra\u03bfikey", "\u03bf"),  # Greek omicron
        ("\u0440\u043e\u0440", "\u0440"),  # a Cyrillic word that looks Latin: "pop"
        ("\u03bf\u03bd", "\u03bf"),  # a Greek one: "ov"
        ("\uff54rafikey", "\uff54"),  # fullwidth
        ("\U0001d42dr", "\U0001d42d"),  # mathematical bold t
        ("\ufb01le", "\ufb01"),  # the fi ligature
        ("tr\u00e1fikey", "tr\u00e1fikey"),  # an accent on a checked name
        ("Ech\u00f6MQ", "Ech\u00f6MQ"),
        ("q\u0301", "U+0301"),  # a mark with no precomposed letter
    ],
)
def test_a_look_alike_is_named(word: str, letter: str) -> None:
    suspect = first_suspect(normalized(f"The {word} claim."))
    assert suspect is not None and letter in suspect.what, suspect


@pytest.mark.parametrize(
    "text",
    [
        "A long wait … — “quoted” · j1 → pending ← 2 − 1 – 3",
        "5 µs, 2², ½ s, a non\u00a0breaking space, the em\u2003space",
        "A Greek word, \u03b5\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac, is no look-alike.",
        "caf\u00e9 na\u00efve",
        "plain ASCII\twith a tab\r\n",
    ],
)
def test_what_the_course_writes_is_fine(text: str) -> None:
    assert first_suspect(normalized(text)) is None


def test_nfc_joins_an_accent_typed_apart() -> None:
    assert normalized("cafe\u0301") == "caf\u00e9"
    assert first_suspect(normalized("cafe\u0301")) is None


def test_a_long_word_is_read_in_linear_time() -> None:
    """No pattern backtracks over a run of letters: a megabyte of them is read at once."""
    text = "a" * 1_000_000 + "\u0430"
    suspect = first_suspect(text)
    assert suspect is not None and suspect.offset == 1_000_000
