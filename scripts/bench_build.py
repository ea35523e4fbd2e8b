#!/usr/bin/env python3
"""Cold `mkdocs build` of a generated 30-module course, against plain mkdocs-material.

Both sides build the same Markdown: the course's pages as trafikist renders them, written out as
plain .md files for the plain side, with the same theme, Markdown extensions and stylesheets.
The ratio is trafikist's median over plain mkdocs-material's median (target: at most 1.3).

    .venv/bin/python scripts/bench_build.py [--modules 30] [--dives 2] [--runs 5] [--summary]

The course is generated with the scaffold command (`trafikist new module/dive`) in a temporary
folder; the repository is not touched.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the project copy is shared with the tests
from support import PROJECT_PARTS, copy_project  # noqa: E402

PYTHON = sys.executable
TARGET_RATIO = 1.3
# Filler that makes a generated lesson weigh like a written one (module 04 is about 30 KB).
FILLER = (
    "Today a client sends every sweep on its own connection, one call at a time, and each call "
    "reads the server's clock once, when it arrives. Between calls, nothing in the module runs. "
)


def env() -> dict[str, str]:
    environment = dict(os.environ)
    environment["NO_MKDOCS_2_WARNING"] = "1"
    environment.pop("TRAFIKIST_REGISTRY", None)
    return environment


def generate_course(folder: Path, modules: int = 30, dives: int = 2) -> Path:
    """A project folder like the repository's, whose course has `modules` generated modules."""
    copy_project(folder, tuple(part for part in PROJECT_PARTS if part != "modules"))
    (folder / "modules").mkdir()
    shutil.copy2(ROOT / "modules" / "course.yml", folder / "modules" / "course.yml")
    sys.path.insert(0, str(ROOT / "src"))
    from trafikist.course.scaffold import new_dive, new_module
    from trafikist.course.structure import Status

    for number in range(1, modules + 1):
        created = new_module(
            folder / "modules",
            f"Generated module {number}",
            summary=f"Module {number} of the generated course, for the benchmarks.",
            status=Status.BUILT,
        )
        _fill(created.path)
        for dive in range(1, dives + 1):
            made = new_dive(
                folder / "modules",
                created.page_id,
                f"Dive {dive} of module {number}",
                summary=f"Dive {dive} of generated module {number}.",
                status=Status.BUILT,
            )
            _fill(made.path)
    return folder


def _fill(path: Path, paragraphs: int = 12) -> None:
    text = path.read_text(encoding="utf-8")
    extra = "\n".join(f"{FILLER * 3}\n" for _ in range(paragraphs))
    text = text.replace("## What runs today\n", f"## What runs today\n\n{extra}\n", 1)
    path.write_text(text, encoding="utf-8")


def plain_project(course_project: Path, folder: Path) -> Path:
    """The same pages' Markdown as plain files, built by mkdocs-material with no trafikist."""
    import yaml

    sys.path.insert(0, str(ROOT / "src"))
    from trafikist.site import load_site

    site = load_site(course_project / "modules")
    docs = folder / "docs"
    for page in site.pages():
        target = docs / page.src_uri()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(site.renderer.page_markdown(page), encoding="utf-8")
    shutil.copytree(course_project / "overrides", folder / "overrides")
    shutil.copytree(course_project / "widgets", docs / "assets" / "trafikist")
    config = yaml.safe_load((course_project / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"] = ["search"]
    config["strict"] = False
    config["nav"] = site.nav()
    config["extra_css"] = [
        f"assets/trafikist/{path.relative_to(course_project / 'widgets').as_posix()}"
        for path in sorted((course_project / "widgets").rglob("*.css"))
    ]
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


# CPU seconds (user + system) of each build, beside its wall time: on a busy machine the wall
# time measures the neighbours too.
CPU: dict[Path, list[float]] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_build(project: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        site = Path(tempfile.mkdtemp(prefix="bench-site-"))
        cpu = _children_cpu()
        start = time.perf_counter()
        result = subprocess.run(
            [PYTHON, "-m", "mkdocs", "build", "-q", "-d", str(site)],
            cwd=project,
            env=env(),
            capture_output=True,
            text=True,
        )
        times.append(time.perf_counter() - start)
        CPU.setdefault(project, []).append(_children_cpu() - cpu)
        shutil.rmtree(site, ignore_errors=True)
        if result.returncode != 0:
            sys.exit(f"mkdocs build failed in {project}:\n{result.stderr}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modules", type=int, default=30)
    parser.add_argument("--dives", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as temp:
        course = generate_course(Path(temp) / "course", args.modules, args.dives)
        plain = plain_project(course, Path(temp) / "plain")
        pages = sum(1 for _ in (plain / "docs").rglob("*.md"))
        # Alternate the two sides so a machine's slow spell hits both alike.
        ours: list[float] = []
        theirs: list[float] = []
        time_build(course, 1)  # warm the OS file cache for both; not counted
        time_build(plain, 1)
        CPU.clear()
        for _ in range(args.runs):
            ours += time_build(course, 1)
            theirs += time_build(plain, 1)
        cpu_ours, cpu_theirs = CPU[course], CPU[plain]
    median_ours, median_theirs = statistics.median(ours), statistics.median(theirs)
    ratio = median_ours / median_theirs
    cpu_ratio = statistics.median(cpu_ours) / statistics.median(cpu_theirs)
    if args.summary:
        name = f"cold build, {args.modules} modules"
        print(f"{name}\t{median_ours:.2f}\t{median_theirs:.2f}\t{ratio:.2f}")
        cpu_name = f"cold build CPU, {args.modules} modules"
        cpu_figures = f"{statistics.median(cpu_ours):.2f}\t{statistics.median(cpu_theirs):.2f}"
        print(f"{cpu_name}\t{cpu_figures}\t{cpu_ratio:.2f}")
        return 0
    print(f"cold mkdocs build, {args.modules} generated modules, {pages} pages, {args.runs} runs")
    print(f"{'site':<24}{'median s':>10}{'min s':>8}{'max s':>8}{'CPU median s':>14}")
    for name, values, cpu in (
        ("trafikist", ours, cpu_ours),
        ("plain mkdocs-material", theirs, cpu_theirs),
    ):
        print(
            f"{name:<24}{statistics.median(values):>10.2f}{min(values):>8.2f}"
            f"{max(values):>8.2f}{statistics.median(cpu):>14.2f}"
        )
    verdict = "within" if ratio <= TARGET_RATIO else "OVER"
    print(f"ratio {ratio:.2f}x wall ({verdict} the {TARGET_RATIO}x target), {cpu_ratio:.2f}x CPU")
    # Each trafikist build over the plain build right after it: a slow spell of the machine
    # weighs on both builds of a pair, so these spread less than the two medians do.
    pairs = sorted(a / b for a, b in zip(ours, theirs, strict=True))
    print(
        f"run by run: median {statistics.median(pairs):.2f}x "
        f"(from {pairs[0]:.2f}x to {pairs[-1]:.2f}x over {len(pairs)} pairs)"
    )
    print(f"load average: {' '.join(f'{value:.1f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
