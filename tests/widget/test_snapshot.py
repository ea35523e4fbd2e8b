"""The duty widget's memory snapshot (trafikist.core.widget.snapshot): made once per input, cached,
restored with the model imported, and a clear error when it cannot be made.

The cache and Node tests use a stand-in `node` (a shell script on PATH) where the question is the
orchestration: what is run, when, and what the author reads when it fails. The real snapshot,
made by the real build, is restored in real Pyodide in Node and its runs compared with the baked
ones; the page's restore is checked in Chromium (test_widget_browser.py).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support import (
    MODULE_04,
    ROOT,
    add_plugin_options,
    build_leftovers,
    copy_project,
    machine_cache_without,
    site_build,
    soup,
)
from trafikist.base.errors import CourseError
from trafikist.core.sitedir import MARKER
from trafikist.core.widget.runtime import RUNTIME_FILES, PyodideRuntime
from trafikist.core.widget.snapshot import CACHE_KEEP, MemorySnapshot
from trafikist.core.widget.wheel import BuiltWheel
from trafikist.model_view.live import canonical_json

ASSETS = "assets/trafikist"
RUNNER = Path(__file__).with_name("pyodide_node.mjs")
# A stand-in for Node's snapshot script: it logs its arguments, then writes its third argument
# (the output file) or fails the way $FAKE_NODE_FAIL says. Any other script (the build's esbuild
# step, trafikist.core.bundle) runs in the real Node.
FAKE_NODE = """#!/bin/sh
case "$1" in *snapshot.mjs) ;; *) exec "$REAL_NODE" "$@" ;; esac
echo "$@" >> "$FAKE_NODE_LOG"
if [ -n "$FAKE_NODE_FAIL" ]; then echo "some detail" >&2; echo "$FAKE_NODE_FAIL" >&2; exit 1; fi
printf 'snapshot of %s' "$(basename "$3")" | gzip > "$4"
"""


@pytest.fixture
def fake_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`node` on PATH is the stand-in; returns the file it logs each call to."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "node"
    script.write_text(FAKE_NODE)
    script.chmod(0o755)
    log = tmp_path / "node.log"
    log.touch()
    monkeypatch.setenv("REAL_NODE", shutil.which("node") or "node")
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_NODE_LOG", str(log))
    monkeypatch.delenv("FAKE_NODE_FAIL", raising=False)
    return log


@pytest.fixture
def runtime(tmp_path: Path) -> PyodideRuntime:
    folder = tmp_path / "pyodide"
    folder.mkdir()
    for name in RUNTIME_FILES:
        (folder / name).write_text(f"stand-in {name}")
    return PyodideRuntime(folder=folder, version="314.0.7")


def wheel(code: str) -> BuiltWheel:
    return BuiltWheel("trafikist_model-0.1.0-py3-none-any.whl", code.encode())


def calls(log: Path) -> int:
    return len(log.read_text().splitlines())


def test_a_snapshot_is_made_once_per_input_and_then_read_from_the_cache(
    fake_node: Path, runtime: PyodideRuntime, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = MemorySnapshot.start(runtime, wheel("v1"), cache)
    assert gzip.decompress(first.data()) == b"snapshot of trafikist_model-0.1.0-py3-none-any.whl"
    assert first.made and calls(fake_node) == 1
    assert first.file_name == f"pyodide-model-{first.key[:16]}.snapshot"

    again = MemorySnapshot.start(runtime, wheel("v1"), cache)
    assert again.key == first.key and again.data() == first.data()
    assert not again.made and calls(fake_node) == 1  # from the cache: Node did not run

    changed = MemorySnapshot.start(runtime, wheel("v2"), cache)
    changed.data()
    assert changed.key != first.key and calls(fake_node) == 2
    newer = PyodideRuntime(folder=runtime.folder, version="315.0.0")
    other_version = MemorySnapshot.start(newer, wheel("v2"), cache)
    other_version.data()
    assert other_version.key != changed.key and calls(fake_node) == 3
    (runtime.folder / "pyodide.asm.wasm").write_text("another build of CPython")
    other_files = MemorySnapshot.start(runtime, wheel("v2"), cache)
    other_files.data()
    assert other_files.key not in {changed.key, other_version.key} and calls(fake_node) == 4
    # Node's scratch folders are gone; only the snapshots stay.
    assert sorted(path.suffix for path in cache.iterdir()) == [".snapshot"] * 4


def test_the_cache_keeps_the_most_recently_used_snapshots(
    fake_node: Path, runtime: PyodideRuntime, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    keys = []
    for version in range(CACHE_KEEP):
        snapshot = MemorySnapshot.start(runtime, wheel(f"v{version}"), cache)
        snapshot.data()
        keys.append(snapshot.key)
        os.utime(cache / f"{snapshot.key}.snapshot", (version, version))  # v0 the oldest
    MemorySnapshot.start(runtime, wheel("v0"), cache)  # v0 used again: now v1 is the oldest
    new = MemorySnapshot.start(runtime, wheel("new"), cache)
    new.data()
    kept = {path.stem for path in cache.glob("*.snapshot")}
    assert kept == {keys[0], keys[2], keys[3], new.key}


def test_without_node_the_error_names_the_fix(
    runtime: PyodideRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(CourseError) as raised:
        MemorySnapshot.start(runtime, wheel("v1"), tmp_path / "cache")
    message = str(raised.value)
    assert "Node.js is needed" in message
    assert "scripts/setup" in message and "memory_snapshot: false" in message


def test_a_failure_in_node_is_reported_with_its_last_line(
    fake_node: Path, runtime: PyodideRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_NODE_FAIL", "the restored snapshot does not hold the model")
    cache = tmp_path / "cache"
    snapshot = MemorySnapshot.start(runtime, wheel("v1"), cache)
    with pytest.raises(CourseError) as raised:
        snapshot.data()
    message = str(raised.value)
    assert "snapshot.mjs" in message
    assert "failed in Node: the restored snapshot does not hold the model." in message
    assert "memory_snapshot: false" in message
    assert list(cache.iterdir()) == []  # nothing half-made is cached


# -- the real thing -------------------------------------------------------------------------------


@pytest.mark.node
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node: run scripts/setup")
def test_the_built_snapshot_restores_with_the_model_imported_and_runs_as_baked(
    built_site: Path,
) -> None:
    model = built_site / ASSETS / "model"
    section = soup(built_site / MODULE_04).select_one(".tk-duties[data-live]")
    snapshot = model / section["data-snapshot"]
    wheel_file = model / section["data-wheel"]
    assert snapshot.read_bytes()[:2] == b"\x1f\x8b"  # gzipped, as the worker expects
    scenarios = sorted((model / "scenarios").glob("*.json"))
    assert len(scenarios) == 9
    result = subprocess.run(
        ["node", str(RUNNER), "snapshot", str(snapshot), str(wheel_file), *map(str, scenarios)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    first, *runs = [json.loads(line) for line in result.stdout.splitlines()]
    assert first == {"imported": True}  # the model came with the memory, not from an import
    assert [Path(run["file"]) for run in runs] == scenarios
    for run in runs:
        baked = json.loads(Path(run["file"]).read_text(encoding="utf-8"))["trace"]
        assert run["error"] is None, run["file"]
        assert run["trace"] == canonical_json(baked), run["file"]


@pytest.mark.slow
def test_a_snapshot_node_cannot_make_fails_the_build_and_keeps_the_last_site(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_node: Path
) -> None:
    project = copy_project(tmp_path / "project")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("the last good site")
    (site / MARKER).write_text("")  # a site the build made (tests/core/test_site_folder.py)
    # No snapshot in the cache, so the build must run (the stand-in) Node, which fails; the
    # cache's other kinds as the machine has them, so the build does not check every page again.
    cache = machine_cache_without(tmp_path / "cache", "snapshots")
    assert not (cache / "snapshots").exists()
    monkeypatch.setenv("TRAFIKIST_CACHE", str(cache))
    monkeypatch.setenv("FAKE_NODE_FAIL", "WebAssembly.Memory(): could not allocate memory")
    result = site_build(engine, project, site)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert (
        "snapshot.mjs: making the duty widget's memory snapshot failed in Node: "
        "WebAssembly.Memory(): could not allocate memory. Fix: Run scripts/setup"
    ) in result.stderr
    assert (site / "index.html").read_text() == "the last good site"
    assert build_leftovers(tmp_path) == []


@pytest.mark.slow
def test_memory_snapshot_false_builds_a_site_without_one(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_project(tmp_path / "project")
    add_plugin_options(project, memory_snapshot="false")
    # No snapshot in the cache; its other kinds as the machine has them (no page checked again).
    cache = machine_cache_without(tmp_path / "cache", "snapshots")
    monkeypatch.setenv("TRAFIKIST_CACHE", str(cache))
    result = site_build(engine, project, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    assert not (cache / "snapshots").exists()  # Node was never asked
    site = tmp_path / "site"
    assert not list((site / ASSETS / "model").glob("*.snapshot"))
    section = soup(site / MODULE_04).select_one(".tk-duties[data-live]")
    assert not section.has_attr("data-snapshot")
    assert (site / ASSETS / "pyodide/pyodide.asm.wasm").is_file()  # the plain boot's files


def test_a_cache_that_cannot_be_written_only_costs_time(
    fake_node: Path, runtime: PyodideRuntime, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    snapshot = MemorySnapshot.start(runtime, wheel("v1"), blocker / "cache")
    assert gzip.decompress(snapshot.data()).startswith(b"snapshot of")
    assert snapshot.made and calls(fake_node) == 1
    assert blocker.read_text() == "not a folder"


def test_a_damaged_snapshot_in_the_cache_is_made_again(
    fake_node: Path, runtime: PyodideRuntime, tmp_path: Path
) -> None:
    """A cached entry is checked against the hash of its content (issue 28): a damaged one
    used to be shipped as it was, with exit 0."""
    cache = tmp_path / "cache"
    good = MemorySnapshot.start(runtime, wheel("v1"), cache).data()
    [entry] = cache.glob("*.snapshot")
    data = bytearray(entry.read_bytes())
    data[-1] ^= 0xFF
    entry.write_bytes(bytes(data))
    again = MemorySnapshot.start(runtime, wheel("v1"), cache)
    assert again.data() == good
    assert again.made and calls(fake_node) == 2
    assert MemorySnapshot.start(runtime, wheel("v1"), cache).data() == good  # sealed again
    assert calls(fake_node) == 2
