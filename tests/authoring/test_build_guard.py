"""The build guard and the site's bounds at each engine's exit (`mkdocs build --strict`,
`trafikist build --engine zensical --strict`), end to end:

- an exception that is not a CourseError, in the course's load or in a page's Markdown (where
  the engines differ: MkDocs renders it outside the plugin's hooks, Zensical in its Rust core),
  ends the build with one `FILE:LINE: what. Fix: how.` line naming the file being read, exit
  status 1, no traceback, the last good site byte for byte and no staging left; with
  TRAFIKIST_DEBUG=1 (MkDocs) or `--debug` (trafikist) the traceback shows as well;
- `assets_path` outside the site, and a scenario name that climbs out, are refused at their
  line, and nothing is written outside the site;
- the published site is world-readable: folders 0755, files 0644.

The exception is injected the only way a separate process allows: a `sitecustomize` module on
PYTHONPATH, which Python imports at start, breaks one function of the build (no bad input is
known to reach the guard any more; each has its own message). The in-process side of each is in
tests/core, tests/cli, tests/mkdocs_plugin and tests/zensical_adapter (test_build_guard.py).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support import build_env, build_leftovers
from support.authoring import (
    ABORTED,
    DIVE_02,
    DUTIES,
    GoodSite,
    assert_build_fails,
    digest,
    promote_runs,
)

INJECT = textwrap.dedent(
    """\
    import os

    where = os.environ.get("TRAFIKIST_TEST_BREAK")
    if where == "load":  # the loader, right after it reads duties.yml
        import trafikist.course.loader as loader

        validate = loader.validate

        def broken(schema, *args, **options):
            if schema.__name__ == "DutiesFile":
                raise ValueError("could not convert string to float: 'soon'")
            return validate(schema, *args, **options)

        loader.validate = broken
    elif where == "render":  # a page's Markdown, inside the engine's rendering
        from trafikist.course.markdown import blocks

        run = blocks.SourceCommentPreprocessor.run

        def broken_run(self, lines):
            if os.environ["TRAFIKIST_TEST_TEXT"] in "\\n".join(lines):
                raise RecursionError("maximum recursion depth exceeded")
            return run(self, lines)

        blocks.SourceCommentPreprocessor.run = broken_run
    """
)
# A line of dive 02 only: the page whose rendering breaks.
DIVE_02_LINE = "## The park and the wake list"
GUARD = "the build stopped on an unexpected"


def _broken_build(
    project: Path, good: GoodSite, where: str, *, debug: bool = False
) -> subprocess.CompletedProcess[str]:
    """The author's build of `project`, with one function of the build broken (`where`)."""
    inject = project.parent / "inject"
    inject.mkdir(exist_ok=True)
    (inject / "sitecustomize.py").write_text(INJECT, encoding="utf-8")
    env = build_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(inject), env.get("PYTHONPATH")]))
    env.update(TRAFIKIST_TEST_BREAK=where, TRAFIKIST_TEST_TEXT=DIVE_02_LINE)
    env.pop("TRAFIKIST_DEBUG", None)
    site = str(project / "site")
    if good.engine == "mkdocs":
        command = [sys.executable, "-m", "mkdocs", "build", "-d", site, "--strict"]
        if debug:
            env["TRAFIKIST_DEBUG"] = "1"
    else:
        command = [sys.executable, "-m", "trafikist.cli", "build", "--engine", "zensical"]
        command += ["-d", site, "--strict"] + (["--debug"] if debug else [])
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=300
    )


def _assert_guarded(
    result: subprocess.CompletedProcess[str], project: Path, good: GoodSite, start: str
) -> str:
    """Exit 1, one ERROR line that starts with `start`, no traceback, the last good site."""
    output = result.stderr + result.stdout
    assert result.returncode == 1, output
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, output
    message = errors[0].split("-", 1)[1].strip()
    print(f"\nMESSAGE\t{message}")
    assert message.startswith(start), message
    assert " while reading this file. Fix: " in message, message
    assert "rerun with --debug (or TRAFIKIST_DEBUG=1)" in message, message
    assert ABORTED[good.engine] in output, output
    assert digest(project / "site") == good.files, "the previous site was changed"
    assert build_leftovers(project) == []
    return message


def test_an_unexpected_error_in_the_load_names_the_file_being_read(
    project: Path, good_site: GoodSite
) -> None:
    result = _broken_build(project, good_site, "load")
    _assert_guarded(
        result, project, good_site,
        f"{DUTIES.as_posix()}: {GUARD} ValueError (could not convert string to float: 'soon')",
    )  # fmt: skip


def test_an_unexpected_error_in_a_page_names_the_page(project: Path, good_site: GoodSite) -> None:
    assert (project / DIVE_02).read_text(encoding="utf-8").count(DIVE_02_LINE) == 1
    result = _broken_build(project, good_site, "render")
    _assert_guarded(
        result, project, good_site,
        f"{DIVE_02.as_posix()}: {GUARD} RecursionError (maximum recursion depth exceeded)",
    )  # fmt: skip


@pytest.mark.parametrize("where", ["load", "render"])
def test_debug_shows_the_traceback_and_the_line(
    where: str, project: Path, good_site: GoodSite
) -> None:
    result = _broken_build(project, good_site, where, debug=True)
    output = result.stderr + result.stdout
    assert result.returncode == 1, output
    assert "Traceback (most recent call last):" in output, output
    raised = "ValueError: could not convert" if where == "load" else "RecursionError: maximum"
    assert raised in output, output
    assert re.search(r"in (_load_duties|broken_run)\b", output), output  # the failing frame
    source = DUTIES if where == "load" else DIVE_02
    assert f"{source.as_posix()}: {GUARD} " in output, output  # the guard's line too
    assert digest(project / "site") == good_site.files, "the previous site was changed"
    assert build_leftovers(project) == []


# -- nothing is written outside the site --------------------------------------------------------


def _written_outside(tmp_path: Path) -> list[str]:
    """What is beside the project: a build that escaped its site folder leaves it there."""
    return sorted(p.name for p in tmp_path.iterdir() if p.name not in ("project", "inject"))


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("../outside", "a path that climbs out with '..'"),
        ("/tmp/trafikist-abs", "an absolute path"),
    ],
    ids=["dotdot", "absolute"],
)
def test_an_assets_path_outside_the_site_is_refused(
    value: str, why: str, project: Path, good_site: GoodSite, tmp_path: Path
) -> None:
    config = project / "mkdocs.yml"
    anchor = "      widgets_dir: widgets\n"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace(anchor, f"{anchor}      assets_path: {value}\n"), "utf-8")
    line = text[: text.index(anchor)].count("\n") + 2
    message = assert_build_fails(
        project, good_site, re.escape(f"the trafikist option 'assets_path' is '{value}', {why}"),
        file="mkdocs.yml", line=line,
    )  # fmt: skip
    assert "Fix: Set 'assets_path:' under '- trafikist:' to a relative folder" in message
    assert _written_outside(tmp_path) == []
    assert not (project / "outside").exists() and not Path("/tmp/trafikist-abs").exists()


def test_a_scenario_name_that_climbs_out_is_refused(
    project: Path, good_site: GoodSite, tmp_path: Path
) -> None:
    line = promote_runs(project, "['../../../../../elsewhere/x']") + 3
    pattern = re.escape("'../../../../../elsewhere/x', which is not a lowercase slug")
    assert_build_fails(project, good_site, pattern, file=DUTIES, line=line)
    assert _written_outside(tmp_path) == []
    assert not any((tmp_path / "project").rglob("elsewhere")), "x.json was written"


# -- the published site is world-readable -------------------------------------------------------


def test_the_published_site_is_world_readable(built_site: Path) -> None:
    """A web server running as another user reads every page: folders 0755, files 0644 (the
    staging folder comes from mkdtemp, which makes it 0700)."""
    wrong = []
    for path in [built_site, *built_site.rglob("*")]:
        if path.is_symlink():
            continue
        mode = stat.S_IMODE(path.stat().st_mode)
        wanted = 0o755 if path.is_dir() else 0o644
        if mode != wanted:
            wrong.append(f"{path.relative_to(built_site.parent)}: {oct(mode)}")
    assert wrong == [], wrong[:10]
