"""Every sentence that carries a source comment cites the seed word for word: the published
module 04 text, the course's only source on trafikey and EchoMQ. And the build's copy of the
seed (registry/seed.txt) is that text."""

from __future__ import annotations

import pytest

from support import ROOT, SEED
from trafikist.checks.seed import load_seed, normalize
from trafikist.checks.sentences import Sentence, page_sentences
from trafikist.course.loader import load_course

PUBLISHED = SEED
COPY = ROOT / "registry" / "seed.txt"


def sourced_sentences() -> list[Sentence]:
    course = load_course(ROOT / "modules")
    return [
        sentence
        for page in course.pages.values()
        if page.source is not None
        for sentence in page_sentences(page)
        if sentence.quotes
    ]


SOURCED = sourced_sentences()


def test_the_copy_of_the_seed_is_the_published_text() -> None:
    if not PUBLISHED.is_file():
        pytest.skip(f"the published seed is not beside the repository ({PUBLISHED})")
    assert COPY.read_bytes() == PUBLISHED.read_bytes()


def test_the_course_sources_its_sentences() -> None:
    # Module 04's dives, duties and the home page lean on the seed through these comments.
    files = {sentence.file.name for sentence in SOURCED}
    assert {
        "01-who-moves-time-today.md",
        "02-the-blocking-claim.md",
        "03-the-native-bus.md",
    } <= files
    assert {"duties.yml", "course.yml"} <= files
    assert len(SOURCED) >= 60


@pytest.mark.parametrize(
    "sentence",
    SOURCED,
    ids=[f"{s.file.name}:{s.line}:{s.markdown[:40]}" for s in SOURCED],
)
def test_each_quote_is_in_the_seed(sentence: Sentence) -> None:
    seed = load_seed(PUBLISHED if PUBLISHED.is_file() else COPY)
    for quote in sentence.quotes:
        assert seed.contains(quote), (
            f"{sentence.file}:{sentence.line}: {normalize(quote)!r} is not in {seed.file}"
        )
