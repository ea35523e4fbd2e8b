#!/usr/bin/env python3
"""Save-to-reload time of each engine's preview, beside a plain mkdocs-material preview of the
same pages: `mkdocs serve`, `trafikist serve --engine zensical`, and `mkdocs serve` of the same
pages as plain files with no trafikist (the baseline).

For each side it starts the real preview on a free port, then adds one sentence to one module's
text again and again: each time it writes the file and polls the served page until the new text
is there (the file written -> the rebuilt page served). It prints the median, min and max
(target: median < 1 s) and each engine's ratio to the baseline's median.

    .venv/bin/python scripts/bench_reload.py [--engine mkdocs zensical] [--course generated]
                                             [--modules 30] [--edits 12] [--summary]
    .venv/bin/python scripts/bench_reload.py --course real    # the repository's course, module 04
    .venv/bin/python scripts/bench_reload.py --smoke --summary   # 1 module, one edit: it runs

`--course generated` (the default) is a 30-module course made with the scaffold command in a
temporary folder (see bench_build.py); `--course real` is a copy of the repository's course,
whose module 04 carries the duty widget and its questions. The baseline serves what the
renderer writes for those pages (bench_build.plain_project).
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

from bench_build import PYTHON, env, generate_course, plain_project
from support import copy_project

TARGET_SECONDS = 1.0
POLL_SECONDS = 0.01


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


BASELINE = "plain mkdocs-material"
REAL_MODULE = "04-blocking-timers-and-the-bus"


def serve_command(engine: str, address: str) -> list[str]:
    if engine in ("mkdocs", BASELINE):
        return [PYTHON, "-m", "mkdocs", "serve", "--dev-addr", address]
    return [PYTHON, "-m", "trafikist.cli", "serve", "--engine", engine, "-a", address]


@contextlib.contextmanager
def preview(engine: str, project: Path, *extra: str) -> Iterator[tuple[str, int]]:
    """Run the engine's preview in `project`; yield its base URL once it answers, and its
    process id."""
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
        yield base, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) the process and its waited-for children have used: what a
    save costs the preview, which a busy machine does not inflate as it does the wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


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


def edited_page(course: Path, project: Path, side: str, real: bool) -> tuple[Path, str, str]:
    """The file an author edits on that side, the page's address and the heading after which
    the sentence goes: a module's source (the middle module of a generated course, module 04 of
    the real one), or on the plain side the page's Markdown as the renderer wrote it."""
    if real:
        folder, heading = REAL_MODULE, "## Who moves time today"
    else:
        modules = sorted((course / "modules").glob("[0-9][0-9]-*/module.md"))
        folder, heading = modules[len(modules) // 2].parent.name, "## What runs today"
    if side == BASELINE:
        source = project / "docs" / "trafikist" / folder / "index.md"
    else:
        source = project / "modules" / folder / "module.md"
    return source, f"trafikist/{folder}/", heading


def with_sentence(text: str, heading: str, sentence: str) -> str:
    """The text with one sentence after the heading's line (whatever attributes it carries)."""
    start = text.index(heading + " ") if heading + " " in text else text.index(heading + "\n")
    end = text.index("\n", start) + 1
    return text[:end] + f"\n{sentence}\n" + text[end:]


def measure(
    course: Path, project: Path, preview: tuple[str, int], edits: int, side: str, real: bool
) -> tuple[list[float], list[float]]:
    """Each edit's save-to-reload time and the preview's CPU seconds for it. `course`: the
    course's project; `project`: the folder served on that side."""
    base, pid = preview
    source, address, heading = edited_page(course, project, side, real)
    url = base + address
    original = source.read_text(encoding="utf-8")
    wait_for(url, heading.removeprefix("## "))
    times, cpu = [], []
    for number in range(edits):
        marker = f"Edit number {number} moves nothing."
        text = with_sentence(original, heading, marker)
        time.sleep(0.3)  # let the previous rebuild settle, as an author's next save would
        before = cpu_seconds(pid)
        start = time.monotonic()
        source.write_text(text, encoding="utf-8")
        times.append(wait_for(url, marker) - start)
        cpu.append(cpu_seconds(pid) - before)
    source.write_text(original, encoding="utf-8")
    return times, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", nargs="+", choices=("mkdocs", "zensical"),
                        default=["mkdocs", "zensical"])  # fmt: skip
    parser.add_argument("--course", choices=("generated", "real"), default="generated")
    parser.add_argument("--modules", type=int, default=30)
    parser.add_argument("--dives", type=int, default=2)
    parser.add_argument("--edits", type=int, default=12)
    parser.add_argument("--no-baseline", action="store_true", help="skip the plain preview")
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="1 module, one edit: that it runs")
    parser.add_argument("serve_args", nargs="*", help="extra `mkdocs serve` arguments")
    args = parser.parse_args()
    if args.smoke:
        args.modules, args.dives, args.edits = 1, 1, 1
    real = args.course == "real"
    results: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-reload-") as temp:
        if real:
            project = copy_project(Path(temp) / "course")
        else:
            project = generate_course(Path(temp) / "course", args.modules, args.dives)
        sides = [] if args.no_baseline else [BASELINE]
        sides += args.engine
        for side in sides:
            extra = args.serve_args if side == "mkdocs" else []
            folder = plain_project(project, Path(temp) / "plain") if side == BASELINE else project
            with preview(side, folder, *extra) as served:
                results[side], cpu[side] = measure(project, folder, served, args.edits, side, real)
    baseline = statistics.median(results[BASELINE]) if BASELINE in results else None
    what = "module 04 of the course" if real else f"{args.modules} generated modules"
    if args.summary:
        for side, times in results.items():
            median = statistics.median(times)
            name = f"save to reload, one sentence, {what}, {side}"
            used = statistics.median(cpu[side])
            print(f"{name}, CPU\t{used:.2f}\t{TARGET_SECONDS:.2f}\t{used / TARGET_SECONDS:.2f}")
            if baseline is None:
                print(f"{name}\t{median:.2f}\t{TARGET_SECONDS:.2f}\t{median / TARGET_SECONDS:.2f}")
            else:
                print(f"{name}\t{median:.2f}\t{baseline:.2f}\t{median / baseline:.2f}")
        return 0
    print(f"preview, {what}, one sentence added to a module's text, {args.edits} edits")
    print(f"{'side':<22}{'median s':>10}{'min s':>8}{'max s':>8}{'x plain':>9}{'CPU s':>8}")
    for side, times in results.items():
        median = statistics.median(times)
        ratio = f"{median / baseline:>9.2f}" if baseline else f"{'':>9}"
        verdict = ""
        if side != BASELINE:
            verdict = f"  ({'within' if median < TARGET_SECONDS else 'OVER'} the 1 s target)"
        used = statistics.median(cpu[side])
        print(
            f"{side:<22}{median:>10.2f}{min(times):>8.2f}{max(times):>8.2f}{ratio}{used:>8.2f}"
            f"{verdict}"
        )
    print("CPU s: the preview's own CPU time per save (median); on a busy machine the wall")
    print("time also waits for the neighbours.")
    print(f"load average: {' '.join(f'{value:.1f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    sys.exit(main())
