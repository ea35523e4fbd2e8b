#!/usr/bin/env python3
"""Page weight before any interaction: module 04's page against the same page built as plain
mkdocs-material, raw and gzipped (level 6), by kind (HTML, CSS, JS, fonts; "other" is shown
but not counted: the search index, the favicon). The gate (tests/gates/test_weight.py) allows
at most 1.15x; this prints the same figures as a table.

    .venv/bin/python scripts/bench_weight.py [--site DIR] [--page PATH] [--engine zensical]
                                             [--summary]

With --engine zensical both sides are Zensical's: ours, and the plain page as Zensical builds it.

Without --site the course is built into a temporary folder first. The plain side is always
built in the same run: every page as plain Markdown, the same theme settings, the search plugin.
Both are served from 127.0.0.1 and loaded in Debian's Chromium with an empty cache (service
workers blocked). It also prints what the site's service worker precaches after a first visit's
load event (the offline copy, trafikist.core.offline), which is not part of the page's weight.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
from pathlib import Path

from support import CHROMIUM, CHROMIUM_ARGS, ENGINES, MODULE_04, serve, site_or_build
from support.gates import (
    GZIP_LEVEL,
    build_plain_baseline,
    format_weight,
    measure_weight,
)
from trafikist.core.offline import precache_entries
from trafikist.core.options import DEFAULTS

ROOT = Path(__file__).resolve().parents[1]

LIMIT = 1.15


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="mkdocs",
        help="the engine that builds the site and the plain side (mkdocs-material or Zensical)",
    )
    parser.add_argument("--page", default=MODULE_04, help="the page, relative to the site")
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    # One page, measured once, is this benchmark's smallest size already.
    parser.add_argument("--smoke", action="store_true", help="the same: that it runs")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="bench-weight-") as temp:
        site = site_or_build(args.site, Path(temp), args.engine)
        plain_site = build_plain_baseline(site, Path(temp) / "plain", args.engine)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            with serve(site) as base:
                ours = measure_weight(browser, base, args.page)
            with serve(plain_site) as base:
                plain = measure_weight(browser, base, args.page)
            browser.close()
        offline = offline_copy(site)
    if args.summary:
        for measure in ("raw", "gzip"):
            mine, theirs = getattr(ours, measure), getattr(plain, measure)
            name = f"page weight {measure}, module 04 (bytes)"
            print(f"{name}\t{mine}\t{theirs}\t{mine / theirs:.3f}")
        for measure, total in zip(("raw", "gzip"), offline[1:], strict=True):
            print(f"offline copy after a first visit, {measure} (bytes)\t{total}\t\t")
        return 0
    theme = "mkdocs-material" if args.engine == "mkdocs" else "Zensical"
    print(f"{args.page}, before any interaction; gzip level {GZIP_LEVEL}; plain = {theme}")
    print(format_weight(ours, plain))
    for measure in ("raw", "gzip"):
        ratio = getattr(ours, measure) / getattr(plain, measure)
        verdict = "within" if ratio <= LIMIT else "OVER"
        print(f"{measure}: {ratio:.3f}x ({verdict} the {LIMIT}x budget)")
    files, raw, packed = offline
    print(
        f"not in the page's weight: the offline copy its service worker fetches after the load "
        f"event, {files} files, {raw:,} B raw, {packed:,} B gzip -{GZIP_LEVEL} (docs/offline.md)"
    )
    return 0


def offline_copy(site: Path) -> tuple[int, int, int]:
    """What the site's service worker precaches on a first visit: files, bytes raw and gzipped
    (trafikist.core.offline). The Run's big files are not in it."""
    entries = precache_entries(site, DEFAULTS.assets_path)
    packed = sum(
        len(gzip.compress((site / entry.url).read_bytes(), compresslevel=GZIP_LEVEL))
        for entry in entries
    )
    return len(entries), sum(entry.size for entry in entries), packed


if __name__ == "__main__":
    sys.exit(main())
