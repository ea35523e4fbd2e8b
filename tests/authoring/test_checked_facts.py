"""The build refuses an unchecked fact: each mutation of a checked sentence, and each dead link,
ends a strict build under each engine (`mkdocs build --strict`, `trafikist build --engine
zensical --strict`) with exit status 1 and one `FILE:LINE: what. Fix: how.` message, no
traceback, and the previous site intact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import ROOT, edit, line_of, site_build
from support.authoring import (
    ABORTED,
    DIVE_01,
    DUTIES,
    MODULE,
    GoodSite,
    assert_build_fails,
    digest,
    project_with_site,
)

pytestmark = pytest.mark.slow

GUIDE = Path("docs/authoring.md")


@pytest.fixture(scope="session")
def good_site(engine: str, tmp_path_factory: pytest.TempPathFactory) -> GoodSite:
    site = tmp_path_factory.mktemp(f"good-{engine}") / "site"
    result = site_build(engine, ROOT, site)
    assert result.returncode == 0, result.stderr
    return GoodSite(site=site, files=digest(site), engine=engine)


@pytest.fixture
def project(tmp_path: Path, good_site: GoodSite) -> Path:
    return project_with_site(tmp_path / "project", good_site)


# -- executable "between calls" ---------------------------------------------------------------


def test_a_between_calls_sentence_that_the_model_contradicts(
    project: Path, good_site: GoodSite
) -> None:
    # The promote duty says a due job stays in schedule between calls: j1 (due at 2.5 s) stays
    # there until the beat at about 3 s. Claim it stays until 3.5 s, which the run refutes.
    line = edit(
        project / DUTIES,
        "{expect: j1 in schedule from 2.5 to 3;",
        "{expect: j1 in schedule from 2.5 to 3.5;",
    )
    message = assert_build_fails(
        project,
        good_site,
        r"the expectation 'j1 in schedule from 2\.5 to 3\.5' does not hold on the model's run "
        r"of modules/04-blocking-timers-and-the-bus/scenarios/promote-due\.yml",
        file=DUTIES,
        line=line - 1,  # the field's first line, `between_calls: >-`
    )
    # The message shows the trace step that disagrees and quotes the sentence.
    assert re.search(
        r"j1 is in pending \(trace step \d+, t=3\.01\d s: consumer EVALSHA @promote", message
    )
    assert 'Sentence: "between calls, a due job stays in schedule"' in message


def test_a_between_calls_sentence_with_no_expectation(project: Path, good_site: GoodSite) -> None:
    edit(
        project / DUTIES,
        "      [between calls, a due job stays in schedule]{expect: j1 in schedule from 2.5 to 3;\n"
        "      j1 reaches pending at 3}",
        "      between calls, a due job stays in schedule",
    )
    line = line_of(project / DUTIES, "between calls, a due job stays in schedule") - 1
    assert_build_fails(
        project,
        good_site,
        r"the duty 'promote' says what happens between calls with no expectation",
        file=DUTIES,
        line=line,
    )


def test_a_worked_example_sentence_that_the_model_contradicts(
    project: Path, good_site: GoodSite
) -> None:
    line = edit(
        project / DIVE_01,
        "{expect: j6 in active from 1.5 to 4.9;",
        "{expect: j6 in active from 1.5 to 5.5;",
    )
    message = assert_build_fails(
        project, good_site, r"the expectation 'j6 in active from 1\.5 to 5\.5' does not hold",
        file=DIVE_01, line=line,
    )  # fmt: skip
    assert "at 5.001 s j6 is in pending" in message
    assert 'Sentence: "The lease of j6 expires at 1.5 s;' in message


# -- no unmarked facts ------------------------------------------------------------------------


def test_a_default_in_a_duty_changed_inside_its_claim(project: Path, good_site: GoodSite) -> None:
    line = line_of(project / DUTIES, "    library: >-")  # the promote duty's: the first
    edit(
        project / DUTIES,
        "[100]{claim: default promote-members-per-call}",
        "[200]{claim: default promote-members-per-call}",
    )
    assert_build_fails(
        project,
        good_site,
        r"the claim 'default promote-members-per-call' does not hold: the page says 200, the "
        r"manifest gives 100",
        file=DUTIES,
        line=line,
    )


def test_a_default_in_a_duty_changed_with_no_claim(project: Path, good_site: GoodSite) -> None:
    # The seed's own row, with its number changed and no claim: the number is what fails.
    line = line_of(project / DUTIES, "    library: >-")
    edit(project / DUTIES, "[100]{claim: default promote-members-per-call}", "200")
    assert_build_fails(
        project,
        good_site,
        r"an unchecked fact: '200' stands beside .*EchoMQ\.Jobs\.promote/3.* in \"`EchoMQ\.Jobs",
        file=DUTIES,
        line=line,
    )


def test_a_number_beside_a_library_name_in_a_dive(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / DIVE_01,
        "- `EchoMQ.Pump` promotes on a tick of its own.",
        "- `EchoMQ.Pump` promotes on a tick of its own, every 2 seconds.",
    )
    assert_build_fails(
        project, good_site, r"an unchecked fact: '2' stands beside `?EchoMQ\.Pump", file=DIVE_01,
        line=line,
    )  # fmt: skip


def test_a_sentence_about_trafikey_with_no_source(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / DIVE_01,
        "No production caller opens such a connection today.",
        "No production caller opens such a connection today. trafikey plans a timer.",
    )
    assert_build_fails(
        project, good_site, r'an unsourced sentence about trafikey: "trafikey plans a timer\."',
        file=DIVE_01, line=line,
    )  # fmt: skip


def test_a_source_comment_that_misquotes_the_seed(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / DIVE_01,
        '<!-- seed: "EchoMQ.Pump promotes on a tick of its own, and EchoMQ.Stalled can run',
        '<!-- seed: "EchoMQ.Pump promotes on a tick of its own, and EchoMQ.Stalled will run',
    )
    assert_build_fails(
        project, good_site, r'the source comment cites "EchoMQ\.Pump promotes .* will run',
        file=DIVE_01, line=line,
    )  # fmt: skip


def test_a_claim_checked_against_the_models_own_choice(project: Path, good_site: GoodSite) -> None:
    # The snapshot's gate list is the model's own choice: a claim against it checks nothing.
    line = edit(
        project / DIVE_01,
        "Its load gate's list of host functions names no timer function, and no call in the "
        "crate's source arms one.",
        "[Its load gate's list of host functions names no timer function.]{claim: gate lacks "
        "timer}",
    )
    assert_build_fails(
        project, good_site, r"the claim 'gate lacks timer' checks nothing: the entries of the gate "
        r"list \(registry/src/gate\.rs:\d+\) are the model's own choice", file=DIVE_01, line=line,
    )  # fmt: skip


# -- no dead links ----------------------------------------------------------------------------


def test_a_dead_relative_link(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / MODULE,
        "Take the dives in order: time first, then waiting, then the bus.",
        "Take the dives in order: time first, then waiting, then the bus, or [the old page]"
        "(../03-old/index.md).",
    )
    assert_build_fails(
        project, good_site, r"the link '\.\./03-old/index\.md' is a relative path", file=MODULE,
        line=line,
    )  # fmt: skip


def test_a_dead_anchor(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / MODULE,
        "The [first dive](id:who-moves-time-today) follows",
        "The [first dive](id:who-moves-time-today#the-timer) follows",
    )
    message = assert_build_fails(
        project, good_site, r"the link 'id:who-moves-time-today#the-timer' names the anchor "
        r"'#the-timer', which the page 'who-moves-time-today' does not have", file=MODULE,
        line=line,
    )  # fmt: skip
    assert "#the-clock-each-call-reads" in message  # the anchors it has, to pick from


def test_a_dead_anchor_on_the_same_page(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / DIVE_01,
        "The next dive, [The blocking claim]",
        "As [the clock](#the-clock) shows, the next dive, [The blocking claim]",
    )
    assert_build_fails(
        project, good_site, r"the link '#the-clock' names the anchor '#the-clock'", file=DIVE_01,
        line=line,
    )  # fmt: skip


def test_a_dead_link_in_a_guide_page_names_its_line(project: Path, good_site: GoodSite) -> None:
    # docs/ is plain Markdown: the engine's validation checks it (MkDocs' own, or the Zensical
    # adapter's check of the finished site), and the message is the course's.
    line = edit(
        project / GUIDE,
        "# Writing the course\n",
        "# Writing the course\n\nSee [the old guide](old-guide.md) and "
        "[a section](registry.md#gone).\n",
    )
    result = site_build(good_site.engine, project, project / "site")
    output = result.stderr + result.stdout
    assert result.returncode == 1, output
    assert "Traceback" not in output
    # MkDocs logs its validation as warnings that end a strict build; Zensical's adapter, whose
    # check it is, prints them as the build's errors.
    level = "WARNING -  " if good_site.engine == "mkdocs" else "ERROR    -  "
    assert (
        f"{level}docs/authoring.md:{line + 2}: the link 'old-guide.md' does not resolve: the "
        "target is not found among documentation files. Fix: " in output
    ), output
    assert f"docs/authoring.md:{line + 2}: the link 'registry.md#gone' does not resolve" in output
    assert "does not contain an anchor '#gone'" in output
    if good_site.engine == "mkdocs":
        assert "Aborted with 2 warnings in strict mode!" in output
    else:
        assert ABORTED[good_site.engine] in output
    assert digest(project / "site") == good_site.files, "the previous site was changed"
