"""Every kind of bad input ends the build, under each engine (`mkdocs build`, `trafikist build
--engine zensical`), with exit status 1 and one message that names the file, the line where
there is one, what is wrong and how to fix it; no traceback, and the previous site stays as it
was (the build goes to a staging folder that is swapped in only on success)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from authoring.authoring_support import (
    ABORTED,
    DIVE_01,
    DIVE_02,
    DUTIES,
    MODULE,
    MODULE_04,
    GoodSite,
    assert_build_fails,
    digest,
    project_with_site,
)
from support import ROOT, build_env, build_leftovers, edit, line_of, site_build

pytestmark = pytest.mark.slow

SCENARIO = MODULE_04 / "scenarios/promote-due.yml"


@pytest.fixture(scope="session")
def good_site(engine: str, tmp_path_factory: pytest.TempPathFactory) -> GoodSite:
    site = tmp_path_factory.mktemp(f"good-{engine}") / "site"
    result = site_build(engine, ROOT, site)
    assert result.returncode == 0, result.stderr
    return GoodSite(site=site, files=digest(site), engine=engine)


@pytest.fixture
def project(tmp_path: Path, good_site: GoodSite) -> Path:
    return project_with_site(tmp_path / "project", good_site)


def _promote_runs(project: Path, scenarios: str, extra: str = "") -> int:
    """The promote duty runs `scenarios` (a YAML list), plus `extra` lines; returns its line.
    Works whether or not duties.yml names scenarios already."""
    duties = project / DUTIES
    text = duties.read_text(encoding="utf-8")
    start = text.index("  - id: promote\n")
    end = text.index("\n  - id: ", start + 1)
    entry = text[start:end]
    lines = [line for line in entry.split("\n") if not line.startswith("    scenarios:")]
    lines.insert(3, f"    scenarios: {scenarios}\n{extra}".rstrip("\n"))
    duties.write_text(text[:start] + "\n".join(lines) + text[end:], encoding="utf-8")
    return line_of(duties, "id: promote\n")


def test_malformed_yaml(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DUTIES, "    kind: waiting\n", "    kind: waiting: parked\n")
    message = assert_build_fails(
        project, good_site, r"malformed YAML: mapping values are not allowed", file=DUTIES,
        line=line,
    )  # fmt: skip
    assert "Fix: Check the indentation" in message


def test_malformed_front_matter(project: Path, good_site: GoodSite) -> None:
    edit(project / DIVE_02, "id: the-blocking-claim\n", "id: the-blocking: claim\n")
    assert_build_fails(project, good_site, r"malformed YAML", file=DIVE_02, line=2)


def test_front_matter_never_closed(project: Path, good_site: GoodSite) -> None:
    text = (project / DIVE_02).read_text(encoding="utf-8").split("\n")
    closing = text.index("---", 1)
    (project / DIVE_02).write_text("\n".join(text[:closing] + text[closing + 1 :]))
    assert_build_fails(project, good_site, r"front matter is never closed", file=DIVE_02, line=1)


def test_missing_required_field(project: Path, good_site: GoodSite) -> None:
    text = (project / DIVE_01).read_text(encoding="utf-8")
    summary = next(line for line in text.splitlines() if line.startswith("summary:"))
    edit(project / DIVE_01, summary + "\n", "")
    assert_build_fails(
        project, good_site, r"the dive is missing the required field 'summary'\.", file=DIVE_01
    )


def test_unknown_status(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DIVE_02, "status: built\n", "status: draft\n")
    assert_build_fails(
        project, good_site, r"unknown status 'draft'.*Fix: Use one of: built, planned",
        file=DIVE_02, line=line,
    )  # fmt: skip


def test_duplicate_module_id(project: Path, good_site: GoodSite) -> None:
    module_05 = Path("modules/05-tra-and-native-values/module.md")
    line = edit(project / module_05, "id: tra-and-native-values", "id: blocking-timers-and-the-bus")
    message = assert_build_fails(
        project, good_site, r"the id 'blocking-timers-and-the-bus' is already used by",
        file=module_05, line=line,
    )  # fmt: skip
    assert str(MODULE) in message


def test_duplicate_dive_id(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DIVE_02, "id: the-blocking-claim", "id: who-moves-time-today")
    assert_build_fails(
        project, good_site, r"the id 'who-moves-time-today' is already used by .*01-who-moves",
        file=DIVE_02, line=line,
    )  # fmt: skip


def test_duplicate_duty_id(project: Path, good_site: GoodSite) -> None:
    line = edit(project / DUTIES, "  - id: recover\n", "  - id: promote\n")
    assert_build_fails(
        project, good_site, r"the duty id 'promote' is used twice\.", file=DUTIES, line=line
    )


def test_link_to_an_unknown_id(project: Path, good_site: GoodSite) -> None:
    old = "The [first dive](id:who-moves-time-today)"
    line = edit(project / MODULE, old, "The [first dive](id:who-moves-time)")
    assert_build_fails(
        project, good_site, r"the link names an unknown id 'who-moves-time'\..*Close ids: "
        r"who-moves-time-today", file=MODULE, line=line,
    )  # fmt: skip


def test_dive_numbered_out_of_sequence(project: Path, good_site: GoodSite) -> None:
    dives = project / MODULE_04 / "dives"
    (dives / "03-the-native-bus.md").rename(dives / "04-the-native-bus.md")
    assert_build_fails(
        project, good_site,
        r"dive numbered 04 out of sequence: module 04 expects dive 03 here\. "
        r"Fix: Rename it to '03-the-native-bus\.md'",
        file=MODULE_04 / "dives/04-the-native-bus.md",
    )  # fmt: skip


def test_duty_naming_an_unknown_scenario(project: Path, good_site: GoodSite) -> None:
    line = _promote_runs(project, "[promote-soon]")
    assert_build_fails(
        project, good_site, r"the duty 'promote' names an unknown scenario 'promote-soon'\. "
        r"Fix: Create scenarios/promote-soon\.yml", file=DUTIES, line=line,
    )  # fmt: skip


def test_duty_naming_an_unknown_process(project: Path, good_site: GoodSite) -> None:
    line = _promote_runs(project, "[promote-due]", "    process: reaper\n")
    assert_build_fails(
        project, good_site, r"the duty 'promote' names an unknown process 'reaper': no scenario "
        r"it runs \(scenarios/promote-due\.yml\).*Fix: Use one of: consumer, Consumer",
        file=DUTIES, line=line,
    )  # fmt: skip


def test_scenario_breaking_its_schema(project: Path, good_site: GoodSite) -> None:
    _promote_runs(project, "[promote-due]")
    line = edit(project / SCENARIO, "    beat: 1\n", "    beat: soon\n")
    assert_build_fails(
        project, good_site, r"the scenario breaks its schema: 'processes\[0\]\.beat' expected a "
        r"number of seconds, got the text 'soon'\. Fix: Write a number", file=SCENARIO, line=line,
    )  # fmt: skip


def test_excerpt_failing_against_the_registry(project: Path, good_site: GoodSite) -> None:
    old = 'Row { name: c"EMQ.PROMOTE", family: Family::Emq, arity: 6,'
    line = edit(project / MODULE, old, old.replace("arity: 6", "arity: 7"))
    assert_build_fails(project, good_site, r"arity|EMQ\.PROMOTE", file=MODULE, line=line)


def test_claim_failing_against_the_registry(project: Path, good_site: GoodSite) -> None:
    old = "The two commands that move time-driven work"
    claim = "[EMQ.PROMOTE takes seven arguments.]{claim: EMQ.PROMOTE.arity = 7} "
    line = edit(project / MODULE, old, claim + old)
    assert_build_fails(project, good_site, r"EMQ\.PROMOTE|arity", file=MODULE, line=line)


def test_registry_path_that_does_not_exist(project: Path, good_site: GoodSite) -> None:
    edit(project / "mkdocs.yml", "      modules_dir: modules\n",
         "      modules_dir: modules\n      registry: no-such-registry\n")  # fmt: skip
    assert_build_fails(project, good_site, r"no-such-registry.*Fix: .*registry")


def test_pyodide_runtime_missing(project: Path, good_site: GoodSite) -> None:
    _promote_runs(project, "[promote-due]")
    node_modules = project / "node_modules"
    if node_modules.is_symlink() or node_modules.is_file():
        node_modules.unlink()
    elif node_modules.is_dir():
        shutil.rmtree(node_modules)
    node_modules.mkdir()
    message = assert_build_fails(project, good_site, r"Pyodide's runtime is missing")
    assert "scripts/setup" in message


def _node_modules_with(project: Path, *packages: str) -> None:
    """The project's node_modules holds only these packages of the repository's."""
    node_modules = project / "node_modules"
    node_modules.unlink()  # copy_project links the repository's
    node_modules.mkdir()
    for package in packages:
        (node_modules / package).parent.mkdir(parents=True, exist_ok=True)
        (node_modules / package).symlink_to(ROOT / "node_modules" / package)


def test_esbuild_missing(project: Path, good_site: GoodSite) -> None:
    """node_modules has Pyodide and Workbox but not esbuild: the site's scripts and styles
    cannot be bundled, so the build stops before the new site replaces the old one."""
    _node_modules_with(project, "pyodide", "workbox-build")
    message = assert_build_fails(project, good_site, r"esbuild \(npm\) is missing")
    assert message.startswith("node_modules/esbuild: "), message
    assert "Fix: Run scripts/setup" in message


def test_workbox_missing(project: Path, good_site: GoodSite) -> None:
    """node_modules has Pyodide and esbuild but not Workbox's build tools: the offline worker
    cannot be made, so the build stops before the new site replaces the old one."""
    _node_modules_with(project, "pyodide", "esbuild", "@esbuild/linux-x64")
    message = assert_build_fails(
        project, good_site, r"Workbox's build tools \(npm workbox-build\) are missing"
    )
    assert message.startswith("node_modules/workbox-build: "), message
    assert "scripts/setup" in message


def test_strict_mode_warning_keeps_the_previous_site(project: Path, good_site: GoodSite) -> None:
    """A dead link in docs/ aborts a strict build; the staging folder is dropped, not swapped
    in. MkDocs reports it as its own warning; under Zensical, whose link check is the
    adapter's, it is one line like every other."""
    docs = sorted((project / "docs").glob("*.md"))[0]
    with docs.open("a", encoding="utf-8") as file:
        file.write("\nSee [the missing page](no-such-page.md).\n")
    line = len(docs.read_text(encoding="utf-8").splitlines())  # the line just written
    if good_site.engine == "zensical":
        message = assert_build_fails(
            project, good_site, r"the link 'no-such-page\.md' does not resolve: the target is "
            r"not found among documentation files\.",
            file=docs.relative_to(project), line=line,
        )  # fmt: skip
        assert "Fix: Point it at a page that exists" in message
        return
    # Not `mkdocs build -q`: -q drops warnings before mkdocs counts them for --strict.
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(project / "site")],
        cwd=project, env=build_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    output = result.stderr + result.stdout
    assert result.returncode == 1, output
    assert "Traceback" not in output
    assert "no-such-page.md" in output
    assert "Aborted with 1 warnings in strict mode!" in output
    assert digest(project / "site") == good_site.files
    assert build_leftovers(project) == []


def test_a_good_build_replaces_the_site(project: Path, good_site: GoodSite) -> None:
    """The counterpart: the swap happens, and a fixed build brings the site back."""
    edit(project / DIVE_02, "status: built\n", "status: draft\n")
    failed = site_build(good_site.engine, project, project / "site")
    assert failed.returncode == 1 and ABORTED[good_site.engine] in failed.stderr + failed.stdout
    edit(project / DIVE_02, "status: draft\n", "status: built\n")
    result = site_build(good_site.engine, project, project / "site")
    assert result.returncode == 0, result.stderr
    assert set(digest(project / "site")) == set(good_site.files)
    assert build_leftovers(project) == []
