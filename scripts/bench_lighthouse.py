#!/usr/bin/env python3
"""Lighthouse (npm `lighthouse`, in Debian's Chromium) on module 04's page, on its first dive
and on the plain mkdocs-material build of module 04's page, served from 127.0.0.1 (gzipped,
as a static host serves them): performance, accessibility, best practices and SEO, with
Lighthouse's default mobile emulation and simulated throttling. Targets: 1.0 for accessibility
and best practices, at least 0.95 for performance and SEO. A benchmark, never a timed test.

    .venv/bin/python scripts/bench_lighthouse.py [--site DIR] [--keep DIR] [--engine zensical]
                                                 [--summary] [--smoke]

--smoke scores module 04 and the plain page only (not the dive): that the benchmark runs.

Without --site the course is built into a temporary folder first. --keep writes the full
Lighthouse reports (JSON) to DIR.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from support import CHROMIUM, CHROMIUM_ARGS, ENGINES, MODULE_04, site_or_build
from support.gates import build_plain_baseline

ROOT = Path(__file__).resolve().parents[1]

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
PAGES = {
    "module 04": MODULE_04,
    "dive 04.01": "trafikist/04-blocking-timers-and-the-bus/01-who-moves-time-today/index.html",
}
TARGETS = {"performance": 0.95, "accessibility": 1.0, "best-practices": 1.0, "seo": 0.95}


COMPRESSED = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt", ".map"}


class GzipHandler(SimpleHTTPRequestHandler):
    """Static files, gzipped (level 6) for a client that accepts it, as any static host sends
    them: Lighthouse then measures the transfer a reader gets."""

    def log_message(self, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[override]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in COMPRESSED):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    handler = functools.partial(GzipHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def lighthouse(url: str, report: Path) -> dict:
    env = dict(os.environ, CHROME_PATH=CHROMIUM)
    flags = " ".join(["--headless=new", *CHROMIUM_ARGS])
    command = [
        "node",
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={report}",
        f"--chrome-flags={flags}",
        f"--only-categories={','.join(TARGETS)}",
    ]
    subprocess.run(command, env=env, check=True, timeout=300, capture_output=True)
    return json.loads(report.read_text(encoding="utf-8"))


def failed_audits(result: dict, category: str) -> list[str]:
    """The scored audits of a category that did not pass, for the reader of the table."""
    audits = result["audits"]
    return [
        f"{ref['id']} ({audits[ref['id']]['score']})"
        for ref in result["categories"][category]["auditRefs"]
        if ref.get("weight")
        and audits[ref["id"]].get("score") is not None
        and audits[ref["id"]]["score"] < 1
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="mkdocs",
        help="the engine that builds the site and the plain side (mkdocs-material or Zensical)",
    )
    parser.add_argument("--keep", type=Path, help="a folder for the full reports")
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="module 04 only: that it runs")
    args = parser.parse_args()
    pages = dict(list(PAGES.items())[:1]) if args.smoke else PAGES
    with tempfile.TemporaryDirectory(prefix="bench-lighthouse-") as temp:
        site = site_or_build(args.site, Path(temp), args.engine)
        reports = args.keep or Path(temp) / "reports"
        reports.mkdir(parents=True, exist_ok=True)  # Lighthouse does not create it
        results = {}
        with serve(site) as base:
            for name, path in pages.items():
                report = reports / f"{name.replace(' ', '-')}.json"
                results[name] = lighthouse(base + path, report)
        # The same page as plain mkdocs-material, same theme settings: what the theme and this
        # machine score on their own (simulated throttling scales with the machine's speed).
        plain = build_plain_baseline(site, Path(temp) / "plain", args.engine)
        with serve(plain) as base:
            results["plain 04"] = lighthouse(base + MODULE_04, reports / "plain-04.json")
        if args.keep is None:
            shutil.rmtree(reports, ignore_errors=True)
    if args.summary:
        for name, result in results.items():
            for category, target in TARGETS.items():
                score = result["categories"][category]["score"]
                label = f"lighthouse {category}, {name}"
                print(f"{label}\t{score:.2f}\t{target:.2f}\t{score / target:.2f}")
        return 0
    print(f"{'page':12}" + "".join(f"{category:>16}" for category in TARGETS))
    for name, result in results.items():
        scores = [result["categories"][category]["score"] for category in TARGETS]
        print(f"{name:12}" + "".join(f"{score:>16.2f}" for score in scores))
    print(f"{'target':12}" + "".join(f"{target:>16.2f}" for target in TARGETS.values()))
    for name, result in results.items():
        for category in TARGETS:
            missed = failed_audits(result, category)
            if missed:
                print(f"{name} · {category}: {', '.join(missed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
