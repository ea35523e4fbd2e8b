"""mkdocs.yml errors in the course's form, `mkdocs.yml:LINE: what. Fix: how.` (issue 28): each
built a broken site with exit 0 (another theme, an extension removed, a widgets_dir that is no
folder) or loaded Pyodide from an address a page must not. In-process through the core (the
Zensical adapter reads mkdocs.yml the same way); tests/authoring/test_failing_builds.py builds
one of them end to end under each engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import add_plugin_options, copy_project, edit
from support.building import assert_core_build_fails, core_build

CONFIG = Path("mkdocs.yml")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "project")


@pytest.mark.build
def test_a_theme_that_is_not_material(project: Path) -> None:
    line = edit(project / CONFIG, "  name: material\n", "  name: readthedocs\n")
    message = assert_core_build_fails(
        project, r"the theme is 'readthedocs'", file=CONFIG, line=line
    )
    assert "Fix: Set 'theme: name: material'" in message


@pytest.mark.build
def test_a_required_extension_removed(project: Path) -> None:
    edit(project / CONFIG, "  - md_in_html\n", "")
    line = edit(project / CONFIG, "markdown_extensions:\n", "markdown_extensions:\n")
    message = assert_core_build_fails(
        project, r"markdown_extensions does not list 'md_in_html'", file=CONFIG, line=line
    )
    assert "Fix: Add '- md_in_html' under markdown_extensions:" in message


@pytest.mark.build
def test_a_widgets_dir_that_is_no_folder(project: Path) -> None:
    line = edit(project / CONFIG, "      widgets_dir: widgets\n", "      widgets_dir: widgetz\n")
    assert_core_build_fails(
        project,
        r"the trafikist option 'widgets_dir' names 'widgetz', which is not a folder of the project",
        file=CONFIG,
        line=line,
    )


@pytest.mark.build
@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/pyodide/", "data:,x"])
def test_a_pyodide_url_that_is_neither_http_nor_relative(project: Path, url: str) -> None:
    add_plugin_options(project, pyodide_url=url)
    text = (project / CONFIG).read_text(encoding="utf-8")
    line = text[: text.index("pyodide_url")].count("\n") + 1
    message = assert_core_build_fails(
        project, r"the trafikist option 'pyodide_url' is .*http\(s\)", file=CONFIG, line=line
    )
    assert "Fix: Give an http(s) address, a path relative to the site" in message


@pytest.mark.build
@pytest.mark.parametrize("url", ["https://cdn.example/pyodide/", "pyodide/", "../pyodide/"])
def test_a_pyodide_url_over_http_or_relative_is_taken(project: Path, url: str) -> None:
    add_plugin_options(project, pyodide_url=url)
    message = core_build(project)
    assert message is None or "pyodide_url" not in message, message


@pytest.mark.build
@pytest.mark.parametrize(
    ("inserted", "fix"),
    [
        ("extra_csss: []\n", "Fix: Write 'extra_css:' if that is the option meant."),
        ("course_title: Trafikist\n", "Fix: Remove it, or write it as one of MkDocs' options"),
    ],
    ids=["mistyped", "unknown"],
)
def test_an_option_that_no_engine_reads(project: Path, inserted: str, fix: str) -> None:
    """Zensical ignores it and MkDocs stops a strict build with no line: the setting is lost."""
    line = edit(project / CONFIG, "docs_dir: docs\n", f"docs_dir: docs\n{inserted}") + 1
    name = inserted.split(":")[0]
    message = assert_core_build_fails(
        project, rf"'{name}' is not an option of mkdocs.yml", file=CONFIG, line=line
    )
    assert fix in message


def test_the_options_are_mkdocs_own() -> None:
    """One list, held to MkDocs' schema: an option MkDocs adds is read, not refused."""
    from mkdocs.config.defaults import MkDocsConfig

    from trafikist.core.config import OPTIONS

    assert OPTIONS - {"INHERIT"} == {name for name, _ in MkDocsConfig._schema}
