"""The build guard's parts in the core, in-process: which source it names (trafikist.base.
reading), the paths the build writes (trafikist.core.files) and the option that names one
(`assets_path`), and the published site's modes (trafikist.core.staging). The guard at each
engine's exit is tested end to end by tests/authoring/test_build_guard.py."""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import copy_project, edit
from support.authoring import DIVE_02, DUTIES, MODULE, promote_runs
from support.building import assert_core_build_fails, core_build
from trafikist.base.errors import CourseError
from trafikist.base.files import read_source_text
from trafikist.base.reading import (
    current_reading,
    debug_requested,
    note_reading,
    reading,
    traceback_text,
    unexpected,
)
from trafikist.core.files import SiteFile, site_target, write_site_files
from trafikist.core.options import BuildOptions, check_assets_path
from trafikist.core.session import CourseBuild
from trafikist.core.staging import SiteStaging, publish_modes
from trafikist.course.render import Renderer

CONFIG = Path("mkdocs.yml")


# -- which source the guard names ------------------------------------------------------------


def _raised_in(block: contextlib.AbstractContextManager, error: Exception) -> Exception:
    try:
        with block:
            raise error
    except Exception as caught:
        return caught
    raise AssertionError("nothing was raised")


def test_the_guard_names_the_innermost_source_being_read(tmp_path: Path) -> None:
    page = tmp_path / "module.md"
    page.write_text("# A page\n", encoding="utf-8")

    @contextlib.contextmanager
    def steps() -> Iterator[None]:
        with reading(tmp_path), reading(tmp_path / "course.yml"):
            read_source_text(page)  # the loader opens a source: it refines the step
            yield

    before = current_reading()
    error = _raised_in(steps(), ValueError("a bad value"))
    assert current_reading() == before  # every block ended, and its notes with it
    message = str(unexpected(error, CONFIG))
    assert message.startswith(f"{page}: the build stopped on an unexpected ValueError "), message
    assert "(a bad value) while reading this file. Fix: " in message
    assert "--debug" in message
    assert "\n" not in message


def test_a_note_ends_with_its_step_and_the_fallback_is_the_configuration(tmp_path: Path) -> None:
    def fresh_process() -> None:  # nothing read yet (the session's fixtures read the registry)
        with reading(tmp_path / "a.yml"):
            note_reading(tmp_path / "b.yml", 7)
            assert current_reading().file == tmp_path / "b.yml"
        assert current_reading() is None
        message = str(unexpected(KeyError("x"), CONFIG))
        assert message.startswith("mkdocs.yml: the build stopped on an unexpected KeyError ('x')")
        with reading(tmp_path / "c.yml", 12):
            assert str(unexpected(TypeError(), CONFIG)).startswith(f"{tmp_path / 'c.yml'}:12: ")

    contextvars.Context().run(fresh_process)


def test_a_long_or_multiline_error_stays_one_short_line() -> None:
    message = str(unexpected(RuntimeError("first\n" + "x" * 1000), CONFIG))
    assert "\n" not in message
    assert "(first xxx" in message and "…)" in message
    assert len(message) < 600, len(message)


def test_a_course_error_passes_through_untagged(tmp_path: Path) -> None:
    own = CourseError.at(tmp_path / "duties.yml", 3, "the duty has no id.", "Add one.")
    assert _raised_in(reading(tmp_path), own) is own
    assert not hasattr(own, "_trafikist_reading")


def test_the_traceback_is_of_what_the_guard_caught() -> None:
    try:
        try:
            raise ZeroDivisionError("division by zero")
        except ZeroDivisionError as error:
            raise unexpected(error, CONFIG) from error
    except CourseError as guarded:
        text = traceback_text(guarded)
    assert text.startswith("Traceback (most recent call last):"), text
    assert "ZeroDivisionError: division by zero" in text
    assert traceback_text(CourseError.at(CONFIG, 1, "own.", "Fix.")) == ""


@pytest.mark.parametrize(
    ("value", "wanted"), [("1", True), ("yes", True), ("", False), ("0", False)]
)
def test_debug_is_asked_for_by_the_environment(
    value: str, wanted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAFIKIST_DEBUG", value)
    assert debug_requested() is wanted


@pytest.mark.build
def test_a_core_step_that_breaks_names_the_page_it_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_project(tmp_path / "project")
    build = CourseBuild(project, BuildOptions(memory_snapshot=False))
    with contextlib.chdir(project):
        build.load()
        assert build.site is not None
        module = next(page for page in build.site.pages() if page.source == project / MODULE)

        def broken(self: Renderer, page: object) -> str:
            if page is module:
                raise IndexError("list index out of range")
            return ""

        monkeypatch.setattr(Renderer, "page_markdown", broken)
        with pytest.raises(IndexError) as caught:
            for page in build.site.pages():
                build.page_markdown(page)
        build.cancel()
        message = str(unexpected(caught.value, project / "mkdocs.yml"))
    assert message.startswith(f"{MODULE.as_posix()}: the build stopped on an unexpected "
                              "IndexError (list index out of range)"), message  # fmt: skip


# -- every path written stays inside the site --------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "why"),
    [
        ("../../elsewhere/x.json", "climbs out with '..'"),
        ("assets/../../x.js", "climbs out with '..'"),
        ("/tmp/x.js", "is absolute"),
        ("assets\\..\\x.js", "holds a backslash"),
        ("", "is empty"),
    ],
)
def test_a_site_file_outside_the_site_is_refused_and_nothing_is_written(
    uri: str, why: str, tmp_path: Path
) -> None:
    site = tmp_path / "a" / "site"
    site.mkdir(parents=True)
    files = [SiteFile("assets/first.js", content=b"1"), SiteFile(uri, content=b"2")]
    with pytest.raises(CourseError) as caught:
        write_site_files(site, files)
    message = str(caught.value)
    assert f"the build would write '{uri}' outside the site folder" in message, message
    assert f"the path {why}" in message, message
    assert " Fix: " in message and "\n" not in message
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    assert written == ["a", "a/site"], written  # not even the good file before it


def test_a_link_inside_the_site_cannot_lead_a_write_out(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (site / "assets").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(CourseError, match=r"'assets/x\.js' outside .* through a link"):
        write_site_files(site, [SiteFile("assets/x.js", content=b"x")])
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_the_error_names_the_source_being_read(tmp_path: Path) -> None:
    duties = tmp_path / "duties.yml"
    with reading(duties, 4), pytest.raises(CourseError) as caught:
        site_target(tmp_path / "site", "../x.json")
    assert str(caught.value).startswith(f"{duties}:4: the build would write '../x.json' ")


def test_a_site_file_inside_the_site_is_written(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_site_files(site, [SiteFile("assets/trafikist/a.js", content=b"a")])
    assert (site / "assets/trafikist/a.js").read_bytes() == b"a"
    assert site_target(site, "index.html") == site / "index.html"


# -- assets_path, the option that names where the build writes --------------------------------


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("../outside", "a path that climbs out with '..'"),
        ("assets/../../x", "a path that climbs out with '..'"),
        ("/srv/www", "an absolute path"),
        ("assets\\trafikist", "a path with a backslash"),
        ("", "empty"),
        ("assets/", "not a plain relative folder"),
        ("./assets", "not a plain relative folder"),
    ],
)
def test_an_assets_path_outside_the_site_is_refused_at_its_line(
    value: str, why: str, tmp_path: Path
) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"site_name: x\nplugins:\n  - trafikist:\n      assets_path: '{value}'\n", encoding="utf-8"
    )
    for check in (
        lambda: check_assets_path(value, config),
        lambda: BuildOptions.from_mapping({"assets_path": value}, config),  # the Zensical path
    ):
        with pytest.raises(CourseError) as caught:
            check()
        message = str(caught.value)
        assert message.startswith(f"{config}:4: the trafikist option 'assets_path' is "), message
        assert why in message, message
        assert "Fix: Set 'assets_path:' under '- trafikist:' to a relative folder" in message


def test_a_relative_assets_path_is_taken() -> None:
    for value in ("assets/trafikist", "static/course", "_assets", "v1.2/x-y"):
        check_assets_path(value, CONFIG)
    assert BuildOptions.from_mapping({"assets_path": "static/course"}, CONFIG).assets_path == (
        "static/course"
    )


# -- the published site is world-readable -----------------------------------------------------


def _modes(folder: Path) -> set[tuple[str, str]]:
    found = {("dir", oct(stat.S_IMODE(folder.stat().st_mode)))}
    for path in folder.rglob("*"):
        if not path.is_symlink():
            kind = "dir" if path.is_dir() else "file"
            found.add((kind, oct(stat.S_IMODE(path.stat().st_mode))))
    return found


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def test_a_staged_site_is_published_world_readable(tmp_path: Path) -> None:
    staging = SiteStaging(tmp_path / "site")
    with _umask(0o077):  # a private umask: the engines' files come out 0600, folders 0700
        folder = staging.begin()
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755  # not mkdtemp's 0700
        (folder / "assets").mkdir()
        (folder / "assets" / "a.js").write_text("a")
        (folder / "index.html").write_text("i")
        (folder / "link.html").symlink_to("index.html")
        staging.commit()
    assert _modes(tmp_path / "site") == {("dir", "0o755"), ("file", "0o644")}


def test_an_adopted_site_is_published_world_readable(tmp_path: Path) -> None:
    built = tmp_path / "engine"
    with _umask(0o077):
        built.mkdir()
        (built / "index.html").write_text("built")
        os.chmod(built / "index.html", 0o755)  # an executable bit is dropped too
        staging = SiteStaging(tmp_path / "site")
        staging.adopt(built)
        staging.commit()
    assert _modes(tmp_path / "site") == {("dir", "0o755"), ("file", "0o644")}


def test_publish_modes_leaves_what_a_link_points_at(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    outside.chmod(0o600)
    site = tmp_path / "site"
    site.mkdir()
    (site / "x").symlink_to(outside)
    publish_modes(site)
    assert stat.S_IMODE(outside.stat().st_mode) == 0o600


# -- the names a source gives are slugs: the loader refuses what would lead out ----------------


@pytest.mark.build
def test_a_scenario_name_that_climbs_out_is_refused_at_its_line(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    line = promote_runs(project, "['../../../../../elsewhere/x']") + 3  # the scenarios line
    message = assert_core_build_fails(
        project, r"is '\.\./\.\./\.\./\.\./\.\./elsewhere/x', which is not a lowercase slug",
        file=DUTIES, line=line,
    )  # fmt: skip
    assert "Fix: Use lowercase letters, digits and dashes" in message
    assert not any(tmp_path.rglob("elsewhere")), "a file was written outside the site"


@pytest.mark.build
def test_a_transcript_name_that_climbs_out_is_refused_at_its_line(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    line = edit(
        project / DIVE_02,
        "    transcript: 02-a-wake-carries-no-work\n",
        "    transcript: ../../../../registry/valkey/docs\n",
    )
    message = core_build(project)
    assert message is not None, "the build succeeded"
    first = message.splitlines()[0]  # then the proofs that quote the transcript it no longer has
    assert first == (
        f"{DIVE_02.as_posix()}:{line - 1}: the excerpt names the transcript "  # the excerpt's line
        "'../../../../registry/valkey/docs', which is not a lowercase slug. Fix: Name the command "
        "list by its file in the module's transcripts/, without '.txt', in lowercase letters, "
        "digits and dashes (like '03-park')."
    ), message


# -- a site folder that cannot be written ---------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "reason", "expected"),
    [
        (errno.ENOSPC, "No space left on device",
         "cannot be written: No space left on device. Fix: Free space on its disk; the last "
         "site is unchanged."),
        (errno.EROFS, "Read-only file system",
         "cannot be written: Read-only file system. Fix: Name a site folder on a disk that can "
         "be written (-d); the last site is unchanged."),
        (errno.EACCES, "Permission denied",
         "cannot be opened: Permission denied. Fix: Give the build the right to read and write "
         "it, or name another site folder (-d); the last site is unchanged."),
    ],
    ids=["a full disk", "a read-only disk", "a folder the build may not write"],
)  # fmt: skip
def test_a_site_folder_that_cannot_be_written_is_named_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int, reason: str, expected: str
) -> None:
    """It used to name the source read last (reference/model-choices.md), which was not at
    fault; the staging folder's name is the site folder's, as the author named it."""
    staging = tmp_path / ".site-building-x1y2z3"
    real = Path.write_bytes

    def refused(self: Path, data: bytes) -> int:
        if staging in self.parents:
            raise OSError(number, reason, str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", refused)
    with pytest.raises(OSError) as caught, reading(Path("modules/reference/model-choices.md")):
        write_site_files(staging, [SiteFile("assets/a.js", b"x")])
    message = str(unexpected(caught.value, CONFIG))
    assert message == f"{tmp_path / 'site' / 'assets' / 'a.js'}: {expected}"


@pytest.mark.build
def test_after_a_scenario_is_read_the_guard_names_the_file_that_named_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A duty's scenarios are read in the middle of duties.yml: what breaks after them is in
    duties.yml, not in the last scenario read (the guard named that scenario)."""
    from trafikist.course import loader

    project = copy_project(tmp_path / "project")

    def broken(*args: object) -> None:
        raise KeyError("process")

    monkeypatch.setattr(loader, "_check_processes", broken)
    with contextlib.chdir(project), pytest.raises(KeyError) as caught, reading(project):
        loader.load_course(Path("modules"))
    message = str(unexpected(caught.value, project / "mkdocs.yml"))
    assert message.startswith(f"{DUTIES.as_posix()}: the build stopped on an unexpected "
                              "KeyError ('process')"), message  # fmt: skip
