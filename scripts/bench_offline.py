#!/usr/bin/env python3
"""Benchmark reading offline and the first Run's progress bar: from the click on Run to the first
drawn result, in Debian's Chromium, headless, on module 04's first duty.

    .venv/bin/python scripts/bench_offline.py [--runs 10] [--throttled-runs 3] [--site DIR]
                                              [--summary] [--smoke]
    .venv/bin/python scripts/bench_offline.py --smoke --summary   # one pair of each, no throttle

It builds the site (unless --site names a built one) and serves it on 127.0.0.1:
- offline: a fresh browser context with the site's service worker; open module 04, wait for
  the worker to control the page, Run (the first Run online: its files come through the
  worker, which keeps them), then the network off (`context.set_offline`), reload, Run again:
  the second visit's Run, from the worker's cache. Baseline: that first Run online, in the same
  context. --runs pairs, each in a new context.
- throttled: a fresh context, the link throttled to 1.5 Mbit/s with Chromium's own network
  emulation (CDP Network.emulateNetworkConditions, 40 ms latency), service workers blocked so
  the throttle covers every request; the first Run with the progress bar, against the same run
  with the bar turned off (the widget's data-progress="off": no bar, no counting). The files are
  about 20 MB, so each run takes about two minutes; --throttled-runs pairs, interleaved.
- main-thread blocking after load: a fresh context, CPU slowed down 4 times (CDP
  Emulation.setCPUThrottlingRate, as Lighthouse's mobile profile does), module 04 loaded and
  left 4 s; the sum over the page's long tasks (Long Tasks API) of their time over 50 ms, with
  the service worker registering and precaching against the same page with service workers
  blocked: what the worker costs the page's main thread. --blocking-runs of each, interleaved.
Times are taken in the page, as in bench_widget.py. It prints a table of the median and the
extremes; with --summary, one line per figure, `name<TAB>figure<TAB>baseline<TAB>ratio`, in
seconds (the scripts/bench form).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench_widget import TIMING_HOOKS, seconds
from support import CHROMIUM, CHROMIUM_ARGS, MODULE_04, serve, site_or_build

ROOT = Path(__file__).resolve().parents[1]

LINK = 1.5e6 / 8  # bytes a second: 1.5 Mbit/s
LATENCY_MS = 40
DUTY = "promote"


def wait_for(page, expression: str, timeout_s: float) -> None:
    """Poll from here: the page's policy forbids the eval that wait_for_function needs."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {expression}")
        page.wait_for_timeout(10)


def timed_run(page, timeout_s: float = 120) -> float:
    """Click Run on a page with the timing hooks; milliseconds to the frame after the drawing."""
    page.evaluate("window.__clickAt = null; window.__drawnAt = null")
    page.locator(f"#tk-duty-panel-{DUTY} .tk-live__run").click()
    wait_for(page, "window.__drawnAt !== null", timeout_s)
    status = page.locator(".tk-live__status").inner_text()
    if "Drawn" not in status:
        raise SystemExit(f"the run did not draw: {status}")
    return page.evaluate("window.__drawnAt - window.__clickAt")


def offline_pair(browser, base: str) -> tuple[float, float]:
    """(first Run online, the second visit's Run with the network off), in one new context."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{base}{MODULE_04}", wait_until="load")
    wait_for(page, "navigator.serviceWorker.controller !== null", 60)
    page.evaluate(TIMING_HOOKS)
    online = timed_run(page)
    page.wait_for_timeout(1000)  # the worker finishes storing what the Run fetched
    context.set_offline(True)
    page.reload(wait_until="load")
    page.evaluate(TIMING_HOOKS)
    offline = timed_run(page)
    source = page.locator(".tk-duties").get_attribute("data-boot-from")
    context.close()
    if source != "cache":
        raise SystemExit(f"the offline Run's files did not come from the cache ({source})")
    return online, offline


# Marks the page when a progress bar appears (to check that "without" had none).
BAR_WATCH = """
window.__tkBarSeen = false;
new MutationObserver(() => {
  if (document.querySelector(".tk-live progress")) window.__tkBarSeen = true;
}).observe(document.body, { subtree: true, childList: true });
"""


def throttled_run(browser, base: str, with_bar: bool) -> float:
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(f"{base}{MODULE_04}", wait_until="load")
    page.evaluate(TIMING_HOOKS + BAR_WATCH)
    if not with_bar:
        page.evaluate("document.querySelector('.tk-duties').dataset.progress = 'off'")
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": LATENCY_MS, "downloadThroughput": LINK,
         "uploadThroughput": LINK},
    )  # fmt: skip
    ms = timed_run(page, timeout_s=900)
    shown = page.evaluate("window.__tkBarSeen === true")
    context.close()
    if shown != with_bar:
        raise SystemExit(f"the progress bar was {'not ' if with_bar else ''}shown")
    return ms


LONG_TASKS = """window.__tkLongTasks = [];
new PerformanceObserver((found) => {
  for (const task of found.getEntries()) window.__tkLongTasks.push(task.duration);
}).observe({ type: "longtask", buffered: true });"""


def blocking_ms(browser, base: str, worker: bool) -> float:
    """The page's main-thread blocking in the 4 s after load, CPU slowed down 4 times."""
    context = browser.new_context(service_workers="allow" if worker else "block")
    context.add_init_script(LONG_TASKS)
    page = context.new_page()
    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(f"{base}{MODULE_04}", wait_until="load")
    page.wait_for_timeout(4000)
    tasks = page.evaluate("window.__tkLongTasks")
    if worker:  # it registers 2 s after load; on a busy machine it takes the page later
        wait_for(page, "navigator.serviceWorker.controller !== null", 60)
    controlled = page.evaluate("navigator.serviceWorker.controller !== null")
    context.close()
    if controlled != worker:
        raise SystemExit(f"the service worker {'did not take' if worker else 'took'} the page")
    return sum(max(0.0, duration - 50) for duration in tasks)


def measure(
    site: Path, runs: int, throttled_runs: int, blocking_runs: int
) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    found: dict[str, list[float]] = {
        "online": [], "offline": [], "bar": [], "no_bar": [], "blocking": [], "no_worker": []
    }  # fmt: skip
    with sync_playwright() as playwright, serve(site) as base:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--headless"]
        )
        for _ in range(runs):
            online, offline = offline_pair(browser, base)
            found["online"].append(online)
            found["offline"].append(offline)
        for _ in range(blocking_runs):
            found["blocking"].append(blocking_ms(browser, base, worker=True))
            found["no_worker"].append(blocking_ms(browser, base, worker=False))
        for _ in range(throttled_runs):  # interleaved: a busy moment weighs on both alike
            for with_bar, kind in ((True, "bar"), (False, "no_bar")):
                found[kind].append(throttled_run(browser, base, with_bar))
        browser.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="offline pairs (at least 5)")
    parser.add_argument(
        "--throttled-runs", type=int, default=3, help="1.5 Mbit/s pairs (0 to skip them)"
    )
    parser.add_argument(
        "--blocking-runs", type=int, default=6, help="main-thread blocking pairs (0 to skip)"
    )
    parser.add_argument("--site", type=Path, help="a built site (default: build one now)")
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument(
        "--smoke", action="store_true", help="one offline and one blocking pair: that it runs"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-offline-") as folder:
        site = site_or_build(args.site, Path(folder))
        sizes = (
            (1, 0, 1)
            if args.smoke
            else (max(args.runs, 5), max(args.throttled_runs, 0), max(args.blocking_runs, 0))
        )
        found = measure(site, *sizes)
    median = {kind: statistics.median(values) for kind, values in found.items() if values}
    rows = [("second visit's Run, network off", "offline", "first Run online", "online")]
    if found["bar"]:
        rows.append(("first Run at 1.5 Mbit/s, with the bar", "bar", "without the bar", "no_bar"))
    if found["blocking"]:
        rows.append(
            ("main-thread blocking after load, 4x CPU", "blocking", "no worker", "no_worker")
        )
    if args.summary:
        for name, kind, _, baseline in rows:
            figure, base = median[kind], median[baseline]
            print(f"{name} (s)\t{figure / 1000:.3f}\t{base / 1000:.3f}\t{figure / base:.3f}")
        return
    print(f"Offline and progress · module 04 · duty {DUTY} · headless Chromium")
    print(f"{"click on Run to drawn result; main-thread blocking":44} {"runs":>5} {"median":>9}"
          f" {'min':>9} {'max':>9}")  # fmt: skip
    labels = {
        "online": "first Run online (through the worker)",
        "offline": "second visit, network off (the cache)",
        "bar": "first Run at 1.5 Mbit/s, with the bar",
        "no_bar": "first Run at 1.5 Mbit/s, without it",
        "blocking": "blocking after load, 4x CPU, the worker",
        "no_worker": "blocking after load, 4x CPU, no worker",
    }
    for kind, label in labels.items():
        values = found[kind]
        if values:
            print(f"{label:44} {len(values):>5} {seconds(median[kind]):>9}"
                  f" {seconds(min(values)):>9} {seconds(max(values)):>9}")  # fmt: skip
    for name, kind, base_name, baseline in rows:
        print(f"{name} over {base_name}: {median[kind] / median[baseline]:.3f}x")


if __name__ == "__main__":
    main()
