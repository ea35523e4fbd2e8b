"""Valkey statements and their proofs (trafikist.checks.valkey_statements), in-process, on a
one-page course of each test's own: each statement that says how a Valkey command, a Modules
API call or a command flag behaves is proven by a transcript step the page shows, Valkey's
command table or a pinned documentation quote, or the build refuses it with one `FILE:LINE:
what. Fix: how.`."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from support import ROOT
from trafikist.base.errors import CourseError
from trafikist.checks.valkey_statements import named_in
from trafikist.core.site import load_site
from trafikist.registry.valkey import load_valkey_table

TABLE = load_valkey_table(ROOT / "registry" / "valkey")
COURSE_YML = """\
title: A course
summary: One module, to prove Valkey statements on.
books:
  - id: trafikist
    title: Trafikist
    summary: The numbered modules.
    numbered: true
"""
TRANSCRIPT = """\
/// excerpt | the course's runner against Valkey 9.1.2 — INCR, then TTL
    transcript: 01-count

```text
> INCR failures:1
(integer) 1
> TTL failures:1
(integer) -1
```

///
"""


def course(tmp_path: Path, body: str, *, registry: Path | None = None) -> str | None:
    """Build a one-module course whose page is `body` (after a transcript excerpt of INCR and
    TTL); the strict checks' message, or None when the course holds."""
    modules = tmp_path / "modules"
    folder = modules / "01-one"
    (folder / "transcripts").mkdir(parents=True)
    (modules / "course.yml").write_text(COURSE_YML, encoding="utf-8")
    (folder / "transcripts" / "01-count.txt").write_text("INCR failures:1\nTTL failures:1\n")
    page = "---\nid: one\ntitle: One\nsummary: A page.\nstatus: built\n---\n\n"
    (folder / "module.md").write_text(page + textwrap.dedent(body) + "\n" + TRANSCRIPT)
    try:
        load_site(modules, base_dir=ROOT, registry=str(registry or ROOT / "registry"))
    except CourseError as error:
        return str(error)
    return None


def test_a_statement_with_no_proof_is_refused_at_its_line(tmp_path: Path) -> None:
    message = course(tmp_path, "INCR creates the key at 0 when it is missing and adds 1.\n")
    assert message is not None
    assert message.startswith("modules/01-one/module.md:8: an unproven Valkey statement: ") or (
        "module.md:8: an unproven Valkey statement:" in message
    ), message
    assert '"INCR creates the key at 0 when it is missing and adds 1." says how INCR' in message
    assert "Fix: Prove it:" in message


@pytest.mark.parametrize(
    "proof",
    [
        "01-count#2 replies -1",
        '01-count#2 shows "-1"',
        "INCR.flags has write fast",
        "INCR.acl = write string fast",
        "TTL.since = 1.0.0",
        "ZRANGEBYSCORE.deprecated_since = None",
    ],
)
def test_a_proof_that_holds_lets_the_statement_stand(tmp_path: Path, proof: str) -> None:
    assert (
        course(tmp_path, f"[TTL replies -1 for a key with no expiry.]{{valkey: {proof}}}") is None
    )


def test_each_span_of_a_sentence_proves_its_own_words(tmp_path: Path) -> None:
    """Two proven spans in one sentence: the commands of both are proven, and a command named
    outside them is not."""
    both = (
        "[INCR creates the key]{valkey: 01-count#1 replies 1} and "
        "[TTL replies -1 for it]{valkey: 01-count#2 replies -1}."
    )
    assert course(tmp_path / "both", both) is None
    message = course(tmp_path / "outside", both[:-1] + ", and EXPIRE sets one.")
    assert message is not None and "says how EXPIRE behaves" in message, message
    assert "INCR, " not in message.split("says how")[1], message


@pytest.mark.parametrize(
    ("proof", "why"),
    [
        ("01-count#1 replies -1", r"step 1 \(> INCR failures:1\) replies \(integer\) 1"),
        ("01-count#9 replies -1", "names step 9, and the transcript has 2 steps"),
        ("02-other#1 replies 1", "names the transcript '02-other', which the page does not show"),
        ("INCR.flags has blocking", "INCR has flags 'fast write denyoom'|INCR has flags"),
        ("NOSUCH.flags has write", "names 'NOSUCH', which Valkey 9.1.2's table does not have"),
        ("INCR.colour = red", "reads 'colour', which the table does not keep"),
        ('docs topics/nowhere.md "words"', "names the page 'topics/nowhere.md'"),
        ('docs modules-api-ref "It never updates the clock"', "quotes words that no pinned"),
        ("INCR is quick", "cannot be read"),
    ],
)
def test_a_proof_that_does_not_hold_names_the_sentence_and_why(
    tmp_path: Path, proof: str, why: str
) -> None:
    message = course(tmp_path, f"[TTL replies -1 for a key with no expiry.]{{valkey: {proof}}}")
    assert message is not None
    assert "module.md:8: the Valkey proof" in message, message
    assert 'Sentence: "TTL replies -1 for a key with no expiry."' in message
    assert __import__("re").search(why, message), message


def test_a_pinned_quote_proves_a_modules_api_statement(tmp_path: Path) -> None:
    body = (
        "[`ValkeyModule_CachedMicroseconds` gives the cached time, updated before a command "
        'runs.]{valkey: docs topics/modules-api-ref.md "It is updated in the server cron job '
        'and before executing a command."}'
    )
    assert course(tmp_path, body) is None


def test_a_transcript_excerpt_must_name_its_list_and_show_its_commands(tmp_path: Path) -> None:
    body = """\
    /// excerpt | the course's runner against Valkey 9.1.2 — a count
    ```text
    > INCR failures:1
    (integer) 1
    ```
    ///
    """
    message = course(tmp_path, body)
    assert message is not None and "caption says it is a Valkey transcript" in message, message
    shown_other = tmp_path / "other"
    message = course(shown_other, TRANSCRIPT.replace("> TTL failures:1", "> TTL failures:2"))
    assert message is not None
    assert "the transcript '01-count' shows other commands than transcripts/01-count.txt" in (
        message
    ), message


def test_a_transcript_caption_names_the_valkey_that_replied(tmp_path: Path) -> None:
    body = TRANSCRIPT.replace("Valkey 9.1.2", "Valkey 7.0").replace("01-count", "01-count")
    message = course(tmp_path, body.replace("transcript: 01-count", "transcript: 01-count"))
    assert message is not None and "its caption names no Valkey 9.1.2" in message, message


def test_a_link_to_a_command_page_names_a_command(tmp_path: Path) -> None:
    body = "- [Valkey — BLPOOP](https://valkey.io/commands/blpoop/) — a typo.\n"
    message = course(tmp_path, body)
    assert message is not None
    assert "names a command, 'blpoop', that Valkey 9.1.2's command table does not have" in message


def test_the_seeds_own_words_and_a_seed_citation_naming_the_command_need_no_proof(
    tmp_path: Path,
) -> None:
    body = (
        "A parked consumer sends BLPOP on the queue's wake list, with the beat as its timeout.\n\n"
        'BLPOP is what a parked consumer sends. <!-- seed: "a parked consumer sends BLPOP on the '
        "queue's wake list\" -->\n"
    )
    assert course(tmp_path, body) is None
    cited_without_the_command = (
        'BLPOP is what a parked consumer sends. <!-- seed: "The waiting is Valkey\'s own" -->\n'
    )
    message = course(tmp_path / "two", cited_without_the_command)
    assert message is not None and "an unproven Valkey statement" in message, message


def test_names_are_commands_only_where_they_are_used_as_one() -> None:
    assert named_in("a count and its TTL", TABLE) == []
    assert named_in("TTL replies -1", TABLE) == ["TTL"]
    assert named_in("`COMMAND INFO` lists the flags", TABLE) == ["COMMAND INFO"]
    assert named_in("XGROUP CREATE makes a group", TABLE) == ["XGROUP CREATE"]
    assert named_in("EMQ.PROMOTE and `LIMIT` and MAXLEN", TABLE) == []
    assert named_in("the `blocking` command flag", TABLE) == ["the blocking flag"]
    assert named_in("the `admin` flag", TABLE) == ["the admin flag"]  # every flag, one list
    assert named_in("ValkeyModule_SignalKeyAsReady and VALKEYMODULE_OK", TABLE) == [
        "ValkeyModule_SignalKeyAsReady",
        "VALKEYMODULE_OK",
    ]


def test_a_reference_to_a_deprecated_command_says_so_from_the_table(tmp_path: Path) -> None:
    """Valkey 9.1.2 marks no command the course names deprecated; a table that marks one (here
    ZRANGEBYSCORE, in a copy) makes the reference line say so, in the table's words."""
    registry = tmp_path / "registry"
    shutil.copytree(ROOT / "registry", registry)
    snapshot = registry / "valkey" / "commands.json"
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    data["commands"]["zrangebyscore"] |= {"deprecated_since": "6.2.0", "replaced_by": "`ZRANGE`"}
    snapshot.write_text(json.dumps(data), encoding="utf-8")
    line = (
        "- [Valkey — ZRANGEBYSCORE](https://valkey.io/commands/zrangebyscore/) — [the selection "
        "by score]{valkey: ZRANGEBYSCORE.group = sorted-set}.\n"
    )
    assert course(tmp_path, line, registry=registry) is None
    site = load_site(tmp_path / "modules", base_dir=ROOT, registry=str(registry))
    markdown = site.renderer.page_markdown(site.course.pages["one"])
    assert (
        "*Valkey 9.1.2 marks ZRANGEBYSCORE deprecated since 6.2.0; it names `ZRANGE` in its "
        "place.*" in markdown
    )
    plain = load_site(tmp_path / "modules", base_dir=ROOT, registry=str(ROOT / "registry"))
    assert "deprecated" not in plain.renderer.page_markdown(plain.course.pages["one"])
