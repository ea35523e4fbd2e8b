"""Benchmark of the fairness checks' cold cost: `trafikist check` (the checks a build runs) on an
empty cache, as a fresh clone (CI, a new author) runs it, against the same checks on the cache
that first run left (each question's verdicts read from disk, no variant run).

    .venv/bin/python scripts/bench_fairness.py [--runs 3] [--summary]
    .venv/bin/python scripts/bench_fairness.py --against main --runs 2   # and main's code
    .venv/bin/python scripts/bench_fairness.py --smoke --summary   # one run of each: it runs

Each run is a new process; its CPU time (user + system, from the kernel's accounting of the
child) is the figure, since the machine is shared and the wall time follows its load. Prints
the median of each and their ratio. With `--against REF`, the same runs of the package as it is
at git REF (its `src/`, on the same course, round-robin with ours), and ours over it. Not a
timed test: the figures go to docs/performance.md by hand.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECK = "import sys; from trafikist.cli import main; sys.argv[0] = 'trafikist'; sys.exit(main())"


def cpu_of_check(cache: Path, source: Path | None = None) -> float:
    """User + system seconds of one `trafikist check` with TRAFIKIST_CACHE at `cache` (of the
    package in `source`, a `src/` folder, when given)."""
    env = {**os.environ, "TRAFIKIST_CACHE": str(cache)}
    if source is not None:
        env["PYTHONPATH"] = str(source)
    process = subprocess.Popen(
        [sys.executable, "-c", CHECK, "check"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"trafikist check failed ({process.returncode}):\n{errors.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="one run of each")
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--against", metavar="REF", help="also the package at git REF")
    args = parser.parse_args()
    runs = 1 if args.smoke else max(1, args.runs)
    with tempfile.TemporaryDirectory(prefix="bench-fairness-ref-") as checkout:
        other = _export(args.against, Path(checkout)) if args.against else None
        cold, warm, cold_other, warm_other = _measure(runs, other)
    cold_cpu, warm_cpu = statistics.median(cold), statistics.median(warm)
    ratio = cold_cpu / warm_cpu
    if args.summary:
        print(
            f"trafikist check, empty cache (CPU)\t{cold_cpu:.2f} s\t"
            f"{warm_cpu:.2f} s, cache kept\t{ratio:.2f}x"
        )
        if cold_other:
            before = statistics.median(cold_other)
            print(
                f"trafikist check, empty cache, vs {args.against} (CPU)\t{cold_cpu:.2f} s\t"
                f"{before:.2f} s\t{cold_cpu / before:.2f}x"
            )
        return 0
    print(f"trafikist check, CPU (user + system), median of {runs}")
    each = " ".join(f"{x:.2f}" for x in cold)
    print(f"  empty cache (a fresh clone's first build): {cold_cpu:.2f} s  (each: {each})")
    each = " ".join(f"{x:.2f}" for x in warm)
    print(f"  cache kept (verdicts read from disk):      {warm_cpu:.2f} s  (each: {each})")
    print(f"  ratio: {ratio:.2f}x")
    if cold_other and warm_other:
        before, kept = statistics.median(cold_other), statistics.median(warm_other)
        each = " ".join(f"{x:.2f}" for x in cold_other)
        print(f"the same at {args.against}:")
        print(f"  empty cache: {before:.2f} s  (each: {each})")
        each = " ".join(f"{x:.2f}" for x in warm_other)
        print(f"  cache kept:  {kept:.2f} s  (each: {each})")
        print(f"  ours over {args.against}, empty cache: {cold_cpu / before:.2f}x")
    return 0


def _export(ref: str, folder: Path) -> Path:
    """The package's `src/` as it is at git `ref`, written under `folder`."""
    archive = subprocess.run(
        ["git", "archive", ref, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def _measure(
    runs: int, other: Path | None
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Round-robin, so that a burst of the machine's load falls on every side."""
    cold: list[float] = []
    warm: list[float] = []
    cold_other: list[float] = []
    warm_other: list[float] = []
    for _ in range(runs):
        sides = [(None, cold, warm)] + ([(other, cold_other, warm_other)] if other else [])
        for source, cold_side, warm_side in sides:
            with tempfile.TemporaryDirectory(prefix="bench-fairness-") as folder:
                cold_side.append(cpu_of_check(Path(folder), source))
                warm_side.append(cpu_of_check(Path(folder), source))
    return cold, warm, cold_other, warm_other


if __name__ == "__main__":
    sys.exit(main())
