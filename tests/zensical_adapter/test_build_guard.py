"""The build guard in the Zensical adapter, in-process: an exception that is not a CourseError,
in the course's steps, in the checks' child or in a page's Markdown that Zensical renders,
becomes one line naming the file being read, raised from the exception (`--debug` shows its
traceback); the staging goes and the last good site stays. The same at `trafikist build
--engine zensical`'s exit: tests/authoring/test_build_guard.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import markdown
import pytest
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

import trafikist.course.loader as loader
from support import build_leftovers, children, copy_project
from support.authoring import DUTIES
from trafikist.base.errors import CourseError
from trafikist.core.checks_child import ChecksInChild
from trafikist.core.project import read_project
from trafikist.core.sitedir import MARKER
from trafikist.zensical_adapter import guard
from trafikist.zensical_adapter.build import ZensicalBuild

# -- a page's Markdown, as Zensical renders it -------------------------------------------------


class _Context(Preprocessor):
    """What Zensical's own context extension registers: the page being rendered."""

    def __init__(self, md: markdown.Markdown, path: str) -> None:
        super().__init__(md)
        self.page = type("Page", (), {"path": path})()

    def run(self, lines: list[str]) -> list[str]:
        return lines


class _Broken(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        raise RecursionError("maximum recursion depth exceeded")


class _Page(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.register(_Context(md, "authoring.md"), "rendering_context", 0)
        md.preprocessors.register(_Broken(md), "broken", 5)


@pytest.fixture
def failures() -> Iterator[list[guard.PageFailure]]:
    guard.FAILURES.clear()
    yield guard.FAILURES
    guard.FAILURES.clear()


def test_a_page_that_fails_to_render_is_kept_with_its_path(
    failures: list[guard.PageFailure],
) -> None:
    md = markdown.Markdown(extensions=[_Page(), guard.makeExtension()])
    with pytest.raises(RecursionError):
        md.convert("# A page\n")
    assert [(failure.src_uri, type(failure.error)) for failure in failures] == [
        ("authoring.md", RecursionError)
    ]
    assert (
        markdown.Markdown(extensions=[guard.makeExtension()]).convert("*a*") == "<p><em>a</em></p>"
    )


@pytest.fixture
def builder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ZensicalBuild]:
    project = copy_project(tmp_path / "project")
    monkeypatch.chdir(project)
    zensical = ZensicalBuild(read_project(project / "mkdocs.yml"), strict=True)
    yield zensical
    zensical.close()


@pytest.mark.build
def test_zensical_stopped_by_a_page_names_the_authors_file(
    builder: ZensicalBuild, failures: list[guard.PageFailure]
) -> None:
    error = RecursionError("maximum recursion depth exceeded")
    failures.append(guard.PageFailure(str(builder.work / "docs" / "authoring.md"), error))
    zensical = RuntimeError("Python error: RecursionError: maximum recursion\nTraceback (most…")
    found, cause = builder._zensical_failure(zensical)
    assert cause is error  # --debug shows the page's own traceback
    assert str(found).startswith(
        "docs/authoring.md: the build stopped on an unexpected RecursionError (maximum recursion "
        "depth exceeded) while reading this file. Fix: "
    ), found


@pytest.mark.build
def test_a_course_error_of_a_page_is_raised_as_it_is(
    builder: ZensicalBuild, failures: list[guard.PageFailure]
) -> None:
    own = CourseError.at("modules/x.md", 3, "the block is not closed.", "Close it.")
    failures.append(guard.PageFailure("trafikist/x/index.md", own))
    assert builder._zensical_failure(RuntimeError("Python error: CourseError"))[0] is own


@pytest.mark.build
def test_zensical_own_failure_is_its_first_line(builder: ZensicalBuild) -> None:
    message = "Python error: RecursionError: too deep\n" + "  File x, line 1\n" * 2500
    found, _ = builder._zensical_failure(RuntimeError(message))
    assert str(found) == (
        "mkdocs.yml: Zensical stopped: Python error: RecursionError: too deep. Fix: Correct what "
        "Zensical names; the last good site is unchanged (--debug shows all it printed)."
    )


# -- the course's steps, and the checks' child ------------------------------------------------


@pytest.mark.build
def test_an_unexpected_error_in_the_course_is_one_line_at_its_file(
    builder: ZensicalBuild, monkeypatch: pytest.MonkeyPatch
) -> None:
    validate = loader.validate

    def broken(schema: type, *args: object, **options: object) -> object:
        if schema.__name__ == "DutiesFile":
            raise TypeError("'<' not supported between instances of 'str' and 'int'")
        return validate(schema, *args, **options)

    monkeypatch.setattr(loader, "validate", broken)
    site = builder.project.site_dir
    site.mkdir()
    (site / "index.html").write_text("the last good site")
    (site / MARKER).write_text("")  # a site the build made
    with pytest.raises(CourseError) as caught:
        builder.build(site)
    assert str(caught.value).startswith(
        f"{DUTIES.as_posix()}: the build stopped on an unexpected TypeError ('<' not supported "
        "between instances of 'str' and 'int') while reading this file. Fix: "
    ), caught.value
    assert isinstance(caught.value.__cause__, TypeError)
    assert sorted(path.name for path in site.iterdir()) == [MARKER, "index.html"]
    # The course failed before Zensical's turn: no work folder was made.
    assert build_leftovers(site.parent) == []


def test_an_unexpected_error_in_the_checks_child_is_one_line_at_its_file(tmp_path: Path) -> None:
    page = tmp_path / "module.md"
    with pytest.raises(CourseError) as caught:
        ChecksInChild.start(children.break_while_reading, page).verdict()
    assert str(caught.value).startswith(
        f"{page}: the build stopped on an unexpected KeyError ('expect') while reading this "
        "file. Fix: "
    ), caught.value
