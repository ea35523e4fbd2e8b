"""scripts/setup on a fresh checkout, as an author first runs it: every long step says what it is
doing, and keeps saying it every few seconds while it runs; no warning from pip or setuptools
reaches the terminal (this machine's pip configuration names a local index that lacks some
packages, and setuptools warns about every editable install)."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from support import ROOT

pytestmark = pytest.mark.slow

TICK = 5
# What the tools print that asks nothing of the author, and must not reach the terminal.
NOISE = ("WARNING", "is ignored: it is neither", "Editable installation", "BuildBackendWarning")


def fresh_checkout(folder: Path) -> Path:
    """The repository's tracked files, as a clone has them (no .venv, no node_modules)."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        source = ROOT / name.decode()
        if source.is_file():
            target = folder / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return folder


def test_setup_says_what_it_does_and_nothing_else(tmp_path: Path) -> None:
    checkout = fresh_checkout(tmp_path / "checkout")
    environment = dict(os.environ, SETUP_TICK_SECONDS=str(TICK))
    process = subprocess.Popen(
        ["scripts/setup", "--serve-only"],
        cwd=checkout,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.monotonic(), line.rstrip("\n")))

    started = time.monotonic()
    reader = threading.Thread(target=read)
    reader.start()
    try:
        status = process.wait(timeout=1800)
    finally:
        process.kill()
        reader.join()
    text = "\n".join(line for _, line in lines)
    assert status == 0, text
    for noise in NOISE:
        assert noise not in text, text
    assert all(line.startswith("setup: ") for _, line in lines), text
    for step in ("creating .venv", "installing Python packages", "installing npm packages"):
        assert any(step in line for _, line in lines), text
    # Never more than a few seconds without a word, from the start to the end.
    moments = [started, *(moment for moment, _ in lines), time.monotonic()]
    gaps = [later - earlier for earlier, later in itertools.pairwise(moments)]
    assert max(gaps) < TICK * 3, (max(gaps), text)
    assert (checkout / ".venv/bin/trafikist").is_file()
    assert (checkout / "node_modules/pyodide/package.json").is_file()
