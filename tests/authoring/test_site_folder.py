"""The site folder at both engines' command lines, in throw-away copies of the project (never
the repository): `mkdocs build -d DIR` and `trafikist build --engine zensical -d DIR` refuse a
site folder that is, holds or lies in a source, the project, a file, a link or a folder the
build did not make, with one line and exit 1, and touch nothing; a mkdocs.yml without the
course's plugin is refused before the last site is touched; a site an older build made (no
marker) is replaced once and marked; SIGINT and SIGTERM stop a build with a non-zero status,
no staging left and the last site as it was; what a SIGKILL left goes at the next build. The
rules themselves, in-process: tests/core/test_site_folder.py, tests/mkdocs_plugin/."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import build_env, build_leftovers, edit, line_of, site_build
from support.authoring import MODULE, GoodSite, digest
from trafikist.core.sitedir import MARKER

# The line each engine ends a refused build with.
ABORTED = {
    "mkdocs": "Aborted with a BuildError!",
    "zensical": "Aborted: the build failed; the last good site is unchanged.",
}
INTERRUPTED = "Interrupted: the build stopped; the last good site is unchanged."


def _project_files(project: Path) -> dict[str, str]:
    """Every file and link of the project (node_modules is the repository's, linked)."""
    found = {}
    for root, folders, files in os.walk(project):
        for name in [*folders, *files]:
            path = Path(root) / name
            relative = path.relative_to(project).as_posix()
            if path.is_symlink():
                found[relative] = "-> " + os.readlink(path)
            elif path.is_file():
                found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
        folders[:] = [name for name in folders if not (Path(root) / name).is_symlink()]
    return found


def _one_error(result: subprocess.CompletedProcess[str]) -> str:
    output = result.stderr + result.stdout
    assert result.returncode == 1, output
    assert "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, output
    message = errors[0].split("-", 1)[1].strip()
    assert " Fix: " in message, message
    return message


# -d values, and the start of the line each engine refuses them with.
REFUSED = [
    ("modules", "-d modules: the site folder is modules, one of the project's sources"),
    ("registry", "-d registry: the site folder is registry, one of the project's sources"),
    ("widgets/site", "-d widgets/site: the site folder lies inside widgets, one of"),
    ("a-file.txt", "-d a-file.txt: the site folder is a file, not a folder."),
    ("link-to-modules", "-d link-to-modules: the site folder is a symbolic link (to modules)"),
    ("notes", "-d notes: the site folder holds 1 entry and was not made by the build"),
]


def test_a_site_folder_the_build_must_not_write_is_refused_and_nothing_is_touched(
    project: Path, good_site: GoodSite
) -> None:
    (project / "a-file.txt").write_text("an author's file")
    (project / "link-to-modules").symlink_to("modules")
    (project / "notes").mkdir()
    (project / "notes" / "mine.txt").write_text("an author's notes")
    before = _project_files(project)
    for site_dir, start in REFUSED:
        result = site_build(good_site.engine, project, Path(site_dir))
        message = _one_error(result)
        assert message.startswith(start), message
        assert message.endswith("nothing was changed."), message
        assert ABORTED[good_site.engine] in result.stderr + result.stdout
        assert _project_files(project) == before, f"-d {site_dir} changed the project"


def test_site_dir_of_mkdocs_yml_is_refused_at_its_line(project: Path, good_site: GoodSite) -> None:
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "site_dir: registry\n")
    before = _project_files(project)
    command = [sys.executable, "-m", "trafikist.cli", "build", "--engine", good_site.engine]
    result = subprocess.run(
        command, cwd=project, env=build_env(), capture_output=True, text=True, timeout=300
    )
    message = _one_error(result)
    line = line_of(config, "site_dir: registry")
    assert message.startswith(f"mkdocs.yml:{line}: the site folder registry is registry, one of")
    assert _project_files(project) == before


def test_without_the_plugin_the_last_site_stays(project: Path, good_site: GoodSite) -> None:
    config = project / "mkdocs.yml"
    edit(config, "  - trafikist:\n      modules_dir: modules\n      widgets_dir: widgets\n", "")
    result = site_build(good_site.engine, project, project / "site")
    message = _one_error(result)
    assert message.startswith(
        f"mkdocs.yml:{line_of(config, 'plugins:')}: plugins: does not list 'trafikist', the "
        "course's plugin: MkDocs would empty the site folder"
    ), message
    assert digest(project / "site") == good_site.files, "the last site was changed"
    assert build_leftovers(project) == []


def test_a_site_an_older_build_made_is_replaced_once_and_marked(
    project: Path, good_site: GoodSite
) -> None:
    site = project / "site"
    (site / MARKER).unlink()  # as an older build left it
    (site / "stale.html").write_text("a page the course no longer has")
    result = site_build(good_site.engine, project, site)
    assert result.returncode == 0, result.stderr
    assert (site / MARKER).is_file() and not (site / "stale.html").exists()
    assert build_leftovers(project) == []


# -- signals -----------------------------------------------------------------------------------


def _build_process(engine: str, project: Path) -> subprocess.Popen[str]:
    if engine == "mkdocs":
        command = [sys.executable, "-m", "mkdocs", "build", "--strict"]
    else:
        command = [sys.executable, "-m", "trafikist.cli", "build", "--engine", engine, "--strict"]
    return subprocess.Popen(
        command,
        cwd=project,
        env=build_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _when_building(project: Path, process: subprocess.Popen[str], timeout: float = 120) -> None:
    """Wait until the build has made its folder beside the site (staging, or Zensical's work
    folder): it is in the middle of its work."""
    deadline = time.monotonic() + timeout
    while not build_leftovers(project):
        assert process.poll() is None, "the build ended before it made its folder"
        assert time.monotonic() < deadline, "the build made no folder"
        time.sleep(0.05)
    time.sleep(0.5)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_build_exits_non_zero_and_leaves_nothing(
    project: Path, good_site: GoodSite, number: int
) -> None:
    process = _build_process(good_site.engine, project)
    try:
        _when_building(project, process)
        process.send_signal(number)
        output, _ = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode != 0, output
    assert "Traceback" not in output, output
    assert INTERRUPTED in output, output
    assert build_leftovers(project) == []
    assert digest(project / "site") == good_site.files, "the last site was changed"


def test_what_a_killed_build_left_goes_at_the_next_build(
    project: Path, good_site: GoodSite
) -> None:
    process = _build_process(good_site.engine, project)
    try:
        _when_building(project, process)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
    finally:
        process.kill()
    left = build_leftovers(project)
    assert left, "the killed build left nothing to clean"
    # The next build removes them, even one that fails on its course (after the site check).
    edit(project / MODULE, "---\n", "---\nid: [\n", 1)
    failed = site_build(good_site.engine, project, project / "site")
    assert failed.returncode == 1, failed.stderr
    assert build_leftovers(project) == [], "the leftovers stayed"
    assert digest(project / "site") == good_site.files
    assert re.search(r"module\.md", failed.stderr)
