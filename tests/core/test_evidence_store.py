"""A page's verdicts kept on disk by the process that checked it (trafikist.core.evidence_store):
a build's process that renders without the checks (they ran in its child) shows the same
evidence without running them, and the next build's checks run only where something changed; a
page whose text changed, or another code, is checked again."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from support import ROOT, copy_project
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
