"""Every kind of bad input an author makes ends the build with one line, `FILE:LINE: what.
Fix: how.`, in-process and with no engine (support.building): the core's load, checks, pages,
files and what comes after the pages. One end-to-end build per failure path and engine
(tests/authoring/test_failing_builds.py) shows the same line at the engine's exit status 1,
with no traceback and the last good site intact."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import copy_project, edit, line_of
from support.authoring import (
    DIVE_01,
    DIVE_02,
    DUTIES,
    MODULE,
    MODULE_04,
    drop_esbuild,
    drop_workbox,
    empty_node_modules,
    promote_runs,
)
from support.building import assert_core_build_fails, core_build

SCENARIO = MODULE_04 / "scenarios/promote-due.yml"
MODULE_05 = Path("modules/05-tra-and-native-values/module.md")
COURSE_FILE = Path("modules/course.yml")


@dataclass(frozen=True)
class Case:
    name: str
    change: Callable[[Path], int | None]  # breaks the project; returns the line it names
    pattern: str
    file: Path | None = None  # the file the message names, when it names one
    also: tuple[str, ...] = ()  # more text the message holds


def drop_summary(project: Path) -> None:
    text = (project / DIVE_01).read_text(encoding="utf-8")
    summary = next(line for line in text.splitlines() if line.startswith("summary:"))
    edit(project / DIVE_01, summary + "\n", "")


def never_close_front_matter(project: Path) -> int:
    text = (project / DIVE_02).read_text(encoding="utf-8").split("\n")
    closing = text.index("---", 1)
    (project / DIVE_02).write_text("\n".join(text[:closing] + text[closing + 1 :]))
    return 1


def renumber_dive(project: Path) -> None:
    dives = project / MODULE_04 / "dives"
    (dives / "03-the-native-bus.md").rename(dives / "04-the-native-bus.md")


def break_a_scenario(project: Path) -> int:
    promote_runs(project, "[promote-due]")
    return edit(project / SCENARIO, "    beat: 1\n", "    beat: soon\n")


def name_a_missing_registry(project: Path) -> None:
    edit(
        project / "mkdocs.yml",
        "      modules_dir: modules\n",
        "      modules_dir: modules\n      registry: no-such-registry\n",
    )


TIME_LIMIT_FIX = "Fix: Set 'run_time_limit:' under '- trafikist:' to a whole number of seconds"


def set_run_time_limit(project: Path, value: str) -> int:
    """Set the plugin's run_time_limit in mkdocs.yml; the line it is on."""
    anchor = "      widgets_dir: widgets\n"
    return edit(project / "mkdocs.yml", anchor, f"{anchor}      run_time_limit: {value}\n") + 1


CASES = [
    Case(
        "malformed YAML",
        lambda p: edit(p / DUTIES, "    kind: waiting\n", "    kind: waiting: parked\n"),
        r"malformed YAML: mapping values are not allowed",
        DUTIES,
        ("Fix: Check the indentation",),
    ),
    Case(
        "malformed front matter",
        lambda p: edit(p / DIVE_02, "id: the-blocking-claim\n", "id: the-blocking: claim\n"),
        r"malformed YAML",
        DIVE_02,
    ),
    Case(
        "front matter never closed",
        never_close_front_matter,
        "front matter is never closed",
        DIVE_02,
    ),
    Case(
        "missing required field",
        lambda p: drop_summary(p),
        r"the dive's front matter is missing the required field 'summary'\. Fix: Add 'summary:'",
        DIVE_01,
    ),
    Case(
        "unknown status",
        lambda p: edit(p / DIVE_02, "status: built\n", "status: draft\n"),
        r"'status' is 'draft', not one of 'built' or 'planned'\. Fix: Write one of 'built' or "
        r"'planned'\.",
        DIVE_02,
    ),
    Case(
        "duplicate module id",
        lambda p: edit(
            p / MODULE_05, "id: tra-and-native-values", "id: blocking-timers-and-the-bus"
        ),
        r"the id 'blocking-timers-and-the-bus' is already used by",
        MODULE_05,
        (str(MODULE),),
    ),
    Case(
        "duplicate dive id",
        lambda p: edit(p / DIVE_02, "id: the-blocking-claim", "id: who-moves-time-today"),
        r"the id 'who-moves-time-today' is already used by .*01-who-moves",
        DIVE_02,
    ),
    Case(
        "duplicate duty id",
        lambda p: edit(p / DUTIES, "  - id: recover\n", "  - id: promote\n"),
        r"the duty id 'promote' is used twice\.",
        DUTIES,
    ),
    Case(
        "duplicate book id",
        lambda p: edit(p / COURSE_FILE, "  - id: queue\n", "  - id: protocol\n"),
        r"the book id 'protocol' is used twice\. Fix: Give each book its own id\.",
        COURSE_FILE,
    ),
    Case(
        "link to an unknown id",
        lambda p: edit(
            p / MODULE,
            "The [first dive](id:who-moves-time-today)",
            "The [first dive](id:who-moves-time)",
        ),
        r"the link names an unknown id 'who-moves-time'\..*Close ids: who-moves-time-today",
        MODULE,
    ),
    Case(
        "dive numbered out of sequence",
        lambda p: renumber_dive(p),
        r"dive numbered 04 out of sequence: module 04 expects dive 03 here\. "
        r"Fix: Rename it to '03-the-native-bus\.md'",
        MODULE_04 / "dives/04-the-native-bus.md",
    ),
    Case(
        "duty naming an unknown scenario",
        lambda p: promote_runs(p, "[promote-soon]") + 3,  # the scenarios line
        r"the duty 'promote' names an unknown scenario 'promote-soon'\. "
        r"Fix: Create scenarios/promote-soon\.yml beside duties\.yml, or name an existing one "
        r"\(batch-append, claim-lanes, .*\)\.",
        DUTIES,
    ),
    Case(
        "duty naming an unknown process",
        lambda p: promote_runs(p, "[promote-due]", "    process: reaper\n"),
        r"the duty 'promote' names an unknown process 'reaper': no scenario it runs "
        r"\(scenarios/promote-due\.yml\).*Fix: Use one of: consumer, Consumer",
        DUTIES,
    ),
    Case(
        "scenario breaking its schema",
        break_a_scenario,
        r"the scenario breaks its schema: 'processes\[0\]\.beat' expected a number of seconds, "
        r"got the text 'soon'\. Fix: Write a number",
        SCENARIO,
    ),
    Case(
        "excerpt failing against the registry",
        lambda p: edit(
            p / MODULE,
            'Row { name: c"EMQ.PROMOTE", family: Family::Emq, arity: 6,',
            'Row { name: c"EMQ.PROMOTE", family: Family::Emq, arity: 7,',
        ),
        r"excerpt row EMQ\.PROMOTE, field 'arity': expected 6 \(registry\), found 7 \(excerpt\)",
        MODULE,
    ),
    Case(
        "claim failing against the registry",
        lambda p: edit(
            p / MODULE,
            "Every EMQ.* command reads",
            "[EMQ.PROMOTE takes seven arguments.]{claim: EMQ.PROMOTE.arity = 7} "
            "Every EMQ.* command reads",
        ),
        r"the claim 'EMQ\.PROMOTE\.arity = 7' does not hold: EMQ\.PROMOTE has arity 6",
        MODULE,
    ),
    Case(
        "registry path that does not exist",
        lambda p: name_a_missing_registry(p),
        r"the registry folder .*no-such-registry .*does not exist.*Fix: .*registry",
        Path("mkdocs.yml"),
    ),
    Case(
        "run time limit of zero",
        lambda p: set_run_time_limit(p, "0"),
        r"the trafikist option 'run_time_limit' is 0, outside 1–600 seconds",
        Path("mkdocs.yml"),
        (TIME_LIMIT_FIX,),
    ),
    Case(
        "negative run time limit",
        lambda p: set_run_time_limit(p, "-1"),
        r"the trafikist option 'run_time_limit' is -1, outside 1–600 seconds",
        Path("mkdocs.yml"),
        (TIME_LIMIT_FIX,),
    ),
    Case(
        "run time limit past setTimeout's longest wait",
        lambda p: set_run_time_limit(p, "3000000"),
        r"the trafikist option 'run_time_limit' is 3000000, outside 1–600 seconds",
        Path("mkdocs.yml"),
        (TIME_LIMIT_FIX,),
    ),
    Case(
        "run time limit that is no number",
        lambda p: set_run_time_limit(p, "yes"),
        r"the trafikist option 'run_time_limit' is True, not a number of seconds",
        Path("mkdocs.yml"),
        (TIME_LIMIT_FIX,),
    ),
    Case(
        "Pyodide's runtime missing",
        lambda p: empty_node_modules(p),
        r"Pyodide's runtime is missing",
        also=("scripts/setup",),
    ),
    Case(
        "esbuild missing",
        lambda p: drop_esbuild(p),
        r"esbuild \(npm\) is missing",
        Path("node_modules/esbuild"),
        ("Fix: Run scripts/setup",),
    ),
    Case(
        "Workbox missing",
        lambda p: drop_workbox(p),
        r"Workbox's build tools \(npm workbox-build\) are missing",
        Path("node_modules/workbox-build"),
        ("scripts/setup",),
    ),
]


@pytest.mark.build
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_bad_input_ends_the_build_with_one_line(case: Case, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    line = case.change(project)
    message = assert_core_build_fails(project, case.pattern, file=case.file, line=line)
    for text in case.also:
        assert text in message, message


def test_each_case_breaks_what_it_names(tmp_path: Path) -> None:
    """The table's cases are distinct failures: no two give the same message."""
    assert len({re.sub(r"\W", "", case.pattern) for case in CASES}) == len(CASES)


@pytest.mark.build
def test_a_changed_registry_fails_every_sentence_that_quotes_it(tmp_path: Path) -> None:
    """trafikey's row gains the blocking flag: each excerpt that quotes the row and each claim
    that no row carries the flag fails, one line each, at its own file and line."""
    project = copy_project(tmp_path / "project")
    edit(
        project / "registry/src/registry.rs",
        'arity: 6,\n        flags: "write"',
        'arity: 6,\n        flags: "write blocking"',
    )
    message = core_build(project)
    assert message is not None
    lines = message.splitlines()
    excerpt = (
        "excerpt row EMQ.PROMOTE, field 'flags': expected \"write blocking\" (registry), "
        'found "write" (excerpt).'
    )
    assert (
        f"{MODULE}:{line_of(project / MODULE, 'flags: "write", keys: EVAL_KEYS')}: {excerpt}"
        in message
    )
    assert any(
        line.startswith(f"{MODULE}:") and "the claim '*.flags lacks blocking' does not hold" in line
        for line in lines
    ), message
    assert all(re.match(r"^[\w./-]+:\d+: .+ Fix: .+$", line) for line in lines), message
