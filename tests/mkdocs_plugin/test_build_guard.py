"""The build guard in the MkDocs plugin, in-process: any exception that is not MkDocs' own
build error ends the build (`on_build_error`) with one line naming the file being read and
MkDocs' own "Aborted with a BuildError!", with the traceback only under TRAFIKIST_DEBUG=1 or
`--verbose`; `assets_path` is checked at its line of mkdocs.yml before anything is built; a
site file whose path leads out of the site is refused. The same at `mkdocs build`'s exit:
tests/authoring/test_build_guard.py."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.structure.files import Files

from support import add_plugin_options, copy_project, line_of
from trafikist.base.reading import reading
from trafikist.core.files import SiteFile
from trafikist.core.staging import SiteStaging
from trafikist.mkdocs_plugin import plugin as module
from trafikist.mkdocs_plugin.plugin import TrafikistPlugin


@pytest.fixture(autouse=True)
def no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAFIKIST_DEBUG", raising=False)


def _raised(error: Exception, source: Path) -> Exception:
    try:
        with reading(source):
            raise error
    except Exception as caught:
        return caught
    raise AssertionError


def test_an_unexpected_error_ends_the_build_in_one_line_at_its_source(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    plugin = TrafikistPlugin()
    plugin.staging = SiteStaging(tmp_path / "site")
    staged = plugin.staging.begin()
    page = tmp_path / "modules" / "module.md"
    error = _raised(RecursionError("maximum recursion depth exceeded"), page)
    with caplog.at_level(logging.ERROR, "mkdocs"), pytest.raises(Abort) as caught:
        plugin.on_build_error(error=error)
    assert str(caught.value) == "Aborted with a BuildError!"
    assert [record.getMessage() for record in caplog.records] == [
        f"{page}: the build stopped on an unexpected RecursionError (maximum recursion depth "
        "exceeded) while reading this file. Fix: Look there for what is out of the ordinary "
        "(a value of an unusual type, a link that leads nowhere, very deep nesting) and correct "
        "it; if the file is right, this is a bug of the build: rerun with --debug (or "
        "TRAFIKIST_DEBUG=1) and report its traceback."
    ]
    assert not staged.exists() and plugin.staging is None  # the staging went


@pytest.mark.parametrize("how", ["TRAFIKIST_DEBUG", "--verbose"])
def test_with_debug_mkdocs_raises_it_on_for_its_traceback(
    how: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    if how == "TRAFIKIST_DEBUG":
        monkeypatch.setenv("TRAFIKIST_DEBUG", "1")
    else:  # what mkdocs' --verbose does
        monkeypatch.setattr(logging.getLogger("mkdocs"), "level", logging.DEBUG)
    with caplog.at_level(logging.ERROR, "mkdocs.plugins.trafikist"):
        assert TrafikistPlugin().on_build_error(error=ValueError("x")) is None
    assert len(caplog.records) == 1 and "unexpected ValueError (x)" in caplog.records[0].msg


def test_mkdocs_own_errors_keep_their_message(caplog: pytest.LogCaptureFixture) -> None:
    plugin = TrafikistPlugin()
    with caplog.at_level(logging.ERROR, "mkdocs"):
        assert plugin.on_build_error(error=PluginError("mkdocs.yml:3: own. Fix: x.")) is None
        assert plugin.on_build_error(error=Abort("Aborted with 1 warnings in strict mode!")) is None
    assert caplog.records == []


def test_mkdocs_own_line_before_a_page_error_is_dropped() -> None:
    drop = module._PageErrors()

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("mkdocs.commands.build", logging.ERROR, "", 0, message, (), None)

    assert not drop.filter(record("Error reading page 'trafikist/04-x/index.md': boom"))
    assert not drop.filter(record("Error building page 'index.md':"))
    assert drop.filter(record("Doc file 'a.md' contains a link 'b.md', but it is not found."))


@pytest.mark.parametrize("value", ["../outside", "/srv/www", "assets\\\\trafikist", "''"])
def test_an_assets_path_outside_the_site_is_refused_before_the_build(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_project(tmp_path / "project", ("mkdocs.yml", "overrides", "docs"))
    add_plugin_options(project, assets_path=value)
    monkeypatch.chdir(project)
    config = load_config(config_file=str(project / "mkdocs.yml"))
    plugin = config.plugins["trafikist"]
    with pytest.raises(PluginError) as caught:
        plugin.on_config(config)
    message = str(caught.value)
    line = line_of(project / "mkdocs.yml", "      assets_path:")
    assert message.startswith(f"mkdocs.yml:{line}: the trafikist option 'assets_path' is "), message
    assert "must be written inside the site folder. Fix: Set 'assets_path:'" in message
    assert plugin.build is None  # refused before the course loads, and before any staging
    assert sorted(path.name for path in project.iterdir()) == [
        "docs", "mkdocs.yml", "node_modules", "overrides",
    ]  # fmt: skip


def test_a_site_file_that_leads_out_of_the_site_is_refused(tmp_path: Path) -> None:
    plugin = TrafikistPlugin()
    site_files = [SiteFile("assets/trafikist/ok.js", content=b""), SiteFile("../x.json", b"")]
    plugin.build = SimpleNamespace(
        site=SimpleNamespace(pages=lambda: []),
        site_files=lambda: site_files,
        authors_pages=lambda docs_dir: [],
    )
    config = SimpleNamespace(
        site_dir=str(tmp_path / "site"), docs_dir=str(tmp_path / "docs"), use_directory_urls=True
    )
    with pytest.raises(PluginError, match=r"the build would write '\.\./x\.json' outside the site"):
        plugin.on_files(Files([]), config=config)
