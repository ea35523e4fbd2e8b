#!/usr/bin/env python3
"""Cold builds of a generated 30-module course: plain mkdocs-material, ours under MkDocs and ours
under Zensical, side by side.

All build the same Markdown: the course's pages as trafikist renders them, written out as plain
.md files for the plain side, with the same theme, Markdown extensions and stylesheets. The
ratios are each of ours over plain mkdocs-material's median (targets: MkDocs at most 1.3,
Zensical under 1). Plain Zensical on the same plain files is timed too, for reference: what
Zensical itself costs.

The plain side's files carry none of the marks with which our renderer tells our Markdown
extension where each run of the HTML it generates begins and ends
(trafikist.course.markdown.generated_html), since no plain mkdocs-material site has a renderer
that writes them: its engine reads that HTML with its HTML block parser. With
--plain-with-marks they stay, and the plain side skips that parser too, through the course's
blocks extension, which both sides load for the course's blocks.

    .venv/bin/python scripts/bench_build.py [--modules 30] [--dives 2] [--runs 5] [--summary]
    .venv/bin/python scripts/bench_build.py --smoke --summary   # 1 module, one run: it runs
    .venv/bin/python scripts/bench_build.py --empty-cache       # a fresh clone's first build
    .venv/bin/python scripts/bench_build.py --plain-with-marks  # plain skips the parser too

The course is generated with the scaffold command (`trafikist new module/dive`) in a temporary
folder; the repository is not touched. Each build is a fresh process into a new site folder
(Zensical's cache starts empty: ours builds in a new work folder, the plain one with --clean).
trafikist's cache of derived files (~/.cache/trafikist: compiled templates, bundles, each
page's evidence) is the machine's, kept from one build to the next as on an author's machine;
with --empty-cache each build starts with an empty one, as a fresh clone's first build does.
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

from support import PROJECT_PARTS, copy_project

ROOT = Path(__file__).resolve().parents[1]

PYTHON = sys.executable
TARGET_RATIO = 1.3  # ours under MkDocs, over plain mkdocs-material
ZENSICAL_TARGET = 1.0  # ours under Zensical: faster than plain mkdocs-material
# Filler that makes a generated lesson weigh like a written one (module 04 is about 30 KB).
FILLER = (
    "Today a client sends every sweep on its own connection, one call at a time, and each call "
    "reads the server's clock once, when it arrives. Between calls, nothing in the module runs. "
)


def env() -> dict[str, str]:
    environment = dict(os.environ)
    environment["NO_MKDOCS_2_WARNING"] = "1"
    environment.pop("TRAFIKIST_REGISTRY", None)
    # Python keeps the bytecode it compiles, as on an author's machine: pip compiled the plain
    # side's packages when it installed them, but trafikist is an editable install, whose
    # modules only a run compiles. With PYTHONDONTWRITEBYTECODE set (some shells and CI images
    # set it), ours would compile its ninety modules again in every build, about 0.4 s that
    # the plain side never pays; the uncounted first round writes them once.
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    return environment


def generate_course(folder: Path, modules: int = 30, dives: int = 2) -> Path:
    """A project folder like the repository's, whose course has `modules` generated modules."""
    copy_project(folder, tuple(part for part in PROJECT_PARTS if part != "modules"))
    (folder / "modules").mkdir()
    shutil.copy2(ROOT / "modules" / "course.yml", folder / "modules" / "course.yml")
    from trafikist.course.scaffold import NewPage, new_dive, new_module
    from trafikist.course.structure import Status

    for number in range(1, modules + 1):
        module = NewPage(
            f"Generated module {number}",
            f"Module {number} of the generated course, for the benchmarks.",
            Status.BUILT,
        )
        created = new_module(folder / "modules", module)
        _fill(created.path)
        for dive in range(1, dives + 1):
            page = NewPage(
                f"Dive {dive} of module {number}",
                f"Dive {dive} of generated module {number}.",
                Status.BUILT,
            )
            _fill(new_dive(folder / "modules", created.page_id, page).path)
    return folder


def _fill(path: Path, paragraphs: int = 12) -> None:
    text = path.read_text(encoding="utf-8")
    extra = "\n".join(f"{FILLER * 3}\n" for _ in range(paragraphs))
    text = text.replace("## What runs today\n", f"## What runs today\n\n{extra}\n", 1)
    path.write_text(text, encoding="utf-8")


def without_marks(markdown: str) -> str:
    """The page without the renderer's marks around its own HTML: a plain mkdocs-material
    site's HTML is read by the engine's HTML block parser, which the marks let ours skip
    (trafikist.course.markdown.generated_html). The pages built are the same, but for a
    blank line after some of those runs of HTML."""
    from trafikist.course.markdown.generated_html import GENERATED_CLOSE, GENERATED_OPEN

    marks = (GENERATED_OPEN, GENERATED_CLOSE)
    return "\n".join(line for line in markdown.split("\n") if line not in marks)


def plain_project(course_project: Path, folder: Path, marks: bool = False) -> Path:
    """The same pages as plain files, built by mkdocs-material with no trafikist: the course's
    pages as the renderer writes them (docs/ is the authors' guide, which a build for readers
    leaves out, as ours do)."""
    import yaml

    from trafikist.core.options import DEFAULTS
    from trafikist.core.site import load_site

    site = load_site(course_project / "modules")
    docs = folder / "docs"
    for page in site.pages():
        target = docs / page.src_uri()
        target.parent.mkdir(parents=True, exist_ok=True)
        markdown = site.renderer.page_markdown(page)
        target.write_text(markdown if marks else without_marks(markdown), encoding="utf-8")
    shutil.copytree(course_project / "overrides", folder / "overrides")
    shutil.copytree(course_project / "widgets", docs / DEFAULTS.assets_path)
    config = yaml.safe_load((course_project / "mkdocs.yml").read_text(encoding="utf-8"))
    config["plugins"] = ["search"]
    config["strict"] = False
    # The overrides load the theme's scripts from the assets path, which our plugin sets; the
    # plain side serves widgets/ at the default path, so it gets that path as plain config.
    config.setdefault("extra", {})["trafikist"] = {"assets_path": DEFAULTS.assets_path}
    config["nav"] = site.nav()
    config["extra_css"] = [
        f"{DEFAULTS.assets_path}/{path.relative_to(course_project / 'widgets').as_posix()}"
        for path in sorted((course_project / "widgets").rglob("*.css"))
    ]
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return folder


# CPU seconds (user + system) of each build, beside its wall time: on a busy machine the wall
# time measures the neighbours too.
CPU: dict[str, list[float]] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def builds(course: Path, plain: Path) -> dict[str, tuple[Path, list[str]]]:
    """Each side: the folder it builds in and its command (SITE stands for the site folder)."""
    zensical = [PYTHON, "-m", "trafikist.cli", "build", "--engine", "zensical", "-d", "SITE"]
    return {
        "plain mkdocs-material": (plain, [PYTHON, "-m", "mkdocs", "build", "-q", "-d", "SITE"]),
        "ours, MkDocs": (course, [PYTHON, "-m", "mkdocs", "build", "-q", "-d", "SITE"]),
        "ours, Zensical": (course, zensical),
        "plain Zensical (reference)": (plain, [PYTHON, "-m", "zensical", "build", "--clean"]),
    }


def time_build(name: str, folder: Path, command: list[str], empty_cache: bool = False) -> float:
    site = Path(tempfile.mkdtemp(prefix="bench-site-"))
    environment = env()
    if empty_cache:
        # A fresh clone's first build: trafikist's cache of derived files (compiled templates,
        # bundles, each page's evidence; trafikist.base.diskcache) starts empty.
        environment["TRAFIKIST_CACHE"] = str(site) + "-cache"
    cpu = _children_cpu()
    start = time.perf_counter()
    result = subprocess.run(
        [str(site) if part == "SITE" else part for part in command],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    CPU.setdefault(name, []).append(_children_cpu() - cpu)
    shutil.rmtree(site, ignore_errors=True)
    shutil.rmtree(str(site) + "-cache", ignore_errors=True)
    if result.returncode != 0:
        sys.exit(f"{name} failed in {folder}:\n{result.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modules", type=int, default=30)
    parser.add_argument("--dives", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="1 module, one run: that it runs")
    parser.add_argument(
        "--empty-cache",
        action="store_true",
        help="each build starts with an empty cache of derived files, as a fresh clone's first",
    )
    parser.add_argument(
        "--plain-with-marks",
        action="store_true",
        help="keep the renderer's marks on the plain side's pages (see above)",
    )
    args = parser.parse_args()
    if args.smoke:
        args.modules, args.dives, args.runs = 1, 1, 1
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-build-") as temp:
        course = generate_course(Path(temp) / "course", args.modules, args.dives)
        plain = plain_project(course, Path(temp) / "plain", marks=args.plain_with_marks)
        pages = sum(1 for _ in (plain / "docs").rglob("*.md"))
        sides = builds(course, plain)
        for name, (folder, command) in sides.items():  # warm the OS file cache; not counted
            if not args.smoke:
                time_build(name, folder, command)
        CPU.clear()
        # Round-robin, so a machine's slow spell hits every side alike.
        for _ in range(args.runs):
            for name, (folder, command) in sides.items():
                elapsed = time_build(name, folder, command, args.empty_cache)
                times.setdefault(name, []).append(elapsed)
    baseline = "plain mkdocs-material"
    median = {name: statistics.median(values) for name, values in times.items()}
    cpu = {name: statistics.median(values) for name, values in CPU.items()}
    if args.summary:
        for name, engine in (("ours, MkDocs", "MkDocs"), ("ours, Zensical", "Zensical")):
            label = f"cold build, {args.modules} modules, {engine}"
            print(f"{label}\t{median[name]:.2f}\t{median[baseline]:.2f}\t"
                  f"{median[name] / median[baseline]:.2f}")  # fmt: skip
            print(f"{label}, CPU\t{cpu[name]:.2f}\t{cpu[baseline]:.2f}\t"
                  f"{cpu[name] / cpu[baseline]:.2f}")  # fmt: skip
        return 0
    cache = "an empty" if args.empty_cache else "the machine's"
    marks = "with" if args.plain_with_marks else "without"
    print(f"cold builds, {args.modules} generated modules, {pages} pages, {args.runs} runs each, "
          f"with {cache} cache of derived files; the plain side's pages {marks} the renderer's "
          "marks")  # fmt: skip
    print(f"{'build':<28}{'median s':>10}{'min s':>8}{'max s':>8}{'CPU s':>8}"
          f"{'ratio':>8}{'CPU ratio':>11}{'run by run':>24}")  # fmt: skip
    for name, values in times.items():
        # Each build over the plain build of the same round: a slow spell weighs on both.
        pairs = sorted(a / b for a, b in zip(values, times[baseline], strict=True))
        spread = f"{statistics.median(pairs):.2f}x ({pairs[0]:.2f}-{pairs[-1]:.2f})"
        print(
            f"{name:<28}{median[name]:>10.2f}{min(values):>8.2f}{max(values):>8.2f}"
            f"{cpu[name]:>8.2f}{median[name] / median[baseline]:>7.2f}x"
            f"{cpu[name] / cpu[baseline]:>10.2f}x{spread:>24}"
        )
    for name, target, word in (("ours, MkDocs", TARGET_RATIO, "at most"),
                               ("ours, Zensical", ZENSICAL_TARGET, "under")):  # fmt: skip
        ratio = median[name] / median[baseline]
        met = ratio <= target if word == "at most" else ratio < target
        print(f"{name}: {ratio:.2f}x plain mkdocs-material "
              f"({'meets' if met else 'MISSES'} the target: {word} {target}x)")  # fmt: skip
    print(f"load average: {' '.join(f'{value:.1f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
