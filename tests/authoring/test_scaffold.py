"""`trafikist new module|dive` and `trafikist check`: the next number, the status, the front
matter, and a course that still builds strict with the new page on the home page and in the
navigation."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import (
    PROJECT_PARTS,
    ROOT,
    add_plugin_options,
    article,
    build_env,
    copy_project,
    edit,
    site_build,
    soup,
)
from support.authoring import MODULE_04
from support.questions import WHERE, project_with_questions
from trafikist import cli
from trafikist.base.errors import CourseError
from trafikist.checks.links import check_id_links
from trafikist.core.site import load_site
from trafikist.course.review import REVIEW_PAGE_ID
from trafikist.course.scaffold import NewPage, new_dive, new_module
from trafikist.course.sources import read_front_matter
from trafikist.course.structure import Status


def trafikist(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trafikist.cli", *args],
        cwd=project, env=build_env(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.slow
def test_new_module_and_dive_are_linked_into_the_course(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    made = trafikist(project, "new", "module", "Timers in the server",
                     "--summary", "Where a timer fires without a client.")  # fmt: skip
    assert made.returncode == 0, made.stderr
    module = project / "modules/06-timers-in-the-server/module.md"
    assert "module 06" in made.stdout and module.is_file()
    document = read_front_matter(module)
    assert document.meta == {
        "id": "timers-in-the-server",
        "title": "Timers in the server",
        "status": "planned",
        "summary": "Where a timer fires without a client.",
    }
    for block in ("/// takeaway", "/// forward", "/// excerpt |", "/// dive-cards", "/// up-next"):
        assert block in document.body

    dive = trafikist(project, "new", "dive", "06", "The first timer", "--status", "built")
    assert dive.returncode == 0, dive.stderr
    assert (project / "modules/06-timers-in-the-server/dives/01-the-first-timer.md").is_file()
    second = trafikist(project, "new", "dive", "timers-in-the-server", "A second timer")
    assert second.returncode == 0, second.stderr
    assert (project / "modules/06-timers-in-the-server/dives/02-a-second-timer.md").is_file()

    result = site_build(engine, project, project / "site")
    assert result.returncode == 0, result.stderr
    home = article(soup(project / "site/index.html"))
    entry = home.select_one("[data-page=timers-in-the-server]")
    assert entry is not None and "module 06" in entry.get_text(" ")
    assert "planned" in entry.get_text(" ")
    # The written dive is listed under its module with the written pages; the module and the
    # planned dive are listed again, marked, with the pages not written yet.
    assert [a.get_text() for a in entry.select(".tk-course-entry__dives a")] == ["The first timer"]
    waiting = home.select_one("[data-book=planned]")
    assert waiting is not None
    for page_id in ("timers-in-the-server", "a-second-timer"):
        listed = waiting.select_one(f"[data-page={page_id}]")
        assert listed is not None and "planned" in listed.get_text(" "), page_id
    page = soup(project / "site/trafikist/06-timers-in-the-server/index.html")
    nav = " ".join(a.get_text(" ", strip=True) for a in page.select("nav.md-nav a"))
    assert "06 · Timers in the server" in nav and "01 · The first timer" in nav
    # A planned page keeps its draft in the source, not in the published page.
    assert "trafikist:draft" not in (project / "site/trafikist/06-timers-in-the-server/index.html"
                                     ).read_text(encoding="utf-8")  # fmt: skip


@pytest.mark.build
def test_new_refuses_a_taken_id_and_an_unknown_module(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    taken = trafikist(project, "new", "dive", "04", "Who moves time today")
    assert taken.returncode == 1
    assert "the id 'who-moves-time-today' is already used" in taken.stderr
    assert "Traceback" not in taken.stderr
    unknown = trafikist(project, "new", "dive", "09", "Anything")
    assert unknown.returncode == 1
    assert "no module is numbered or named '09'" in unknown.stderr
    assert not list((project / "modules").glob("09-*"))


@pytest.mark.build
def test_check_prints_the_build_message_and_exits_1(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    assert trafikist(project, "check").returncode == 0
    line = edit(project / MODULE_04 / "module.md", "status: built\n", "status: bilt\n")
    result = trafikist(project, "check")
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"{MODULE_04.as_posix()}/module.md:{line}: 'status' is 'bilt', not one of 'built' or "
        "'planned'. Fix: Write one of 'built' or 'planned'."
    )
    assert "Traceback" not in result.stderr


def course_without_questions(folder: Path) -> Path:
    """The project with its course replaced by one scaffolded module and its dive, written and
    asking no questions; docs/ as it is, whose authoring page links the review page by id."""
    project = copy_project(folder, tuple(part for part in PROJECT_PARTS if part != "modules"))
    (project / "modules").mkdir()
    shutil.copy2(ROOT / "modules/course.yml", project / "modules/course.yml")
    built = NewPage("A first module", "The first module of a new course.", Status.BUILT)
    module = new_module(project / "modules", built)
    dive = NewPage("A first dive", "The first dive of a new course.", Status.BUILT)
    new_dive(project / "modules", module.page_id, dive)
    assert "/// check" not in module.path.read_text(encoding="utf-8")
    assert "(id:review)" in (project / "docs/authoring.md").read_text(encoding="utf-8")
    return project


@pytest.mark.build
def test_a_link_to_the_review_page_of_a_course_without_questions_is_its_text(
    tmp_path: Path,
) -> None:
    """The review page exists only in a course that asks questions; a link to it elsewhere
    (docs/authoring.md has one) shows as its text, and the same link resolves once it does."""
    project = course_without_questions(tmp_path / "project")
    site = load_site(project / "modules")
    assert REVIEW_PAGE_ID not in site.course.pages
    link = '<p>The generated page <a href="id:review#every-question">Review</a> asks.</p>'
    assert (
        site.renderer.finalize_html(link, "authoring/") == "<p>The generated page Review asks.</p>"
    )
    # Any other unknown id still fails, and the checks of a module's links accept this one.
    with pytest.raises(CourseError, match="unknown id 'reviews'"):
        site.renderer.finalize_html('<a href="id:reviews">Review</a>', "authoring/")
    assert check_id_links(site.course) == []
    edit(next((project / "modules").glob("01-*/module.md")), "## What runs today\n",
         "## What runs today\n\nAnswer [the review](id:review) later.\n")  # fmt: skip
    assert check_id_links(load_site(project / "modules", checks=False).course) == []
    with_questions, _ = project_with_questions(tmp_path / "asks", WHERE)
    asks = load_site(with_questions / "modules")
    assert 'href="../review/#every-question"' in asks.renderer.finalize_html(link, "authoring/")


@pytest.mark.slow
def test_a_course_without_questions_builds(engine: str, tmp_path: Path) -> None:
    project = course_without_questions(tmp_path / "project")
    add_plugin_options(project, authors_pages="true")  # docs/, built apart under authors/
    result = site_build(engine, project, project / "site")
    assert result.returncode == 0, result.stderr
    assert not (project / "site/review").exists()
    guide = article(soup(project / "site/authors/authoring/index.html"))
    sentence = next(p for p in guide.select("p") if "asks every question of the course" in p.text)
    assert "the generated page Review asks" in " ".join(sentence.text.split())
    assert sentence.select("a") == []


def _files(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*"))


@pytest.mark.build
@pytest.mark.parametrize(
    ("title", "says"),
    [
        ("", "modules: the new page's title is empty; nothing was written."),
        ("   ", "modules: the new page's title is empty; nothing was written."),
        ("two\nlines", "modules: the new page's title holds a line break or another control"),
        ("x" * 201, "modules: the new page's title is 201 characters long, more than 200"),
        ("!!!", "modules: the title '!!!' has no ASCII letter or digit to name the page's file"),
        ("Таймеры", "modules: the title 'Таймеры' has no ASCII letter or digit"),
    ],
)
def test_new_changes_nothing_when_it_says_so(
    title: str, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    project = copy_project(tmp_path / "project", ("modules",))
    monkeypatch.chdir(project)
    before = _files(project)
    for kind in (["module", title], ["dive", "04", title]):
        assert cli.main(["new", *kind]) == 1
        error = capsys.readouterr().err
        assert error.startswith(says), error
        assert error.endswith("trafikist: 1 problem; nothing was changed.\n"), error
        assert _files(project) == before


@pytest.mark.build
def test_a_page_the_course_refuses_after_it_was_written_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_project(tmp_path / "project", ("modules",))
    monkeypatch.chdir(project)
    before = _files(project)

    def refused(modules_dir: Path, registry: str | None, **options: object) -> None:
        written = sorted(modules_dir.glob("06-*/module.md")) or sorted(
            modules_dir.glob("04-*/dives/03-*.md")
        )
        assert len(written) == 1  # it was written, then:
        raise CourseError.at(written[0], 3, "'title' is refused.", "Write another.")

    monkeypatch.setattr(cli, "_check_course", refused)
    assert cli.main(["new", "module", "Timers in the server"]) == 1
    assert "nothing was changed" in capsys.readouterr().err
    assert _files(project) == before  # the file and its new folder are gone
    assert cli.main(["new", "dive", "04", "A third look"]) == 1
    assert _files(project) == before
