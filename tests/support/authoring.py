"""Helpers for the authoring tests: a project with a good site built, and the checks that a
bad input ends the build cleanly."""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from support import ROOT, build_env, build_leftovers, copy_project, line_of, site_build

MODULE_04 = Path("modules/04-blocking-timers-and-the-bus")
# The files of module 04 the bad-input and checked-fact tests change.
DUTIES = MODULE_04 / "duties.yml"
MODULE = MODULE_04 / "module.md"
DIVE_01 = MODULE_04 / "dives/01-who-moves-time-today.md"
DIVE_02 = MODULE_04 / "dives/02-the-blocking-claim.md"


def digest(site: Path) -> dict[str, str]:
    """Every file of a built site and the hash of its bytes."""
    return {
        path.relative_to(site).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(site.rglob("*"))
        if path.is_file()
    }


@dataclass
class GoodSite:
    site: Path
    files: dict[str, str]
    engine: str  # the engine that built it, and builds the tests' projects


# The line each engine's build ends with when it fails: the last good site stays.
ABORTED = {
    "mkdocs": "Aborted with a BuildError!",
    "zensical": "Aborted: the build failed; the last good site is unchanged.",
}


def project_with_site(destination: Path, good: GoodSite) -> Path:
    """A copy of the repository's sources, with the last good site already in `site/`."""
    project = copy_project(destination)
    shutil.copytree(good.site, project / "site", symlinks=True)
    return project


def assert_build_fails(
    project: Path,
    good: GoodSite,
    pattern: str,
    *,
    file: str | Path | None = None,
    line: int | None = None,
) -> str:
    """Build with the good site's engine; it must exit 1 with one clear message and leave the
    last good site."""
    result: subprocess.CompletedProcess[str] = site_build(good.engine, project, project / "site")
    output = result.stderr + result.stdout
    assert result.returncode == 1, output
    assert "Traceback" not in output, output
    errors = [text for text in output.splitlines() if text.startswith("ERROR")]
    assert len(errors) == 1, output
    message = errors[0].split("-", 1)[1].strip()
    assert re.search(pattern, message), message
    print(f"\nMESSAGE\t{message}")
    assert " Fix: " in message, message
    if file is not None:
        where = f"{Path(file).as_posix()}:{line}:" if line else f"{Path(file).as_posix()}:"
        assert message.startswith(where), f"{message!r} should start with {where!r}"
    assert ABORTED[good.engine] in output, output
    assert digest(project / "site") == good.files, "the previous site was changed"
    assert build_leftovers(project) == []
    return message


# -- a real `mkdocs serve` --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fetch(url: str, timeout: float = 60) -> str:
    """The page's text, for any status (mkdocs serves its 404 page with the error too)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            text: str = response.read().decode("utf-8")
            return text
    except urllib.error.HTTPError as error:
        return error.read().decode("utf-8")


def wait_until(url: str, check: Callable[[str], bool], timeout: float = 90) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            text = fetch(url)
            if check(text):
                return text
        time.sleep(0.1)
    raise AssertionError(f"{url} never satisfied the check; last text:\n{text[-2000:]}")


def serve_command(engine: str, address: str) -> list[str]:
    """The preview an author starts: `mkdocs serve`, or `trafikist serve --engine zensical`."""
    if engine == "mkdocs":
        return [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", address]
    return [sys.executable, "-m", "trafikist.cli", "serve", "--engine", engine, "-a", address]


@contextlib.contextmanager
def site_serve(
    engine: str, project: Path, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The engine's preview in `project` on `port` (default: a free one); yields the base URL
    and the process."""
    port = port or free_port()
    log_path = project / "serve.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            serve_command(engine, f"127.0.0.1:{port}"),
            cwd=project,
            env=build_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            yield f"http://127.0.0.1:{port}/", process
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# -- bad inputs shared by the in-process tables and the end-to-end builds ------------------


def promote_runs(project: Path, scenarios: str, extra: str = "") -> int:
    """The promote duty runs `scenarios` (a YAML list), plus `extra` lines; returns its line.
    Works whether or not duties.yml names scenarios already."""
    duties = project / DUTIES
    text = duties.read_text(encoding="utf-8")
    start = text.index("  - id: promote\n")
    end = text.index("\n  - id: ", start + 1)
    entry = text[start:end]
    lines = [line for line in entry.split("\n") if not line.startswith("    scenarios:")]
    lines.insert(3, f"    scenarios: {scenarios}\n{extra}".rstrip("\n"))
    duties.write_text(text[:start] + "\n".join(lines) + text[end:], encoding="utf-8")
    return line_of(duties, "id: promote\n")


def empty_node_modules(project: Path) -> None:
    promote_runs(project, "[promote-due]")
    node_modules = project / "node_modules"
    if node_modules.is_symlink() or node_modules.is_file():
        node_modules.unlink()
    elif node_modules.is_dir():
        shutil.rmtree(node_modules)
    node_modules.mkdir()


def node_modules_with(project: Path, *packages: str) -> None:
    """The project's node_modules holds only these packages of the repository's."""
    node_modules = project / "node_modules"
    node_modules.unlink()  # copy_project links the repository's
    node_modules.mkdir()
    for package in packages:
        (node_modules / package).parent.mkdir(parents=True, exist_ok=True)
        (node_modules / package).symlink_to(ROOT / "node_modules" / package)


def drop_workbox(project: Path) -> None:
    """node_modules has Pyodide and esbuild but not Workbox's build tools: the offline worker
    cannot be made, so the build stops before the new site replaces the old one."""
    node_modules_with(project, "pyodide", "esbuild", "@esbuild/linux-x64")


def drop_esbuild(project: Path) -> None:
    """node_modules has Pyodide and Workbox but not esbuild: the site's scripts and styles
    cannot be bundled, so the build stops before the new site replaces the old one."""
    node_modules_with(project, "pyodide", "workbox-build")
