#!/usr/bin/env python3
"""Save-to-reload time of each engine's preview on a generated 30-module course: `mkdocs serve`,
and `trafikist serve --engine zensical`.

For each engine it starts the real preview on a free port, then edits one module's text again
and again: each time it writes the file and polls the served page until the new text is there
(the file written -> the rebuilt page served). It prints the median and the max (target:
median < 1 s).

    .venv/bin/python scripts/bench_reload.py [--engine mkdocs zensical] [--modules 30]
                                             [--edits 12] [--summary]
    .venv/bin/python scripts/bench_reload.py --smoke --summary   # 1 module, one edit: it runs

The course is generated with the scaffold command in a temporary folder (see bench_build.py).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from bench_build import PYTHON, env, generate_course

TARGET_SECONDS = 1.0
POLL_SECONDS = 0.01


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_command(engine: str, address: str) -> list[str]:
    if engine == "mkdocs":
        return [PYTHON, "-m", "mkdocs", "serve", "--dev-addr", address]
    return [PYTHON, "-m", "trafikist.cli", "serve", "--engine", engine, "-a", address]


@contextlib.contextmanager
def preview(engine: str, project: Path, *extra: str) -> Iterator[str]:
    """Run the engine's preview in `project`; yield its base URL once it answers."""
    port = free_port()
    log = (project / "serve.log").open("w")
    process = subprocess.Popen(
        [*serve_command(engine, f"127.0.0.1:{port}"), *extra],
        cwd=project,
        env=env(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError((project / "serve.log").read_text())
            with contextlib.suppress(OSError):
                fetch(base, timeout=5)
                break
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def fetch(url: str, timeout: float = 30) -> str:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.read().decode("utf-8")


def wait_for(url: str, text: str, timeout: float = 60) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if text in fetch(url):
            return time.monotonic()
        time.sleep(POLL_SECONDS)
    raise TimeoutError(f"{text!r} never appeared at {url}")


def measure(project: Path, base: str, edits: int) -> list[float]:
    modules = sorted((project / "modules").glob("[0-9][0-9]-*/module.md"))
    source = modules[len(modules) // 2]
    url = base + f"trafikist/{source.parent.name}/"
    original = source.read_text(encoding="utf-8")
    wait_for(url, "What runs today")
    times = []
    for number in range(edits):
        marker = f"Edit number {number} moves nothing."
        text = original.replace("## What runs today\n", f"## What runs today\n\n{marker}\n", 1)
        time.sleep(0.3)  # let the previous rebuild settle, as an author's next save would
        start = time.monotonic()
        source.write_text(text, encoding="utf-8")
        times.append(wait_for(url, marker) - start)
    source.write_text(original, encoding="utf-8")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", nargs="+", choices=("mkdocs", "zensical"),
                        default=["mkdocs", "zensical"])  # fmt: skip
    parser.add_argument("--modules", type=int, default=30)
    parser.add_argument("--dives", type=int, default=2)
    parser.add_argument("--edits", type=int, default=12)
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="1 module, one edit: that it runs")
    parser.add_argument("serve_args", nargs="*", help="extra `mkdocs serve` arguments")
    args = parser.parse_args()
    if args.smoke:
        args.modules, args.dives, args.edits = 1, 1, 1
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-reload-") as temp:
        project = generate_course(Path(temp) / "course", args.modules, args.dives)
        for engine in args.engine:
            extra = args.serve_args if engine == "mkdocs" else []
            with preview(engine, project, *extra) as base:
                results[engine] = measure(project, base, args.edits)
    if args.summary:
        for engine, times in results.items():
            median = statistics.median(times)
            name = f"save to reload, module edit, {engine}"
            print(f"{name}\t{median:.2f}\t{TARGET_SECONDS:.2f}\t{median / TARGET_SECONDS:.2f}")
        return 0
    print(f"preview, {args.modules} generated modules, one module's text edited")
    print(f"{'engine':<10}{'edits':>6}{'median s':>10}{'min s':>8}{'max s':>8}")
    for engine, times in results.items():
        median = statistics.median(times)
        print(f"{engine:<10}{len(times):>6}{median:>10.2f}{min(times):>8.2f}{max(times):>8.2f}"
              f"  ({'within' if median < TARGET_SECONDS else 'OVER'} the "
              f"{TARGET_SECONDS:.0f} s target)")  # fmt: skip
    print(f"load average: {' '.join(f'{value:.1f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    sys.exit(main())
