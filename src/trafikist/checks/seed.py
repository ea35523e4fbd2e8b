"""The seed: the published text of module 04, the course's only source on trafikey and EchoMQ.

`registry/seed.txt` is a copy of it, kept beside the library manifest, so the build can check that
a sentence the course teaches is the seed's own, or that the seed sentence a source comment cites
is really there. A test keeps the copy equal to the published text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from trafikist.base.characters import normalized
from trafikist.base.files import read_text_bounded, require_file

SEED_FILE = "seed.txt"
_SPACES = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?:](?=\s|$)")


def normalize(text: str) -> str:
    """Text as the seed is compared: NFC (as the sources are read), no code marks, one kind of
    apostrophe, single spaces."""
    text = normalized(text).replace("`", "").replace("’", "'")
    return _SPACES.sub(" ", text).strip()


@dataclass(frozen=True)
class Seed:
    file: Path
    lines: tuple[str, ...]  # the seed's lines, normalized
    # Comparisons ignore case; each is made often (every sentence of every page), so the seed's
    # side is folded once.
    _folded: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _masked: dict[str, tuple[str, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_folded", tuple(line.casefold() for line in self.lines))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def contains(self, quote: str) -> bool:
        """True when the quote occurs in the seed, within one of its lines (paragraphs); case
        aside, so a sentence may start with a word the seed has in mid-sentence."""
        return self.line_of(quote) is not None

    def lines_like(self, text: str, numbers: re.Pattern[str]) -> list[str]:
        """The seed lines that hold `text` once every number in both is masked: the seed's
        words with a number changed."""
        masked = numbers.sub("#", normalize(text)).casefold()
        if not masked.strip("# "):
            return []
        seed_masked = self._masked.get(numbers.pattern)
        if seed_masked is None:
            seed_masked = tuple(numbers.sub("#", line) for line in self._folded)
            self._masked[numbers.pattern] = seed_masked
        return [
            line for line, folded in zip(self.lines, seed_masked, strict=True) if masked in folded
        ]

    def sentence_of(self, quote: str) -> str | None:
        """The seed's own words for `quote` (as normalized: code marks aside; its case), or
        None when the seed does not say it: the evidence a page shows. The seed's prose comes
        before a line of its navigation or a caption."""
        wanted = normalize(quote).casefold()
        if not wanted:
            return None
        found: list[str] = []
        for line, folded in zip(self.lines, self._folded, strict=True):
            at = folded.find(wanted)
            if at != -1 and len(folded) == len(line):
                found.append(line[at : at + len(wanted)])
                if _SENTENCE_END.search(line, at + len(wanted) - 1):
                    return found[-1]
        return found[0] if found else None

    def line_of(self, quote: str) -> int | None:
        wanted = normalize(quote).casefold()
        if not wanted:
            return None
        for number, line in enumerate(self._folded, start=1):
            if wanted in line:
                return number
        return None


def resolve_seed_path(manifest_path: Path) -> Path:
    """The seed sits beside the library manifest (registry/seed.txt)."""
    return manifest_path.with_name(SEED_FILE)


def _paragraphs(lines: list[str]) -> list[str]:
    """The seed's lines, with each run of `// ` comment lines (an excerpt's caption, wrapped)
    also joined into one line, so a caption can be quoted whole."""
    joined: list[str] = []
    run: list[str] = []
    for line in [*lines, ""]:
        if line.startswith("//"):
            run.append(line.removeprefix("//").strip())
            continue
        if len(run) > 1:
            joined.append(" ".join(run))
        run = []
    return joined


def load_seed(path: Path) -> Seed:
    require_file(
        path,
        "the seed (the published module 04 text, the course's source on trafikey and "
        "EchoMQ) is missing.",
        f"Put the published text beside the library manifest as {SEED_FILE}.",
    )
    lines = [normalize(line) for line in read_text_bounded(path).splitlines()]
    return Seed(path, tuple(lines + _paragraphs(lines)))
