"""The offline worker's build side (trafikist.core.offline): what it precaches and what it
leaves to a Run, the build's content hash in the caches' names, Workbox's code made once and
reused, and the messages when Node or Workbox is missing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from support import ROOT, SEARCH_INDEX
from support.gates import link_tree, site_pages
from trafikist.base.errors import CourseError
from trafikist.core.offline import (
    BUILD_TOKEN,
    MANIFEST_TOKEN,
    WORKER_FILE,
    worker_template,
    write_offline_worker,
)
from trafikist.core.options import DEFAULTS

NODE_MODULES = ROOT / "node_modules"
ASSETS = DEFAULTS.assets_path
RUN_FILE = re.compile(r"/pyodide/|\.snapshot$|\.whl$|/model/pyodide-lock\.json$")


@pytest.fixture
def site(built_site: Path, tmp_path: Path) -> Path:
    """A copy of the built site to change (hard links: write new files, never through them)."""
    return link_tree(built_site, tmp_path / "site")


def replace_file(path: Path, data: bytes) -> None:
    path.unlink()
    path.write_bytes(data)


def test_the_built_site_has_a_worker_that_names_its_caches_after_the_build(
    built_site: Path,
) -> None:
    code = (built_site / WORKER_FILE).read_text(encoding="utf-8")
    assert MANIFEST_TOKEN not in code and BUILD_TOKEN not in code
    builds = set(re.findall(r"trafikist-precache-([0-9a-f]{16})", code))
    assert len(builds) == 1, builds
    # Workbox's clean-up of older builds' caches runs when this worker activates.
    assert '"-precache-"' in code and '"activate"' in code
    assert '"url":"index.html"' in code


def test_every_page_the_search_and_the_styles_are_precached_but_no_run_file(
    engine: str, site: Path
) -> None:
    worker = write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS)
    urls = {entry.url: entry for entry in worker.precache}
    assert set(site_pages(site)) <= set(urls)
    for needed in (
        SEARCH_INDEX[engine],
        "assets/trafikist/trafikist.css",
        "assets/trafikist/duty/worker.mjs",
        "assets/trafikist/model/run-files.json",
        "assets/trafikist/model/scenarios/promote-due.json",
        # A duty's run and its trace's rows, which the page fetches on the reader's move.
        "assets/trafikist/model/runs/promote-due.html",
        "assets/trafikist/model/runs/recover-expired.html",
        "assets/trafikist/offline/register.js",
    ):
        assert needed in urls, needed
    assert [url for url in urls if RUN_FILE.search("/" + url)] == []
    assert [url for url in urls if url.endswith(".map") or "/lunr/" in url] == []
    # A theme file whose name carries its hash is its own revision; the others carry theirs.
    bundle = next(entry for url, entry in urls.items() if "/javascripts/bundle." in url)
    assert bundle.revision is None
    assert re.fullmatch(r"[0-9a-f]{16}", urls["index.html"].revision or "")
    # Small enough to fetch after a first visit's load; the Run's 20 MB are not in it.
    assert 300_000 < worker.precache_bytes < 4_000_000, worker.precache_bytes


def test_the_build_hash_follows_every_byte_and_nothing_else(site: Path) -> None:
    first = write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS)
    code = (site / WORKER_FILE).read_text(encoding="utf-8")
    assert first.template_made is False  # Workbox ran once for this machine, not per build
    assert (
        write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS).build
        == first.build
    )
    assert (site / WORKER_FILE).read_text(encoding="utf-8") == code
    wheel = next((site / "assets/trafikist/model").glob("*.whl"))
    original = wheel.read_bytes()
    replace_file(wheel, original + b"\0")  # a new model, at the same URL
    changed = write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS)
    assert changed.build != first.build
    assert f"trafikist-precache-{changed.build}" in (site / WORKER_FILE).read_text("utf-8")
    replace_file(wheel, original)
    assert (
        write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS).build
        == first.build
    )


def test_workbox_makes_the_worker_when_no_machine_cache_has_it(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAFIKIST_CACHE", str(tmp_path / "cache"))
    made = write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS)
    assert made.template_made is True
    assert list((tmp_path / "cache" / "workers").glob("*.js"))
    again = write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS)
    assert again.template_made is False and again.build == made.build


def test_without_workbox_the_message_says_to_run_setup(site: Path, tmp_path: Path) -> None:
    with pytest.raises(CourseError) as caught:
        write_offline_worker(site, node_modules=tmp_path / "node_modules", assets_path=ASSETS)
    message = str(caught.value)
    assert "workbox-build" in message and "Fix: Run scripts/setup" in message


def test_a_workbox_other_than_the_pin_is_refused(site: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    package = project / "node_modules" / "workbox-build"
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": "6.0.0"}), encoding="utf-8")
    pinned = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    (project / "package.json").write_text(json.dumps(pinned), encoding="utf-8")
    with pytest.raises(CourseError) as caught:
        write_offline_worker(site, node_modules=project / "node_modules", assets_path=ASSETS)
    assert "node_modules has workbox-build 6.0.0, but package.json pins 7.4.1" in str(caught.value)


def test_without_node_the_message_says_so(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAFIKIST_CACHE", str(tmp_path / "cache"))  # no worker made yet
    monkeypatch.setattr("trafikist.core.npm.shutil.which", lambda name: None)
    with pytest.raises(CourseError) as caught:
        write_offline_worker(site, node_modules=NODE_MODULES, assets_path=ASSETS)
    assert "Node.js is needed" in str(caught.value)
    assert "Fix: Run scripts/setup" in str(caught.value)


def test_the_previews_worker_keeps_nothing(tmp_path: Path) -> None:
    """Under `mkdocs serve`: no precache, no cache names, every request to the network."""
    worker = write_offline_worker(
        tmp_path, node_modules=NODE_MODULES, assets_path=ASSETS, preview=True
    )
    code = worker.path.read_text(encoding="utf-8")
    assert worker.precache == [] and worker.build == ""
    assert "trafikist-precache" not in code and '"-precache-"' not in code
    assert "skipWaiting" in code and "claim()" in code


@pytest.mark.usefixtures("node")  # Workbox makes the worker in Node
def test_a_damaged_worker_in_the_cache_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached entry is checked against the hash of its content (issue 28): a cut one used
    to be shipped as the site's offline worker."""
    monkeypatch.setenv("TRAFIKIST_CACHE", str(tmp_path / "cache"))
    code, made = worker_template(NODE_MODULES, ASSETS)
    assert made
    [entry] = (tmp_path / "cache" / "workers").glob("*.js")
    entry.write_bytes(entry.read_bytes()[: len(entry.read_bytes()) // 2])
    again, made_again = worker_template(NODE_MODULES, ASSETS)
    assert made_again and again == code
    assert worker_template(NODE_MODULES, ASSETS) == (code, False)
