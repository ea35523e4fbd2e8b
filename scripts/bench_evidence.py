#!/usr/bin/env python3
"""What "How we know" costs a build, and what keeping the checks' evidence on disk saves:
the course's own build under each engine, side by side.

A one-shot build checks in a child while the engine renders in its own process, which needs
each page's evidence for the marks and the evidence files (trafikist.core.evidence_store).

- before: TRAFIKIST_EVIDENCE_CACHE=0, the checks run again in the build's process;
- cold: the cache on, its evidence folder empty (a first build, or one after a code change);
- warm: the cache on, the entries of a build before (a build again, a test's build).

Each build is a fresh process; the other caches (templates, snapshots, workers) are warm for
all three (one uncounted build first). CPU time is the build's and its checks' child's (user
+ system), wall the build's. Also printed: the rerun alone, in process (every page's evidence
with the checks' memo empty), and whether the three variants build the same files.

    .venv/bin/python scripts/bench_evidence.py [--runs 3] [--engine zensical] [--summary]
    .venv/bin/python scripts/bench_evidence.py --smoke --summary   # Zensical, one run
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trafikist.base.diskcache import cache_folder
from trafikist.core.evidence_store import KIND, SWITCH

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("before", "cold", "warm")


def build(engine: str, site: Path, variant: str) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one build of the course into `site`."""
    environment = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    environment.pop("TRAFIKIST_REGISTRY", None)
    environment[SWITCH] = "0" if variant == "before" else "1"
    if variant == "cold":
        shutil.rmtree(cache_folder(KIND), ignore_errors=True)
    if engine == "mkdocs":
        command = [sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(site)]
    else:
        command = [sys.executable, "-m", "trafikist.cli", "build", "--engine", engine]
        command += ["-d", str(site)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"the {engine} build failed:\n{result.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def rerun_alone() -> tuple[float, int]:
    """CPU seconds of every page's evidence from the checks, the memo empty, and the pages."""
    from trafikist.core.site import load_site

    site = load_site(ROOT / "modules", base_dir=ROOT, checks=False)
    pages = list(site.course.pages.values())
    evidence = site.renderer.evidence
    assert evidence is not None
    os.environ[SWITCH] = "0"  # the checks, not the cache
    try:
        start = time.process_time()
        for page in pages:
            evidence(page)
        spent = time.process_time() - start
    finally:
        del os.environ[SWITCH]
    return spent, len(pages)


def same_files(left: Path, right: Path) -> bool:
    compared = filecmp.dircmp(left, right)
    pending = [compared]
    while pending:
        current = pending.pop()
        if current.left_only or current.right_only or current.diff_files or current.funny_files:
            return False
        _, mismatch, errors = filecmp.cmpfiles(
            current.left, current.right, current.common_files, shallow=False
        )
        if mismatch or errors:
            return False
        pending.extend(current.subdirs.values())
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--engine", choices=("zensical", "mkdocs"), action="append")
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="Zensical, one run: that it runs")
    arguments = parser.parse_args()
    engines = arguments.engine or ["zensical", "mkdocs"]
    if arguments.smoke:
        engines, arguments.runs = ["zensical"], 1
    spent, pages = rerun_alone()
    if not arguments.summary:
        print(f"the rerun alone, in process: {spent:.2f} s CPU for {pages} pages' evidence")
    with tempfile.TemporaryDirectory(prefix="trafikist-bench-evidence-") as scratch:
        for engine in engines:
            sites = {variant: Path(scratch) / engine / variant for variant in VARIANTS}
            if not arguments.smoke:  # uncounted: warms the other caches and the OS's
                build(engine, Path(scratch) / engine / "first", "warm")
            times: dict[str, list[tuple[float, float]]] = {variant: [] for variant in VARIANTS}
            for _ in range(arguments.runs):
                for variant in VARIANTS:  # cold then warm: warm reads what cold wrote
                    times[variant].append(build(engine, sites[variant], variant))
            cpu = {v: statistics.median(c for c, _ in times[v]) for v in VARIANTS}
            wall = {v: statistics.median(w for _, w in times[v]) for v in VARIANTS}
            same = all(same_files(sites["before"], sites[v]) for v in VARIANTS[1:])
            if arguments.summary:
                for variant in VARIANTS[1:]:
                    label = f"course build, {engine}, evidence {variant}, CPU"
                    ratio = cpu[variant] / cpu["before"]
                    print(f"{label}\t{cpu[variant]:.2f}\t{cpu['before']:.2f}\t{ratio:.3f}")
                continue
            print(f"\n{engine}: median of {arguments.runs} builds of the course")
            print(f"{'variant':<8} {'CPU s':>7} {'wall s':>7} {'CPU ratio':>10} {'wall ratio':>11}")
            for variant in VARIANTS:
                print(
                    f"{variant:<8} {cpu[variant]:7.2f} {wall[variant]:7.2f} "
                    f"{cpu[variant] / cpu['before']:10.3f} {wall[variant] / wall['before']:11.3f}"
                )
            print(f"the three variants build the same files: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
