"""Under `mkdocs serve`, the theme's environments keep their compiled templates and list the
theme's files once (MkDocs lists thousands of them on every build to find its static files),
until the theme's custom folder changes."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest
from mkdocs.config import load_config

from support import copy_project
from trafikist.mkdocs_plugin.cache import RenderCache


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = copy_project(tmp_path / "project", ("mkdocs.yml", "overrides"))
    (project / "docs").mkdir()
    monkeypatch.chdir(project)
    return project


def test_the_theme_is_listed_once_until_its_overrides_change(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = jinja2.FileSystemLoader.list_templates

    def counting(loader: jinja2.FileSystemLoader) -> list[str]:
        calls.append(1)
        return real(loader)

    monkeypatch.setattr(jinja2.FileSystemLoader, "list_templates", counting)
    cache = RenderCache()

    def listed() -> list[str]:
        config = load_config(config_file=str(project / "mkdocs.yml"))
        cache.theme_env(config)  # as each rebuild's on_config does
        env = config.theme.get_env()
        assert env.bytecode_cache is cache.bytecode
        assert env.loader is not None
        return env.loader.list_templates()

    first = listed()
    assert "main.html" in first and len(first) > 1000  # the theme's icons
    assert listed() == first and listed() == first
    assert len(calls) == 1
    added = project / "overrides" / "partials" / "extra.html"
    added.write_text("<p>an override</p>\n", encoding="utf-8")
    assert "partials/extra.html" in listed()
    assert len(calls) == 2
