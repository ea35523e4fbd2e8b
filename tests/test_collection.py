"""Every test file under tests/ is collected: no folder drops out of the suite (pytest skips
folders named build or dist by default, and a conftest can hide a folder)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support import ROOT

pytestmark = pytest.mark.slow


def test_pytest_collects_every_test_file() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "tests"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = {line.split("::")[0] for line in result.stdout.splitlines() if "::" in line}
    files = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if "data" not in path.relative_to(ROOT / "tests").parts
    }
    assert files - collected == set(), f"never collected: {sorted(files - collected)}"
