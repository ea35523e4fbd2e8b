"""One end-to-end build per failure path, under each engine (`mkdocs build --strict`,
`trafikist build --engine zensical --strict`): exit status 1, one `FILE:LINE: what. Fix: how.`
line, no traceback, and the previous site byte for byte, with no staging folder left behind.
Every kind of bad input is refused in-process by tests/checks/test_bad_input.py and
test_checked_facts.py; here each path a failure takes through an engine is taken once:

    the course's load   malformed YAML in duties.yml
    the checks          an expectation the model's run refutes
    the duty widget     Pyodide's runtime missing from node_modules
    the site's files    esbuild missing (its scripts and styles cannot be bundled)
    after the pages     Workbox missing (the offline worker cannot be made)
    the engine          a dead link in a guide page (MkDocs' validation, or Zensical's finish)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import build_leftovers, edit, site_build
from support.authoring import (
    ABORTED,
    DUTIES,
    GoodSite,
    assert_build_fails,
    digest,
    drop_esbuild,
    drop_workbox,
    empty_node_modules,
    project_with_site,
)

GUIDE = Path("docs/authoring.md")


@pytest.fixture(scope="session")
def good_site(engine: str, built_site: Path) -> GoodSite:
    """The course's strict build (the session's, read only: each test copies it)."""
    return GoodSite(site=built_site, files=digest(built_site), engine=engine)


@pytest.fixture
def project(tmp_path: Path, good_site: GoodSite) -> Path:
    return project_with_site(tmp_path / "project", good_site)


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
    """docs/ is plain Markdown: the engine's validation checks it (MkDocs' own, or the Zensical
    adapter's check of the finished site), and the message is the course's. MkDocs logs its
    validation as warnings that end a strict build; the Zensical adapter, whose check it is,
    prints them as the build's errors."""
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
