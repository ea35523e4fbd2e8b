#!/usr/bin/env python3
"""The long fuzz profile: thousands of mutations of the real course's sources, each loaded,
checked and rendered in this process, and the invariant of support.fuzz judged on each.

    .venv/bin/python scripts/bench_fuzz.py [--count 2000] [--seed 20] [--summary]
    .venv/bin/python scripts/bench_fuzz.py --smoke --summary   # 3 mutations: it runs
    scripts/bench fuzz                     # the same, with the other benchmarks' table

A mutation deletes, duplicates or swaps lines, drops a closing marker (`///`, `-->`, a claim's
`}`), turns a YAML scalar into a list or a mapping, or inserts bytes (NUL, bytes that are not
UTF-8, a byte-order mark), in one file under modules/. Each outcome is one of:

    caught       one line, `FILE:LINE: what. Fix: how.`, at the mutated file or one it leads to
    caught-many  one such line per sentence the change made false, no place named twice
    built        the changed pages keep the original's outline; no source syntax shows as text
    failed       anything else: another exception, a malformed or misplaced line, a changed
                 outline, syntax shown as text (each listed, with what went wrong)

The short, seeded profile of the same harness runs in the fast tier
(tests/checks/test_fuzz_sources.py). Without --summary, the exit status is 1 when a mutation
failed the invariant.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from support import ROOT
from support.fuzz import OPERATORS, Harness, Outcome, mutate
from trafikist.model import install_command_table
from trafikist.registry import export_command_table, load_registry

KINDS = ("caught", "caught-many", "built", "failed")


def run(count: int, seed: int) -> tuple[list[Outcome], float]:
    install_command_table(export_command_table(load_registry(ROOT / "registry")))
    rng = random.Random(seed)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as folder:
        harness = Harness(Path(folder))
        started = time.perf_counter()
        for _ in range(count):
            outcomes.append(harness.run(mutate(harness.project, harness.files, rng.randint)))
        elapsed = time.perf_counter() - started
    return outcomes, elapsed


def report(outcomes: list[Outcome], elapsed: float, seed: int) -> None:
    kinds = Counter(outcome.kind for outcome in outcomes)
    print(f"fuzz of the course's sources: {len(outcomes)} mutations, seed {seed}")
    print(f"{elapsed:.0f} s, {elapsed / max(len(outcomes), 1) * 1000:.0f} ms a mutation\n")
    print(f"{'operator':<24}" + "".join(f"{kind:>13}" for kind in KINDS))
    for operator in OPERATORS:
        of = Counter(o.kind for o in outcomes if o.mutation.operator == operator)
        print(f"{operator:<24}" + "".join(f"{of[kind]:>13}" for kind in KINDS))
    print(f"{'all':<24}" + "".join(f"{kinds[kind]:>13}" for kind in KINDS))
    print(f"\nfiles mutated: {len({outcome.mutation.file for outcome in outcomes})}")
    failed = [outcome for outcome in outcomes if outcome.kind == "failed"]
    print(f"\nfailed the invariant: {len(failed)}")
    for outcome in failed:
        print(f"- {outcome.mutation.describe()}")
        for line in outcome.message.splitlines()[:12]:
            print(f"    {line[:300]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="mutations to try")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="3 mutations: that it runs")
    args = parser.parse_args()
    if args.smoke:
        args.count = 3
    outcomes, elapsed = run(args.count, args.seed)
    kinds = Counter(outcome.kind for outcome in outcomes)
    if args.summary:
        tried = len(outcomes)
        for kind in KINDS:
            share = kinds[kind] / tried
            print(f"fuzz, {tried} mutations: {kind}\t{kinds[kind]}\t{tried}\t{share:.3f}")
        print(f"fuzz, ms a mutation\t{elapsed / tried * 1000:.0f}\t\t")
        return 0  # the table shows the failures; scripts/bench keeps the other figures
    report(outcomes, elapsed, args.seed)
    return 1 if kinds["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
