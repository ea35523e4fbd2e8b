"""Provenance: a sentence about trafikey or EchoMQ is the seed's, or cites the seed sentence it
follows from, and every fact in it (number, flag, arity, verb or library name) is held by a
claim, an expectation, a choice marker or the cited seed sentence. Markdown in, problems out."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import ROOT
from trafikist.checks.provenance import check_provenance
from trafikist.checks.seed import load_seed
from trafikist.course.structure import Kind, Page, Status

SEED = load_seed(ROOT / "registry" / "seed.txt")
VERBS = {"EMQ.PROMOTE", "EMQ.STALLED.CHECK", "EMQ.APPEND", "EMQ.PUBLISH", "EMQ.FAILURES.INCR"}


def problems(tmp_path: Path, body: str) -> list[str]:
    source = tmp_path / "page.md"
    source.write_text("---\nid: p\n---\n" + body, encoding="utf-8")
    page = Page(
        id="p",
        kind=Kind.DIVE,
        title="P",
        summary="",
        status=Status.BUILT,
        book=None,
        source=source,
        body=body,
        body_line=4,
    )
    return [f"{problem.line}: {problem.what}" for problem in check_provenance(page, SEED, VERBS)]


@pytest.mark.parametrize(
    "body",
    [
        # The seed's own words, code marks aside.
        "`EchoMQ.Pump` promotes on a tick of its own, and `EchoMQ.Stalled` can run the counted "
        "sweep on an interval.\n",
        # A consequence, with the seed sentence cited right after it.
        'EchoMQ.Pump sends EMQ.PROMOTE each tick. <!-- seed: "trafikey: EMQ.PROMOTE makes the '
        "same move for flat rows, bounded by batch, and a due lane row refuses the whole call; on "
        "a wire: 6 connection Jobs.promote/3 sends it in place of @promote: EchoMQ.Pump sends it "
        'each tick" -->\n',
        # … or on the line after the paragraph.
        "`EchoMQ.Consumer` parks after each drain.\n"
        '<!-- seed: "EchoMQ.Consumer runs a beat, one second by default: recover expired leases '
        "(with the reaper, unless configured otherwise), promote due jobs, drain the lanes, then "
        'park." -->\n',
        # Every fact inside marked spans.
        "`EchoMQ.Consumer` runs a beat, [one second]{claim: default consumer-beat} by default.\n",
        "[The Pump ticks every 2 seconds]{choice: scenario} on `wire: 6`.\n",
        # No name of trafikey or EchoMQ: a Valkey sentence is not this check's.
        "BLPOP blocks for 5 seconds at most.\n",
        # A heading is a label: a name alone states nothing.
        "## The same sweeps on `wire: 6`\n",
    ],
)
def test_sourced_sentences_pass(tmp_path: Path, body: str) -> None:
    assert problems(tmp_path, body) == []


def test_a_number_that_the_cited_sentence_does_not_hold(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        "Text before.\n\n`EchoMQ.Jobs.promote/3` moves up to 200 members a call by default. "
        '<!-- seed: "up to 100 members a call by default" "EchoMQ.Jobs.promote/3 evaluates '
        '@promote" -->\n',
    )
    assert found == [
        "6: an unchecked fact: '200' stands beside EchoMQ.Jobs.promote/3 in "
        '"`EchoMQ.Jobs.promote/3` moves up to 200 members a call by default.", and no claim, '
        "expectation, choice marker or seed sentence holds it."
    ]


@pytest.mark.parametrize("word", ["zero", "twice", "sixteen"])
def test_a_number_written_as_a_word_is_a_fact(tmp_path: Path, word: str) -> None:
    """The words checks.quantity reads as numbers (the provenance check had a list of its own,
    without "zero")."""
    found = problems(
        tmp_path,
        f"`EchoMQ.Jobs.promote/3` moves {word} members a call by default. "
        '<!-- seed: "up to 100 members a call by default" "EchoMQ.Jobs.promote/3 evaluates '
        '@promote" -->\n',
    )
    assert [text.split(" stands beside")[0] for text in found] == [
        f"4: an unchecked fact: '{word}'"
    ]


def test_a_name_that_the_cited_sentence_does_not_hold(tmp_path: Path) -> None:
    found = problems(
        tmp_path,
        "`EchoMQ.Metronome` sends XAUTOCLAIM. <!-- seed: \"The durable bus's reclaim is a "
        'built-in too, sent by EchoMQ.StreamConsumer on each pass of its loop." -->\n',
    )
    assert found == []  # one name alone is the subject, not a fact
    found = problems(
        tmp_path,
        '`EchoMQ.Metronome` sends EMQ.PROMOTE each tick. <!-- seed: "EchoMQ.Pump promotes on '
        'a tick of its own" -->\n',
    )
    assert any("an unchecked fact: EchoMQ.Metronome stands beside" in text for text in found)
    assert any("an unchecked fact: EMQ.PROMOTE stands beside" in text for text in found)


def test_an_unsourced_sentence(tmp_path: Path) -> None:
    assert problems(tmp_path, "trafikey arms a timer on load.\n") == [
        '4: an unsourced sentence about trafikey: "trafikey arms a timer on load." is not the '
        "seed's, and no source comment cites the seed sentence it follows from."
    ]


def test_a_source_comment_that_the_seed_does_not_hold(tmp_path: Path) -> None:
    found = problems(
        tmp_path, 'trafikey arms a timer. <!-- seed: "trafikey arms a timer on load." -->\n'
    )
    assert found[0] == (
        '4: the source comment cites "trafikey arms a timer on load.", which the seed (seed.txt) '
        "does not say."
    )


def test_a_flag_beside_a_verb(tmp_path: Path) -> None:
    found = problems(tmp_path, "EMQ.APPEND is a blocking command of trafikey.\n")
    assert any("the flag or category 'blocking' stands beside EMQ.APPEND" in text for text in found)


def test_an_acl_category_beside_a_verb(tmp_path: Path) -> None:
    """Every ACL category the page syntax knows (course.syntax.ACL_CATEGORIES) is a fact beside
    a verb, not only those that are command flags too."""
    found = problems(tmp_path, "EMQ.APPEND is in @hash.\n")
    assert any("the flag or category 'hash' stands beside EMQ.APPEND" in text for text in found)


def test_a_caption_states_facts_only_from_the_seed(tmp_path: Path) -> None:
    found = problems(tmp_path, "/// excerpt | trafikey — registry::TABLE, three rows\n///\n")
    assert found == [
        "4: an unchecked fact: 'three' stands beside trafikey in \"trafikey — registry::TABLE, "
        'three rows", and no claim, expectation, choice marker or seed sentence holds it.'
    ]
    seed_caption = "/// excerpt | trafikey — registry::TABLE, two rows: the time-driven sweeps"
    assert problems(tmp_path, seed_caption + "\n///\n") == []


def test_code_and_comments_are_not_prose(tmp_path: Path) -> None:
    body = "```text\ntrafikey arms 9 timers\n```\n\n<!-- trafikey arms 9 timers -->\n"
    assert problems(tmp_path, body) == []
