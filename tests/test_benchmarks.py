"""The benchmarks' smoke profile: every `scripts/bench_*.py` runs at its smallest size (`--smoke`:
a page or a module, one run) and prints its summary rows, so that no benchmark rots unseen.

Only that it runs: the rows must follow `scripts/bench`'s convention
(`name<TAB>figure<TAB>baseline<TAB>ratio`, nothing else on stdout), and their figures are never
asserted (a benchmark's figures go to docs/performance.md with their command, not into a test).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, build_env

pytestmark = pytest.mark.slow

BENCHMARKS = sorted((ROOT / "scripts").glob("bench_*.py"))
# The browser benchmarks measure a built site: they take the session's strict build of the
# course (MkDocs), which each of them would otherwise make first.
MEASURE_A_SITE = ("bench_lighthouse.py", "bench_offline.py", "bench_weight.py", "bench_widget.py")
# scripts/bench keeps the lines of this shape for its table.
SUMMARY_ROW = re.compile(r"^[^\t]+\t[^\t]*\t[^\t]*\t[^\t]*$")


def run_smoke(script: Path, *extra: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, str(script), "--smoke", "--summary", *extra],
        cwd=ROOT,
        env=build_env(),
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert result.returncode == 0, f"{script.name} failed:\n{result.stderr[-4000:]}"
    rows = result.stdout.splitlines()
    assert rows, f"{script.name} printed no summary row"
    stray = [row for row in rows if not SUMMARY_ROW.match(row)]
    assert not stray, f"{script.name} printed lines that are not summary rows: {stray}"
    return rows


def test_every_benchmark_is_in_the_smoke_profile() -> None:
    """A new benchmark joins a test below by its name alone; one that measures a site is listed
    here, so that it gets the session's site."""
    assert BENCHMARKS, "no scripts/bench_*.py"
    assert set(MEASURE_A_SITE) <= {script.name for script in BENCHMARKS}


@pytest.mark.parametrize(
    "script",
    [script for script in BENCHMARKS if script.name not in MEASURE_A_SITE],
    ids=lambda script: script.stem,
)
def test_benchmark_runs_and_prints_its_summary(script: Path) -> None:
    run_smoke(script)


@pytest.mark.browser
@pytest.mark.parametrize("engine", ["mkdocs"], indirect=True, scope="session")
@pytest.mark.parametrize(
    "script",
    [script for script in BENCHMARKS if script.name in MEASURE_A_SITE],
    ids=lambda script: script.stem,
)
def test_site_benchmark_runs_and_prints_its_summary(script: Path, built_site: Path) -> None:
    run_smoke(script, "--site", str(built_site))
