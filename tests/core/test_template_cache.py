"""Compiled templates kept on disk between builds (trafikist.core.cache.DiskBytecodeCache): the
next build reads them instead of compiling again, and never reads an entry that a changed
template, or an environment that compiles differently, would make otherwise."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from trafikist.core.cache import DiskBytecodeCache


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TRAFIKIST_CACHE", str(folder))
    return folder / "templates"


def environment(templates: Path, **options: object) -> tuple[jinja2.Environment, list[str]]:
    """A new environment (as a new build makes one), and the names it compiles."""
    compiled: list[str] = []

    class Counting(jinja2.Environment):
        def _parse(self, source: str, name: str | None, filename: str | None) -> object:
            compiled.append(str(name))
            return super()._parse(source, name, filename)

    env = Counting(
        loader=jinja2.FileSystemLoader(templates), bytecode_cache=DiskBytecodeCache(), **options
    )
    return env, compiled


def test_the_next_build_reads_the_compiled_template(tmp_path: Path, cache: Path) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "page.html").write_text("<p>{{ text }}</p>", encoding="utf-8")
    first, compiled = environment(templates)
    assert first.get_template("page.html").render(text="a & b") == "<p>a & b</p>"
    assert compiled == ["page.html"]
    assert len(list(cache.iterdir())) == 1

    second, compiled = environment(templates)
    assert second.get_template("page.html").render(text="a & b") == "<p>a & b</p>"
    assert compiled == []  # read from the disk, not compiled

    # A changed template is compiled again, and renders its new text.
    (templates / "page.html").write_text("<div>{{ text }}</div>", encoding="utf-8")
    third, compiled = environment(templates)
    assert third.get_template("page.html").render(text="x") == "<div>x</div>"
    assert compiled == ["page.html"]


def test_an_environment_that_compiles_otherwise_never_reads_the_entry(
    tmp_path: Path, cache: Path
) -> None:
    """Autoescaping is compiled into the code: a cache keyed by the template alone would give
    the escaping environment the code that does not escape."""
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "page.html").write_text("<p>{{ text }}</p>", encoding="utf-8")
    plain, _ = environment(templates)
    assert plain.get_template("page.html").render(text="a & b") == "<p>a & b</p>"
    escaping, compiled = environment(templates, autoescape=True)
    assert escaping.get_template("page.html").render(text="a & b") == "<p>a &amp; b</p>"
    assert compiled == ["page.html"]


def test_a_cache_that_cannot_be_written_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("TRAFIKIST_CACHE", str(blocked))  # a file where the folder would go
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "page.html").write_text("<p>{{ text }}</p>", encoding="utf-8")
    env, compiled = environment(templates)
    assert env.get_template("page.html").render(text="ok") == "<p>ok</p>"
    assert compiled == ["page.html"]
