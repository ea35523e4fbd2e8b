"""A page's verdicts kept on disk by the process that checked it (trafikist.core.evidence_store):
a build's process that renders without the checks (they ran in its child) shows the same
evidence without running them, and the next build's checks run only where something changed; a
page whose text changed, or another code, is checked again."""

from __future__ import annotations

import collections
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, build_env, copy_project
from trafikist import checks
from trafikist.base.diskcache import CACHE_ENV, cache_folder
from trafikist.checks import Facts, PageCheck
from trafikist.checks.inputs import Checked
from trafikist.checks.memo import CHECKS
from trafikist.core import evidence_store
from trafikist.core.site import load_site
from trafikist.course.structure import Page

MODULE_04 = "blocking-timers-and-the-bus"


def checks_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pages whose checks run from now on, each once however many of its checks run."""
    asked: list[str] = []

    def counted(check: PageCheck) -> PageCheck:
        def run(page: Page, facts: Facts) -> Checked:
            if page.id not in asked:
                asked.append(page.id)
            return check.run(page, facts)

        return dataclasses.replace(check, run=run)

    counting = tuple(counted(check) for check in checks.PAGE_CHECKS)
    monkeypatch.setattr(checks, "PAGE_CHECKS", counting)
    monkeypatch.setattr(evidence_store, "PAGE_CHECKS", counting)
    return asked


def test_the_checks_evidence_is_read_back_without_running_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    checked = load_site(ROOT / "modules", base_dir=ROOT)  # the checks' child does this
    assert len(list(cache_folder(evidence_store.KIND).iterdir())) >= 4
    page = checked.course.pages[MODULE_04]
    assert checked.renderer.evidence is not None
    expected = checked.renderer.evidence(page)
    assert len(expected) > 50
    CHECKS.clear()  # another process: no verdict in its memo
    asked = checks_run(monkeypatch)
    rendering = load_site(ROOT / "modules", base_dir=ROOT, checks=False)
    assert rendering.renderer.evidence is not None
    assert rendering.renderer.evidence(rendering.course.pages[MODULE_04]) == expected
    assert asked == []
    # The same with the store off: the checks run again, and find the same evidence; once a
    # page in a build, though its marks, its evidence file and "How we know" each ask.
    monkeypatch.setenv(evidence_store.SWITCH, "0")
    CHECKS.clear()
    rendering = load_site(ROOT / "modules", base_dir=ROOT, checks=False)
    assert rendering.renderer.evidence is not None
    assert rendering.renderer.evidence(rendering.course.pages[MODULE_04]) == expected
    assert rendering.renderer.evidence(rendering.course.pages[MODULE_04]) == expected
    assert asked == [MODULE_04]


@pytest.mark.build  # copies the course and checks it four times
def test_a_changed_page_or_code_is_checked_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    project = copy_project(tmp_path / "project")
    load_site(project / "modules", base_dir=project)
    module = next((project / "modules").glob("04-*/module.md"))
    text = module.read_text(encoding="utf-8")
    module.write_text(text + "\nOne more paragraph.\n", encoding="utf-8")
    CHECKS.clear()
    asked = checks_run(monkeypatch)
    edited = load_site(project / "modules", base_dir=project, checks=False)
    assert edited.renderer.evidence is not None
    edited.renderer.evidence(edited.course.pages[MODULE_04])
    assert asked == [MODULE_04]
    dive = edited.course.pages[MODULE_04].dives[0]
    edited.renderer.evidence(dive)
    assert asked == [MODULE_04]  # another page, unchanged: read back
    # The next build's checks run only on what changed: nothing, then the edited dive.
    CHECKS.clear()
    asked.clear()
    load_site(project / "modules", base_dir=project)
    assert asked == []
    dive_file = dive.source
    assert dive_file is not None
    dive_file.write_text(dive_file.read_text(encoding="utf-8") + "\nOne more.\n", "utf-8")
    CHECKS.clear()
    load_site(project / "modules", base_dir=project)
    assert asked == [dive.id]
    dive_file.write_text(
        dive_file.read_text(encoding="utf-8").removesuffix("\nOne more.\n"), "utf-8"
    )
    CHECKS.clear()
    asked.clear()
    monkeypatch.setattr(evidence_store, "code_version", lambda: "another code")
    rebuilt = load_site(project / "modules", base_dir=project, checks=False)
    assert rebuilt.renderer.evidence is not None
    rebuilt.renderer.evidence(rebuilt.course.pages[dive.id])
    assert asked == [dive.id]


# A build as an author runs it (`mkdocs build`, `trafikist build --engine zensical`), with its
# checks counted: each page check that runs appends "PID<tab>PAGE<tab>CHECK" to a file.
COUNTED_BUILD = """
import dataclasses, os, sys
from mkdocs.__main__ import cli
from trafikist import checks
from trafikist.core import evidence_store
from trafikist.cli import main

counts, engine, site = sys.argv[1:]

def counted(check):
    def run(page, facts):
        with open(counts, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\\t{page.id}\\t{check.name}\\n")
        return check.run(page, facts)
    return dataclasses.replace(check, run=run)

checks.PAGE_CHECKS = evidence_store.PAGE_CHECKS = tuple(map(counted, checks.PAGE_CHECKS))
if engine == "mkdocs":
    cli(["build", "-q", "-d", site])
sys.exit(main(["build", "--engine", engine, "-d", site]))
"""


def test_a_first_build_checks_each_page_once_in_its_child(engine: str, tmp_path: Path) -> None:
    """With nothing kept (a fresh clone's first build), the build's own process runs no page
    check: each page's evidence waits for the verdicts its child keeps as it checks, rather
    than check the page a second time on the other core."""
    project = copy_project(tmp_path / "project")
    runner = tmp_path / "counted_build.py"
    runner.write_text(COUNTED_BUILD, encoding="utf-8")
    counts = tmp_path / "counts.txt"
    environment = build_env() | {CACHE_ENV: str(tmp_path / "cache")}
    command = [sys.executable, str(runner), str(counts), engine, str(tmp_path / "site")]
    result = subprocess.run(
        command, cwd=project, env=environment, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    runs = [line.split("\t") for line in counts.read_text(encoding="utf-8").splitlines()]
    by_process = collections.Counter(pid for pid, _, _ in runs)
    assert len(by_process) == 1, f"page checks ran in {len(by_process)} processes: {by_process}"
    # Forked, the child counts its own runs: each page's checks once.
    checked = collections.Counter((page, check) for _, page, check in runs)
    assert max(checked.values()) == 1
    assert (MODULE_04, "provenance") in checked
    assert len(list((tmp_path / "cache" / evidence_store.KIND).iterdir())) >= 4
