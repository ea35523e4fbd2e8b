"""The build guard at the command line, in-process: whatever goes wrong that is not a
CourseError ends `trafikist check` (and every other command) with one line naming the file
being read, exit status 1 and no traceback; `--debug`, before or after the command, adds the
traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

import trafikist.course.loader as loader
from support import copy_project, edit
from support.authoring import DUTIES
from trafikist import cli


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the course whose duties.yml makes the loader raise a ValueError: a bug of the
    build, as the guard sees it (no bad input is known to do it any more)."""
    folder = copy_project(tmp_path / "project", ("mkdocs.yml", "modules", "registry"))
    validate = loader.validate

    def broken(schema: type, *args: object, **options: object) -> object:
        if schema.__name__ == "DutiesFile":
            raise ValueError("could not convert string to float: 'soon'")
        return validate(schema, *args, **options)

    monkeypatch.setattr(loader, "validate", broken)
    monkeypatch.setenv("TRAFIKIST_DEBUG", "")  # restored after the test: --debug sets it
    monkeypatch.chdir(folder)
    return folder


GUARD_LINE = (
    f"{DUTIES.as_posix()}: the build stopped on an unexpected ValueError (could not convert "
    "string to float: 'soon') while reading this file. Fix: "
)


@pytest.mark.build
def test_an_unexpected_error_is_one_line_at_the_file_being_read(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["check"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    assert err.splitlines() == [
        err.splitlines()[0],
        "trafikist: 1 problem; nothing was changed.",
    ], err
    assert err.startswith(GUARD_LINE), err
    assert "rerun with --debug" in err


@pytest.mark.build
@pytest.mark.parametrize(
    "argv", [["--debug", "check"], ["check", "--debug"]], ids=["before", "after"]
)
def test_debug_adds_the_traceback(
    argv: list[str], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):"), err
    assert "in _load_duties" in err and "ValueError: could not convert string" in err
    assert GUARD_LINE in err  # the one line still ends it
    assert err.rstrip().endswith("trafikist: 1 problem; nothing was changed.")


@pytest.mark.build
def test_a_course_error_keeps_its_own_message_even_with_debug(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = copy_project(tmp_path / "project", ("mkdocs.yml", "modules", "registry"))
    monkeypatch.setenv("TRAFIKIST_DEBUG", "")
    monkeypatch.chdir(project)
    line = edit(project / DUTIES, "    kind: waiting\n", "    kind: waiting: parked\n")
    assert cli.main(["check", "--debug"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err, err  # the guard caught nothing: there is nothing to trace
    assert err.startswith(f"{DUTIES.as_posix()}:{line}: malformed YAML"), err
    assert "unexpected" not in err


def test_the_debug_flag_is_off_by_default() -> None:
    assert cli._parser().parse_args(["check"]).debug is False
    assert cli._parser().parse_args(["model", "run", "x.yml", "--debug"]).debug is True
    assert cli._parser().parse_args(["--debug", "new", "module", "T"]).debug is True


def test_a_command_that_fails_before_reading_names_its_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)

    def broken(args: object) -> int:
        raise OSError(40, "Too many levels of symbolic links")

    monkeypatch.setattr(cli, "_check", broken)  # the parser takes the command from here
    assert cli.main(["check", "--modules-dir", "course"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "course: the build stopped on an unexpected OSError ([Errno 40] Too many levels of "
        "symbolic links) while reading this file. Fix: "
    ), err
