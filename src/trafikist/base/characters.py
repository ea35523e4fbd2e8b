"""Characters a course source may not hold: the invisible ones and the letters that look like
others. What a check reads must be what the reader sees.

`traf\u00adikey` shows as "trafikey" and is another word to every check; so is `trafikеy` with
a Cyrillic `е`. A sentence written so about trafikey would be published unchecked. The text of
every source is normalised (NFC: an accented letter is one character, however it was typed)
before any check reads it, and what stays suspicious is refused at its line:

- an invisible character: a format character (soft hyphen, zero-width space, joiners, bidi
  controls, a byte-order mark past the file's start), a control character but tab and line
  ends, a line or paragraph separator, a variation selector, a filler that prints as nothing;
- a letter or digit that is another's look-alike by its form (`ｔ`, `𝐭`, `ﬁ`: NFKC makes
  them ASCII);
- a word that mixes scripts (`trаfikey`: Latin with a Cyrillic `а`), or a word of Cyrillic or
  Greek letters that all look Latin (`рор`);
- a combining mark left on a letter (one with no precomposed form), and a spelling of one of
  the names the checks look for with accents (`tráfikey`).

Standard library only (layer 0): the loader and the checks both call it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Not format characters (Cf), yet they print as nothing.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f")
_ALLOWED_CONTROLS = frozenset("\t\n\r")
# They change the order the reader sees characters in, not the order a check reads them.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Cyrillic and Greek letters that look like Latin ones: a word made of them only reads as a
# Latin word.
_LATIN_LOOKING = frozenset("аеорсухіјѕԁԛԝүһԍвкмнтАВЕКМНОРСТУХІЈЅԌԚԜҮҺαοιικνυχρτΑΒΕΖΗΙΚΜΝΟΡΤΥΧ")
# Letters whose script is everyone's (Unicode's Common), not Latin's or Greek's.
_COMMON_LETTERS = frozenset("µªº")
_NOT_PRINTABLE_ASCII = re.compile(r"[^\t\n\r\x20-\x7e]")
_NON_ASCII_ALNUM = re.compile(r"[^\W_\x00-\x7f]")
# The names the checks look for (trafikist.checks.provenance): an accented spelling of one
# slips past them.
_CHECKED_NAMES = ("trafikey", "echomq", "elixir", "valkey", "emq")


@dataclass(frozen=True)
class Suspect:
    """The first suspicious character of a text: where it is and what to say."""

    offset: int
    what: str  # a sentence, ending with its full stop
    fix: str


def normalized(text: str) -> str:
    """The text as every check and the page read it: NFC (é is one character)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def first_suspect(text: str) -> Suspect | None:
    """The first invisible character, look-alike letter or mixed-script word of `text` (NFC
    already), or None. Linear in the text, and only what is not printable ASCII is looked at."""
    found = [
        suspect for suspect in (_first_character(text), _first_word(text)) if suspect is not None
    ]
    return min(found, key=lambda suspect: suspect.offset) if found else None


def column(text: str, offset: int) -> int:
    """The 1-based column of `offset` on its line."""
    return offset - text.rfind("\n", 0, offset)


def line_index(text: str, offset: int) -> int:
    """The 0-based line of `offset`."""
    return text.count("\n", 0, offset)


def describe(character: str) -> str:
    name = unicodedata.name(character, "")
    return f"U+{ord(character):04X} {name}".rstrip()


def _is_invisible(character: str) -> bool:
    if character in _ALLOWED_CONTROLS:
        return False
    category = unicodedata.category(character)
    return (
        category in ("Cf", "Cc", "Zl", "Zp", "Co", "Cs", "Cn")
        or character in _BLANK_LETTERS
        or "\ufe00" <= character <= "\ufe0f"
        or "\U000e0100" <= character <= "\U000e01ef"
    )


def _invisible_at(text: str, offset: int) -> Suspect:
    character = text[offset]
    at = column(text, offset)
    if character == "\x00":
        what = f"this line holds a NUL character (U+0000), invisible, at column {at}."
    elif character == "\ufeff":
        what = f"this line holds a byte-order mark (U+FEFF), invisible, at column {at}."
    else:
        word = _word_around(text, offset)
        shown = "".join(c for c in word if not _is_invisible(c))
        what = f"this line holds an invisible character, {describe(character)}, at column {at}"
        if character in _BIDI_CONTROLS:
            what += (
                f": the reader sees '{shown}' in another order than every check reads it."
                if shown.strip()
                else "; it reorders the text that follows it."
            )
        elif shown.strip():
            what += f": the reader sees '{shown}', and every check reads another word."
        else:
            what += "."
    return Suspect(offset, what, "Delete it: a source of the course is plain UTF-8 text.")


def _word_around(text: str, offset: int) -> str:
    start = offset
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = offset + 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end][:60]


def _first_character(text: str) -> Suspect | None:
    for found in _NOT_PRINTABLE_ASCII.finditer(text):
        offset = found.start()
        character = text[offset]
        if _is_invisible(character):
            return _invisible_at(text, offset)
        if unicodedata.category(character) == "Mn":
            if offset > 0 and (text[offset - 1].isalpha() or text[offset - 1].isdigit()):
                return Suspect(
                    offset,
                    f"a combining mark, {describe(character)}, is left on the letter before it "
                    f"at column {column(text, offset)}: it reads as another word to every check.",
                    "Type the letter with its accent as one character, or leave the mark out.",
                )
            continue
        compatible = unicodedata.normalize("NFKC", character)
        if (
            character.isalnum()
            and compatible.isascii()
            and compatible.isalnum()
            and not unicodedata.category(character).startswith("No")
        ):
            return Suspect(
                offset,
                f"'{character}' ({describe(character)}) at column {column(text, offset)} looks "
                f"like '{compatible}' and is another character to every check.",
                f"Type '{compatible}' instead.",
            )
    return None


def _first_word(text: str) -> Suspect | None:
    """The first suspicious word among those holding a letter or digit that is not ASCII;
    each word is read once (no pattern that backtracks over a long run of letters)."""
    position = 0
    while (found := _NON_ASCII_ALNUM.search(text, position)) is not None:
        start = found.start()
        while start > 0 and _is_word_character(text[start - 1]):
            start -= 1
        end = found.end()
        while end < len(text) and _is_word_character(text[end]):
            end += 1
        suspect = _word_suspect(text, start, text[start:end])
        if suspect is not None:
            return suspect
        position = end
    return None


def _is_word_character(character: str) -> bool:
    return character.isalnum()


def _script(character: str) -> str | None:
    """The script of a letter, as its Unicode name begins (LATIN, CYRILLIC, GREEK, …); None
    for a digit or a letter everyone's script shares."""
    if character.isascii():
        return "LATIN" if character.isalpha() else None
    if not character.isalpha() or character in _COMMON_LETTERS:
        return None
    name = unicodedata.name(character, "")
    return name.split(" ", 1)[0] if name else None


def _word_suspect(text: str, start: int, word: str) -> Suspect | None:
    scripts: dict[str, int] = {}
    for index, character in enumerate(word):
        script = _script(character)
        if script is not None:
            scripts.setdefault(script, index)
    if len(scripts) > 1 and "LATIN" in scripts:
        other, index = next((s, i) for s, i in scripts.items() if s != "LATIN")
        character = word[index]
        return Suspect(
            start + index,
            f"the word '{word}' mixes Latin and {other.title()} letters: '{character}' "
            f"({describe(character)}, at column {column(text, start + index)}) looks Latin and "
            "is another letter to every check.",
            "Type the word again in Latin letters.",
        )
    if scripts.keys() & {"CYRILLIC", "GREEK"} and all(c in _LATIN_LOOKING for c in word):
        return Suspect(
            start,
            f"the word '{word}' at column {column(text, start)} is written in "
            f"{next(iter(scripts)).title()} letters that all look Latin: it reads as a Latin "
            "word, and is another word to every check.",
            "Type the word again in Latin letters.",
        )
    skeleton = "".join(
        c for c in unicodedata.normalize("NFKD", word) if unicodedata.category(c) != "Mn"
    ).casefold()
    if skeleton != word.casefold() and (skeleton in _CHECKED_NAMES or skeleton.startswith("emq")):
        return Suspect(
            start,
            f"the word '{word}' at column {column(text, start)} is '{skeleton}' with accents: "
            "the checks that look for that name would not see it.",
            "Write the name without accents, as the course spells it.",
        )
    return None
