"""One end-to-end build per failure path, under each engine (`mkdocs build --strict`,
`trafikist build --engine zensical --strict`): exit status 1, one `FILE:LINE: what. Fix: how.`
line, no traceback, and the previous site byte for byte, with no staging folder left behind.
Every kind of bad input is refused in-process by tests/checks/test_bad_input.py and
test_checked_facts.py; here each path a failure takes through an engine is taken once:

    the course's load   malformed YAML in duties.yml
    the checks          an expectation the model's run refutes; a Valkey statement with no
                        proof, or with one that the transcript or the command table refutes
                        (issue 18); a question whose key the model refutes, or whose run does
                        not exist (issue 19); an unfair question (issue 25: a hidden work time,
                        a repeated order item, a copied answer, a `given` the prompt does not
                        say, a number without its precision)
    the duty widget     Pyodide's runtime missing from node_modules
    the site's files    esbuild missing (its scripts and styles cannot be bundled)
    after the pages     Workbox missing (the offline worker cannot be made)
    the engine          a dead link in a guide page (MkDocs' validation, or Zensical's finish)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import add_plugin_options, build_leftovers, edit, site_build
from support.authoring import (
    ABORTED,
    DIVE_02,
    DUTIES,
    MODULE,
    GoodSite,
    assert_build_fails,
    digest,
    drop_esbuild,
    drop_workbox,
    empty_node_modules,
)
from support.fairness import UNFAIR, Unfair

GUIDE = Path("docs/authoring.md")
DIVE_03 = Path("modules/04-blocking-timers-and-the-bus/dives/03-the-native-bus.md")


def test_a_course_that_does_not_load(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DUTIES, "    kind: waiting\n", "    kind: waiting: parked\n")
    message = assert_build_fails(
        project, good_site, r"malformed YAML: mapping values are not allowed", file=DUTIES,
        line=line,
    )  # fmt: skip
    assert "Fix: Check the indentation" in message


def test_a_check_that_fails(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DUTIES, "{expect: j1 in schedule from 2.5 to 3;",
                "{expect: j1 in schedule from 2.5 to 3.5;")  # fmt: skip
    message = assert_build_fails(
        project, good_site, r"the expectation 'j1 in schedule from 2\.5 to 3\.5' does not hold",
        file=DUTIES, line=line - 1,
    )  # fmt: skip
    assert re.search(r"j1 is in pending \(trace step \d+, t=3\.01\d s", message), message


# -- Valkey statements (issue 18) ---------------------------------------------------------------


def test_a_valkey_statement_with_no_proof(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / MODULE,
        "## Who moves time today\n",
        "## Who moves time today\n\nPUBLISH replies with the number of clients that received it.\n",
    )
    message = assert_build_fails(
        project, good_site,
        r'an unproven Valkey statement: "PUBLISH replies with the number of clients that '
        r'received it\." says how PUBLISH behaves, and no proof holds it',
        file=MODULE, line=line + 2,
    )  # fmt: skip
    assert "Fix: Prove it: point it at a step of a transcript" in message


def test_a_proof_pointing_at_a_step_that_says_otherwise(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DIVE_03, "03-two-tiers#1 replies 0}", "03-two-tiers#2 replies 0}")
    message = assert_build_fails(
        project, good_site,
        r"the Valkey proof '03-two-tiers#2 replies 0' does not hold: step 2 "
        r'\(> XADD events 1-1 f1 v1 f2 v2\) replies "1-1"\. Sentence: "It posts a message to a '
        r'channel and replies with the number of clients that received it\."',
        file=DIVE_03, line=line,
    )  # fmt: skip
    assert "Fix: Point it at the step that shows what the sentence says" in message


def test_a_flag_the_command_table_refutes(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DIVE_02, "BLPOP.flags has blocking", "BLPOP.flags has readonly")
    message = assert_build_fails(
        project, good_site,
        r"the Valkey proof 'BLPOP\.flags has readonly' does not hold: Valkey 9\.1\.2's BLPOP has "
        r"flags 'blocking write'",
        file=DIVE_02, line=line,
    )  # fmt: skip
    assert "registry/valkey/commands.json has the table" in message


# -- questions (issue 19) ------------------------------------------------------------------------

WHERE_RIGHT = "  - text: Still in schedule.\n    right: true\n"
WHERE_WRONG = "  - text: In pending, moved when it fell due.\n"


def test_a_marked_answer_the_run_refutes(project: Path, good_site: GoodSite) -> None:
    """The key moved to a wrong option: it is named once, with the option that holds."""
    edit(project / MODULE, WHERE_RIGHT, "  - text: Still in schedule.\n")
    line = edit(project / MODULE, WHERE_WRONG, WHERE_WRONG + "    right: true\n")
    message = assert_build_fails(
        project, good_site,
        r"the marked answer of 'a-consumer-that-stops', \"In pending, moved when it fell due\.\","
        r" does not hold: in the model's run, j1 stays in schedule, where the run began it, to "
        r"the end",
        file=MODULE, line=line,
    )  # fmt: skip
    assert 'the option "Still in schedule." holds' in message
    assert "Fix: Mark the option the run (or the registry, or the seed) bears out" in message


def test_a_wrong_option_made_true(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / MODULE, "    expect: j1 in active at end\n", "    expect: j1 in schedule at end\n"
    )
    message = assert_build_fails(
        project, good_site,
        r"the option \"In active, claimed by the consumer before it stopped\.\" of "
        r"'a-consumer-that-stops' "
        r"holds too, so the question has two answers",
        file=MODULE, line=line - 1,
    )  # fmt: skip
    assert "j1 stays in schedule" in message


def test_a_question_on_a_scenario_that_does_not_exist(project: Path, good_site: GoodSite) -> None:
    line = edit(
        project / MODULE,
        "run: duty promote\nwith: {beat: 2}\ngiven: [j1.due",
        "run: scenario promote-later\nwith: {beat: 2}\ngiven: [j1.due",
    )
    message = assert_build_fails(
        project, good_site,
        r"the question's run 'scenario promote-later' names no run of this page \(its runs: "
        r"duty promote, .*\); did you mean 'scenario promote-due'\?",
        file=MODULE, line=line,
    )  # fmt: skip
    assert "Fix: Name a run of this page (`run: duty ID`" in message


# -- fair questions (issue 25) --------------------------------------------------------------


@pytest.mark.parametrize("case", UNFAIR, ids=[case.name for case in UNFAIR])
def test_an_unfair_question(project: Path, good_site: GoodSite, case: Unfair) -> None:
    """A hidden work time, a repeated order item, an answer copied from the prose above, a
    `given` the prompt does not say, a number without its precision: the strict build names
    each at its line, under each engine, and keeps the last site."""
    line = case.apply(project)
    message = assert_build_fails(project, good_site, case.pattern, file=case.page, line=line)
    assert case.fix in message


def test_the_duty_widget_without_pyodide(project: Path, good_site: GoodSite) -> None:
    empty_node_modules(project)
    message = assert_build_fails(project, good_site, r"Pyodide's runtime is missing")
    assert "scripts/setup" in message


def test_no_scripts_without_esbuild(project: Path, good_site: GoodSite) -> None:
    drop_esbuild(project)
    message = assert_build_fails(project, good_site, r"esbuild \(npm\) is missing")
    assert message.startswith("node_modules/esbuild: "), message
    assert "Fix: Run scripts/setup" in message


def test_no_offline_worker_without_workbox(project: Path, good_site: GoodSite) -> None:
    drop_workbox(project)
    message = assert_build_fails(
        project, good_site, r"Workbox's build tools \(npm workbox-build\) are missing"
    )
    assert message.startswith("node_modules/workbox-build: "), message


def test_a_dead_link_in_a_guide_page(project: Path, good_site: GoodSite) -> None:
    """docs/ is plain Markdown, the authors' pages: a build that holds them (the preview, or
    the option `authors_pages`) has the engine's validation check them (MkDocs' own, or the
    Zensical adapter's check of the finished site), and the message is the course's. MkDocs
    logs its validation as warnings that end a strict build; the Zensical adapter, whose check
    it is, prints them as the build's errors."""
    add_plugin_options(project, authors_pages="true")
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
    assert build_leftovers(project) == []


def test_a_good_build_replaces_the_site(project: Path, good_site: GoodSite) -> None:
    """The counterpart: the swap happens, and a fixed build brings the site back."""
    edit(project / DUTIES, "    kind: waiting\n", "    kind: waiting: parked\n")
    failed = site_build(good_site.engine, project, project / "site")
    assert failed.returncode == 1 and ABORTED[good_site.engine] in failed.stderr + failed.stdout
    edit(project / DUTIES, "    kind: waiting: parked\n", "    kind: waiting\n")
    result = site_build(good_site.engine, project, project / "site")
    assert result.returncode == 0, result.stderr
    assert set(digest(project / "site")) == set(good_site.files)
    assert build_leftovers(project) == []


# -- mkdocs.yml (issue 28) ------------------------------------------------------------------------


def test_a_required_markdown_extension_removed(project: Path, good_site: GoodSite) -> None:
    """MkDocs built the course with its blocks printed as text, exit 0; Zensical too."""
    config = Path("mkdocs.yml")
    edit(project / config, "  - trafikist.course.markdown.blocks\n", "")
    line = edit(project / config, "markdown_extensions:\n", "markdown_extensions:\n")
    message = assert_build_fails(
        project, good_site,
        r"markdown_extensions does not list 'trafikist\.course\.markdown\.blocks', which the "
        r"course's pages are written for",
        file=config, line=line,
    )  # fmt: skip
    assert "Fix: Add '- trafikist.course.markdown.blocks' under markdown_extensions:" in message


def test_a_plugin_option_of_the_wrong_type(project: Path, good_site: GoodSite) -> None:
    """MkDocs printed its own message, with no line and no fix."""
    config = Path("mkdocs.yml")
    line = edit(project / config, "      widgets_dir: widgets\n", "      widgets_dir: 5\n")
    message = assert_build_fails(
        project, good_site, r"the trafikist option 'widgets_dir' must be a str, not 5\.",
        file=config, line=line,
    )  # fmt: skip
    assert "Fix: Write a str, as the default 'widgets' is." in message


def test_a_mistyped_top_level_option(project: Path, good_site: GoodSite) -> None:
    """Zensical built without the setting, exit 0; MkDocs stopped its strict build with
    "Aborted with 1 configuration warnings", no line and no fix; the last site stays."""
    config = Path("mkdocs.yml")
    line = edit(project / config, "docs_dir: docs\n", "docs_dir: docs\nextra_csss: []\n") + 1
    message = assert_build_fails(
        project, good_site, r"'extra_csss' is not an option of mkdocs\.yml",
        file=config, line=line,
    )  # fmt: skip
    assert "Fix: Write 'extra_css:' if that is the option meant." in message
