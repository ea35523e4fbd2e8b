#!/usr/bin/env python3
"""Benchmark the live duty widget: from the click on Run to the first drawn result.

    .venv/bin/python scripts/bench_widget.py [--runs 10] [--duty promote] [--site DIR] [--summary]
    .venv/bin/python scripts/bench_widget.py --smoke --summary   # one run of each kind: it runs

It builds the site (unless --site names a built one), serves it on 127.0.0.1 and drives Debian's
Chromium, headless:
- cold: a fresh browser context for each run (no HTTP cache, no compiled WebAssembly), open
  module 04, click Run, and time until the result is drawn (the frame after it is in the page);
- warm: on one page that has run once, click Run again, as many times, each after a pause in
  which a reader looks at the result (--pause, 2 s; the page uses it to finish warming up: see
  "rehearse" in widgets/duty/worker.mjs);
- back to back: the same with no pause, each click as soon as the last result is drawn;
- cold, plain boot: the same as cold for a reader whose browser asks to save data, to whom the
  widget does not send the memory snapshot (trafikist.core.widget.snapshot): Pyodide starts the
  plain way, from its lock file, so this row is the widget without the snapshot;
- baseline: Pyodide's own cold `loadPyodide()` in a plain page of the same server, from the same
  npm package, with a fresh context each time (the figure the widget cannot go below).
Times are taken in the page (performance.now) from the click event to the frame after the
`tk:drawn` event. It prints a table of the median and the maximum; with --summary it prints one
line per figure, `name<TAB>figure<TAB>baseline<TAB>ratio`, in seconds (the scripts/bench form).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from pathlib import Path

from support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MODULE_04,
    SAVE_DATA_SCRIPT,
    serve,
    site_or_build,
)

ROOT = Path(__file__).resolve().parents[1]

BASELINE_PAGE = b"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>loadPyodide baseline</title></head><body>
<script type="module" src="baseline.mjs"></script></body></html>"""
BASELINE_SCRIPT = b"""const started = performance.now();
const index = new URL("../assets/trafikist/pyodide/", location.href).href;
const { loadPyodide } = await import(index + "pyodide.mjs");
await loadPyodide({ indexURL: index });
window.__loadMs = performance.now() - started;
"""
# Recorded in the page before it runs: the click on Run, and the frame after the drawing.
TIMING_HOOKS = """
window.__clickAt = null; window.__drawnAt = null;
document.addEventListener("click", (event) => {
  if (event.target.closest(".tk-live__run")) window.__clickAt = performance.now();
}, true);
document.querySelector(".tk-duties").addEventListener("tk:drawn", () => {
  requestAnimationFrame(() => { window.__drawnAt = performance.now(); });
});
"""
COLD_TIMEOUT_MS = 120_000


def serve_site(site: Path) -> contextlib.AbstractContextManager[str]:
    """The built site on a free port of 127.0.0.1, plus the baseline page under /__bench/."""
    return serve(
        site,
        {
            "/__bench/baseline.html": (BASELINE_PAGE, "text/html"),
            "/__bench/baseline.mjs": (BASELINE_SCRIPT, "text/javascript"),
        },
    )


def wait_for(page, expression: str) -> None:
    """Poll from here: wait_for_function would need eval in the page, which its policy forbids
    (page.evaluate goes through the DevTools protocol, which the policy does not govern)."""
    deadline = time.monotonic() + COLD_TIMEOUT_MS / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {expression}")
        page.wait_for_timeout(5)


def click_to_drawn_ms(page, duty: str) -> float:
    page.evaluate("window.__clickAt = null; window.__drawnAt = null")
    page.locator(f"#tk-duty-panel-{duty} .tk-live__run").click()
    wait_for(page, "window.__drawnAt !== null")
    status = page.locator(".tk-live__status").inner_text()
    if "Drawn" not in status:
        raise SystemExit(f"the run did not draw: {status}")
    return page.evaluate("window.__drawnAt - window.__clickAt")


def open_module(browser, base: str, duty: str, save_data: bool = False):
    context = browser.new_context()  # fresh: no HTTP cache, no compiled WebAssembly
    if save_data:
        context.add_init_script(SAVE_DATA_SCRIPT)
    page = context.new_page()
    page.goto(f"{base}{MODULE_04}?duty={duty}", wait_until="load")
    page.evaluate(TIMING_HOOKS)
    return context, page


def warm_runs(browser, base: str, duty: str, runs: int, pause_s: float) -> list[float]:
    """Runs on a page that has run once, each `pause_s` after the last result was drawn."""
    context, page = open_module(browser, base, duty)
    click_to_drawn_ms(page, duty)  # the cold run that makes the page warm
    found = []
    for _ in range(runs):
        page.wait_for_timeout(pause_s * 1000)
        found.append(click_to_drawn_ms(page, duty))
    context.close()
    return found


def measure(site: Path, runs: int, duty: str, pause_s: float) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    found: dict[str, list[float]] = {
        "cold": [],
        "plain_boot": [],
        "warm": [],
        "back_to_back": [],
        "baseline": [],
    }
    with sync_playwright() as playwright, serve_site(site) as base:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--headless"]
        )
        # Interleaved, so a busy moment of the machine weighs on both alike.
        for _ in range(runs):
            context, page = open_module(browser, base, duty)
            found["cold"].append(click_to_drawn_ms(page, duty))
            boot = page.locator(".tk-duties").get_attribute("data-boot")
            context.close()
            if boot != "snapshot":
                raise SystemExit(f"the widget did not start from its memory snapshot ({boot})")
            context, page = open_module(browser, base, duty, save_data=True)
            found["plain_boot"].append(click_to_drawn_ms(page, duty))
            context.close()
            context = browser.new_context()
            page = context.new_page()
            page.goto(f"{base}__bench/baseline.html")
            wait_for(page, "window.__loadMs !== undefined")
            found["baseline"].append(page.evaluate("window.__loadMs"))
            context.close()
        found["warm"] = warm_runs(browser, base, duty, runs, pause_s)
        found["back_to_back"] = warm_runs(browser, base, duty, runs, 0)
        found["version"] = [browser.version]  # type: ignore[list-item]
        browser.close()
    return found


def seconds(ms: float) -> str:
    return f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each kind (at least 10)")
    parser.add_argument("--duty", default="promote", help="the duty whose default run is timed")
    parser.add_argument("--site", type=Path, help="a built site (default: build one now)")
    parser.add_argument(
        "--pause", type=float, default=2.0, help="seconds a reader looks before a warm Run"
    )
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="one run of each: that it runs")
    args = parser.parse_args()
    runs = 1 if args.smoke else max(args.runs, 10)
    with tempfile.TemporaryDirectory(prefix="bench-widget-") as folder:
        site = site_or_build(args.site, Path(folder))
        found = measure(site, runs, args.duty, args.pause)
    version = found.pop("version")[0]
    base = statistics.median(found["baseline"])
    figures = [
        (f"widget_{kind}_{stat}", fn(found[kind]))
        for kind in ("cold", "plain_boot", "warm", "back_to_back")
        for stat, fn in (("median", statistics.median), ("max", max))
    ]
    if args.summary:
        for name, value in figures:
            print(f"{name}\t{value / 1000:.3f}\t{base / 1000:.3f}\t{value / base:.3f}")
        return
    print(f"Widget · module 04 · duty {args.duty} · headless Chromium {version} · {runs} runs each")
    print(f"{'from the click on Run to the first drawn result':52} {'median':>9} {'max':>9}")
    for label, kind in (
        ("cold (fresh context: loads Pyodide and the model)", "cold"),
        ("cold, plain boot (a Save-Data reader: no snapshot)", "plain_boot"),
        (f"warm (second run, {args.pause:g} s after the first)", "warm"),
        ("warm, back to back (no pause)", "back_to_back"),
        ("baseline: Pyodide's own cold loadPyodide()", "baseline"),
    ):
        values = found[kind]
        print(f"{label:52} {seconds(statistics.median(values)):>9} {seconds(max(values)):>9}")
    cold = statistics.median(found["cold"])
    plain = statistics.median(found["plain_boot"])
    print(f"cold median over the baseline median: {seconds(cold - base)} ({cold / base:.2f}x)")
    print(f"cold median over the plain boot's: {cold / plain:.2f}x")


if __name__ == "__main__":
    main()
