"""Every test file under tests/ is collected: no folder drops out of the suite (pytest skips
folders named build or dist by default, and a conftest can hide a folder)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

pytestmark = pytest.mark.slow


def collected_files(config: pytest.Config, items: list[pytest.Item]) -> set[str]:
    """The files of every test `pytest tests` collects. A run of the whole suite (no path but
    tests/, nothing deselected: what `scripts/test` runs) has just collected them, and they
    are its own items; any other run asks a fresh `pytest --collect-only tests` (seconds)."""
    whole = [Path(arg).resolve() for arg in config.args] == [ROOT / "tests"] and not (
        config.option.markexpr or config.option.keyword or config.option.deselect
    )
    if whole:
        return {Path(item.path).relative_to(ROOT).as_posix() for item in items}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "tests"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {line.split("::")[0] for line in result.stdout.splitlines() if "::" in line}


def test_pytest_collects_every_test_file(request: pytest.FixtureRequest) -> None:
    collected = collected_files(request.config, request.session.items)
    files = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if "data" not in path.relative_to(ROOT / "tests").parts
    }
    assert files - collected == set(), f"never collected: {sorted(files - collected)}"
