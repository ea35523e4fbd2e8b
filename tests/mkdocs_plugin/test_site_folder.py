"""The MkDocs side of the site folder's safety, in-process, in throw-away copies: `-d DIR` and
site_dir are checked in on_config, before the course loads and before any staging; without
the course's plugin in mkdocs.yml, MkDocs stops while it validates the configuration (before it
empties the site folder), with one line; an interrupted build removes its staging folder
(on_shutdown). The same at `mkdocs build`'s exit: tests/authoring/test_site_folder.py."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import PluginError

from support import copy_project, edit, line_of
from trafikist.core.sitedir import MARKER
from trafikist.course.markdown.without_plugin import ABORTED

PARTS = ("mkdocs.yml", "overrides", "docs")
PLUGIN_ENTRY = "  - trafikist:\n      modules_dir: modules\n      widgets_dir: widgets\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = copy_project(tmp_path / "project", PARTS)
    for name in ("modules", "widgets", "registry", "notes"):
        (folder / name).mkdir()
        (folder / name / "kept.txt").write_text(name)
    (folder / "modules" / "course.yml").write_text("books: []\n")
    monkeypatch.chdir(folder)
    return folder


def _names(project: Path) -> list[str]:
    return sorted(path.name for path in project.iterdir())


@pytest.mark.parametrize(
    ("site_dir", "start"),
    [
        ("modules", "-d modules: the site folder is modules, one of the project's sources"),
        ("registry/site", "-d registry/site: the site folder lies inside registry, one of"),
        ("notes", "-d notes: the site folder holds 1 entry and was not made by the build"),
        ("mkdocs.yml", "-d mkdocs.yml: the site folder is mkdocs.yml, one of the project's"),
    ],
)
def test_mkdocs_refuses_a_site_folder_before_anything_is_touched(
    project: Path, site_dir: str, start: str
) -> None:
    before = _names(project)
    config = load_config(config_file=str(project / "mkdocs.yml"), site_dir=site_dir)
    plugin = config.plugins["trafikist"]
    with pytest.raises(PluginError) as caught:
        plugin.on_config(config)
    assert str(caught.value).startswith(start), caught.value
    assert plugin.build is None and plugin.staging is None
    assert _names(project) == before
    assert (project / "notes" / "kept.txt").read_text() == "notes"


def test_site_dir_of_mkdocs_yml_is_refused_at_its_line(project: Path) -> None:
    config_file = project / "mkdocs.yml"
    config_file.write_text(config_file.read_text() + "site_dir: modules\n")
    config = load_config(config_file=str(config_file))
    with pytest.raises(PluginError) as caught:
        config.plugins["trafikist"].on_config(config)
    line = line_of(config_file, "site_dir: modules")
    assert str(caught.value).startswith(f"mkdocs.yml:{line}: the site folder modules is modules")


def test_mkdocs_serve_shows_a_site_dir_that_would_destroy_a_source(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file = project / "mkdocs.yml"
    config_file.write_text(config_file.read_text() + "site_dir: widgets\n")
    config = load_config(config_file=str(config_file), site_dir=str(project / "served"))
    plugin = config.plugins["trafikist"]
    plugin.on_startup(command="serve", dirty=False)
    plugin.on_config(config)  # serve goes on, with the error on every page
    assert plugin.preview_error is not None
    assert plugin.preview_error.startswith("mkdocs.yml:"), plugin.preview_error
    assert "the site folder widgets is widgets, one of the project's sources" in (
        plugin.preview_error
    )
    assert (project / "widgets" / "kept.txt").is_file()


# -- without the course's plugin ---------------------------------------------------------------


def test_without_the_plugin_mkdocs_stops_while_it_reads_mkdocs_yml(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config_file = project / "mkdocs.yml"
    edit(config_file, PLUGIN_ENTRY, "")
    with caplog.at_level(logging.ERROR, "mkdocs"), pytest.raises(SystemExit) as caught:
        load_config(config_file=str(config_file))
    assert str(caught.value) == ABORTED
    line = line_of(config_file, "plugins:")
    assert [record.getMessage() for record in caplog.records] == [
        f"mkdocs.yml:{line}: plugins: does not list 'trafikist', the course's plugin: MkDocs "
        "would empty the site folder and build docs/ without the course. Fix: Add '- trafikist' "
        "under plugins: (with its options, such as modules_dir: modules), as the repository's "
        "mkdocs.yml has it; the last site is unchanged."
    ]


def test_a_project_with_no_course_may_use_the_extensions_alone(project: Path) -> None:
    """A plain build of the pages the course rendered (the benchmarks' baseline)."""
    (project / "modules" / "course.yml").unlink()
    config_file = project / "mkdocs.yml"
    edit(config_file, PLUGIN_ENTRY, "")
    assert "trafikist" not in load_config(config_file=str(config_file)).plugins


@pytest.mark.parametrize(
    "plugins",
    [
        "plugins:\n  - search\n  - trafikist\n",
        "plugins:\n  search: {}\n  trafikist:\n    modules_dir: modules\n",
    ],
)
def test_the_plugin_listed_any_way_mkdocs_takes_it_passes(project: Path, plugins: str) -> None:
    config_file = project / "mkdocs.yml"
    text = config_file.read_text()
    start = text.index("plugins:\n")
    end = text.index("\nmarkdown_extensions:")
    config_file.write_text(text[:start] + plugins + text[end:])
    assert "trafikist" in load_config(config_file=str(config_file)).plugins


# -- an interrupted build ----------------------------------------------------------------------


def test_an_interrupted_build_removes_its_staging(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "site").mkdir()
    (project / "site" / MARKER).write_text("")
    (project / "site" / "index.html").write_text("last good")
    config = load_config(config_file=str(project / "mkdocs.yml"))
    plugin = config.plugins["trafikist"]
    plugin.on_startup(command="build", dirty=False)
    plugin._stage(config)  # as on_config stages it
    staged = Path(config.site_dir)
    assert staged.is_dir() and staged.name.startswith(".site-building-")
    plugin.on_shutdown()  # what `mkdocs build` runs on its way out of a KeyboardInterrupt
    assert not staged.exists()
    assert (project / "site" / "index.html").read_text() == "last good"
    assert "Interrupted: the build stopped; the last good site is unchanged." in (
        capsys.readouterr().err
    )
