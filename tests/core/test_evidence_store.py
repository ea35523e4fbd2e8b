"""A page's evidence kept on disk by the process that checked it (trafikist.core.evidence_store):
a build's process that renders without the checks (they ran in its child) shows the same
evidence without running them; a page whose text changed, or another code, is checked again."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import ROOT, copy_project
from trafikist.base.diskcache import CACHE_ENV, cache_folder
from trafikist.checks import page_evidence
from trafikist.checks.memo import CHECKS
from trafikist.core import evidence_store
from trafikist.core.site import load_site

MODULE_04 = "blocking-timers-and-the-bus"


def checks_run(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pages whose evidence the store asks of the checks from now on."""
    asked: list[str] = []

    def counted(page, facts, signatures):  # type: ignore[no-untyped-def]
        asked.append(page.id)
        return page_evidence(page, facts, signatures)

    monkeypatch.setattr(evidence_store, "page_evidence", counted)
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


@pytest.mark.build  # copies the course and checks it twice
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
    monkeypatch.setattr(evidence_store, "code_version", lambda: "another code")
    rebuilt = load_site(project / "modules", base_dir=project, checks=False)
    assert rebuilt.renderer.evidence is not None
    rebuilt.renderer.evidence(rebuilt.course.pages[dive.id])
    assert asked == [MODULE_04, dive.id]
