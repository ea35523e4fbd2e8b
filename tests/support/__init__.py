"""Shared helpers for the tests: build the site, parse its pages, serve it, drive Chromium."""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from bs4 import BeautifulSoup, Tag

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
# Flags measured on these machines: no sandbox as root, and no calls to outside hosts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MODULE_04 = "trafikist/04-blocking-timers-and-the-bus/index.html"
# The model's tests run their own copy of module 04's scenarios, so that editing the course
# breaks a content test (tests/content/test_scenarios.py), never a test of the model.
MODEL_SCENARIOS = ROOT / "tests" / "support" / "data" / "scenarios"
# The search index each engine's theme writes and its search worker reads.
SEARCH_INDEX = {"mkdocs": "search/search_index.json", "zensical": "search.json"}
# The published text of module 04 (the course's source of facts): beside the repository, or
# where the build machines keep it.
SEED_NAME = "seeds/000_2b884b2877ceed3c.txt"
SEED = next(
    (
        path
        for path in (
            *(folder / "shared" / SEED_NAME for folder in ROOT.parents),
            Path("/work/shared") / SEED_NAME,
        )
        if path.is_file()
    ),
    Path("/work/shared") / SEED_NAME,
)


def build_env() -> dict[str, str]:
    env = dict(os.environ)
    env["NO_MKDOCS_2_WARNING"] = "1"
    env.pop("TRAFIKIST_REGISTRY", None)
    return env


def mkdocs_build(
    project: Path, site_dir: Path, *extra: str, strict: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run `mkdocs build` the way an author does, and return what it printed."""
    # No -q: with it, mkdocs drops warnings before strict mode counts them.
    command = [sys.executable, "-m", "mkdocs", "build", "-d", str(site_dir), *extra]
    if strict:
        command.append("--strict")
    return subprocess.run(
        command, cwd=project, env=build_env(), capture_output=True, text=True, timeout=300
    )


# The engines the site builds with, from the same sources; the site tests run on each.
ENGINES = ("mkdocs", "zensical")


def site_build(
    engine: str, project: Path, site_dir: Path, *extra: str, strict: bool = True
) -> subprocess.CompletedProcess[str]:
    """Build the site with one engine the way an author does: `mkdocs build` under MkDocs,
    `trafikist build --engine zensical` under Zensical."""
    if engine == "mkdocs":
        return mkdocs_build(project, site_dir, *extra, strict=strict)
    command = [sys.executable, "-m", "trafikist.cli", "build", "--engine", engine]
    command += ["-d", str(site_dir), *extra] + (["--strict"] if strict else [])
    return subprocess.run(
        command, cwd=project, env=build_env(), capture_output=True, text=True, timeout=300
    )


PROJECT_PARTS = ("mkdocs.yml", "modules", "docs", "overrides", "widgets", "registry")
# Set by tests/conftest.py while a test of the fast tier runs.
IN_THE_FAST_TIER = False


def refuse_in_the_fast_tier(what: str) -> None:
    """The fast tier is the loop run on every edit: a test that builds a course in this
    process (seconds each) is marked `build` instead, and runs in the full suite."""
    if IN_THE_FAST_TIER:
        raise AssertionError(
            f"{what} in a test of the fast tier: mark the test (or its file) "
            "@pytest.mark.build, so that `scripts/test --fast` leaves it to the full suite."
        )


def copy_project(destination: Path, parts: tuple[str, ...] = PROJECT_PARTS) -> Path:
    """A copy of everything the build reads (or of `parts` of it), to mutate in a test. A copy
    with the course is built by the test: the `build` tier."""
    if "modules" in parts:
        refuse_in_the_fast_tier("a copy of the project's course")
    destination.mkdir(parents=True, exist_ok=True)
    for name in parts:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name)
        elif source.is_file():
            shutil.copy2(source, destination / name)
    if (ROOT / "node_modules").is_dir():
        (destination / "node_modules").symlink_to(ROOT / "node_modules")
    return destination


def machine_cache_without(destination: Path, *left_out: str) -> Path:
    """A copy of the build cache the run's builds use (trafikist.base.diskcache: one folder per
    kind) in `destination`, but for the kinds `left_out`, which start empty. A whole build that
    needs one kind empty (no memory snapshot made yet, say) then finds the rest as the run's
    other builds left it, and does not check every page of the course again. What a build reads
    from this cache is keyed by its inputs, so a copy changes no result."""
    from trafikist.base.diskcache import cache_folder

    machine = cache_folder("kind").parent
    destination.mkdir(parents=True, exist_ok=True)
    kinds = sorted(p.name for p in machine.iterdir() if p.is_dir()) if machine.is_dir() else []
    for kind in kinds:
        if kind in left_out:
            continue
        (destination / kind).mkdir()
        for entry in (machine / kind).iterdir():
            if entry.name.startswith(".writing-"):  # another build's entry, half written
                continue
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):  # pruned meanwhile
                shutil.copy2(entry, destination / kind / entry.name)
    return destination


def build_leftovers(folder: Path) -> list[str]:
    """What a build left beside its site folder: a staging folder, or Zensical's work folder.
    A build, good or failed, leaves none."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith((".site", ".zensical-")))


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def article(page: BeautifulSoup) -> Tag | None:
    """The page's own content, without the theme's navigation."""
    return page.select_one("article.md-content__inner")


# A page script that makes the browser ask sites to save data (navigator.connection.saveData).
SAVE_DATA_SCRIPT = (
    "Object.defineProperty(Navigator.prototype, 'connection', {get: () => ({saveData: true})})"
)


def line_of(path: Path, text: str) -> int:
    """The line where `text` (which must be there) first starts in the file."""
    content = path.read_text(encoding="utf-8")
    assert text in content, f"{text!r} is not in {path}"
    return content[: content.index(text)].count("\n") + 1


def edit(path: Path, old: str, new: str, count: int = 1) -> int:
    """Replace `old` by `new` (it must be there); return the line where the edit starts."""
    line = line_of(path, old)
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, count), encoding="utf-8")
    return line


def add_plugin_options(project: Path, **options: object) -> None:
    """Set options of the trafikist plugin in a copied project's mkdocs.yml."""
    config = project / "mkdocs.yml"
    anchor = "      widgets_dir: widgets\n"  # a line of the plugin's own block
    text = config.read_text(encoding="utf-8")
    assert anchor in text, "mkdocs.yml no longer configures the trafikist plugin this way"
    added = "".join(f"      {name}: {value}\n" for name, value in options.items())
    config.write_text(text.replace(anchor, anchor + added), encoding="utf-8")


def site_or_build(site: Path | None, temp: Path, engine: str = "mkdocs") -> Path:
    """The built site a benchmark was given, or a fresh strict build of the course in `temp`."""
    if site is not None:
        return site
    site = temp / "site"
    result = site_build(engine, ROOT, site)
    if result.returncode != 0:
        raise SystemExit(result.stderr)
    return site


@contextlib.contextmanager
def serve(
    directory: Path, extra_routes: dict[str, tuple[bytes, str]] | None = None
) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 on a free port; yields the base URL. `extra_routes` maps a
    path to a body and its content type, served beside the folder's files."""
    routes = extra_routes or {}

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path not in routes:
                super().do_GET()
                return
            body, kind = routes[self.path]
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    handler = functools.partial(Quiet, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def markdown_extensions() -> tuple[list[str], dict[str, dict[str, object]]]:
    """The Markdown extensions mkdocs.yml gives every page (both engines read it), as
    Python-Markdown takes them: the names, and the options of those that have some."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    names: list[str] = []
    options: dict[str, dict[str, object]] = {}
    for entry in config["markdown_extensions"]:
        name, settings = (entry, None) if isinstance(entry, str) else next(iter(entry.items()))
        names.append(name)
        if settings:
            options[name] = settings
    return names, options
