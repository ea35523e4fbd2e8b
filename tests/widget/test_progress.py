"""The first Run's progress bar, in Debian's Chromium: over a link throttled to 1.5 Mbit/s
(Chromium's own network emulation), the bar counts the bytes of the files that Run needs
against their total, says "Starting Python…" once they are in, and goes when the result is
drawn; a second press on Run starts no second download; axe finds nothing while it shows."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from playwright.sync_api import expect

from support import MODULE_04, SAVE_DATA_SCRIPT
from support.gates import describe_violations, run_axe

pytestmark = pytest.mark.browser

ASSETS = "assets/trafikist"
LINK = 1.5e6 / 8  # bytes a second: 1.5 Mbit/s
COLD_MS = 180_000
RUN_FILE = re.compile(r"/pyodide/|/model/[^/]+\.(snapshot|whl)$|/model/pyodide-lock\.json$")
LABEL = re.compile(r"^Loading Python and the model · \d+\.\d of \d+\.\d MB$")

# Every change to the bar, its label and the status line, recorded in the page as it happens.
RECORD = """() => {
  window.__tkBar = [];
  const form = document.querySelector(".tk-duties .tk-controls");
  new MutationObserver(() => {
    const bar = form.querySelector("progress");
    window.__tkBar.push({
      value: bar && bar.hasAttribute("value") ? Number(bar.getAttribute("value")) : null,
      max: bar ? Number(bar.getAttribute("max")) : null,
      label: form.querySelector(".tk-live__progress label")?.textContent ?? null,
      status: form.querySelector(".tk-live__status").textContent,
    });
  }).observe(form, { subtree: true, childList: true, attributes: true, characterData: true });
}"""


def run_files(site: Path, boot: str) -> dict[str, int]:
    """The files a first Run fetches, from the built site's folder, and their sizes."""
    pyodide = [f"pyodide/{name}" for name in ("pyodide.mjs", "pyodide.asm.mjs")]
    pyodide += ["pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip"]
    model = site / ASSETS / "model"
    wheel = next(model.glob("*.whl")).relative_to(site / ASSETS).as_posix()
    if boot == "snapshot":
        snapshot = next(model.glob("*.snapshot")).relative_to(site / ASSETS).as_posix()
        names = [*pyodide, "pyodide/pyodide-lock.json", snapshot, wheel]
    else:
        names = [*pyodide, "model/pyodide-lock.json", wheel]
    return {name: (site / ASSETS / name).stat().st_size for name in names}


def throttle(cdp, bytes_per_second: float) -> None:
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 40 if bytes_per_second > 0 else 0,
            "downloadThroughput": bytes_per_second,
            "uploadThroughput": bytes_per_second,
        },
    )


def test_over_a_slow_link_the_bar_counts_the_bytes_then_python_starts(
    site_url: str, built_site: Path, browser
) -> None:
    # Service workers blocked: the throttle applies to the page and its workers, and a service
    # worker's own fetches would go round it (the offline tests cover the worker).
    context = browser.new_context(service_workers="block")
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.goto(site_url + MODULE_04)
    page.evaluate(RECORD)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    throttle(cdp, LINK)
    total = sum(run_files(built_site, "snapshot").values())

    page.locator(".tk-live__run").click()
    bar = page.get_by_role("progressbar", name=LABEL)  # its label is its accessible name
    expect(bar).to_be_visible(timeout=30_000)
    seen = []
    for _ in range(8):
        page.wait_for_timeout(500)
        seen.append(float(bar.get_attribute("value") or 0))
    assert seen == sorted(seen) and seen[-1] > seen[0] > 0, seen
    assert seen[-1] < total / 2, "at 1.5 Mbit/s the download takes over a minute"
    assert float(bar.get_attribute("max") or 0) == total
    assert describe_violations(run_axe(page, ".tk-duties")) == []
    # Pressed again, by pointer and by keyboard, while the files come: nothing new starts.
    run = page.locator(".tk-live__run")
    assert run.get_attribute("aria-disabled") == "true"
    run.click(force=True)
    run.focus()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.classList.contains('tk-live__run')")

    throttle(cdp, -1)  # the rest at full speed: the test need not wait a minute
    expect(page.locator(".tk-live__status")).to_contain_text("Drawn", timeout=COLD_MS)
    records = page.evaluate("window.__tkBar")
    values = [r["value"] for r in records if r["value"] is not None]
    assert values == sorted(values), "the bar went backwards"
    last = next(r for r in reversed(records) if r["value"] is not None)
    assert last["value"] == last["max"] == total, last
    assert last["label"] == "Starting Python…"
    assert "Starting Python…" in [r["status"] for r in records]
    assert page.locator(".tk-live progress").count() == 0, "the bar stays after the result"
    assert run.get_attribute("aria-disabled") is None
    fetched = Counter(url.removeprefix(f"{site_url}{ASSETS}/") for url in requests)
    files = {name: count for name, count in fetched.items() if RUN_FILE.search("/" + name)}
    assert files == dict.fromkeys(run_files(built_site, "snapshot"), 1), files
    assert page.locator(".tk-duties").get_attribute("data-boot") == "snapshot"
    context.close()


def test_a_reader_who_saves_data_sees_the_plain_boots_total(
    site_url: str, built_site: Path, browser
) -> None:
    context = browser.new_context(service_workers="block")
    context.add_init_script(SAVE_DATA_SCRIPT)
    page = context.new_page()
    page.goto(site_url + MODULE_04)
    page.evaluate(RECORD)
    page.locator(".tk-live__run").click()
    expect(page.locator(".tk-live__status")).to_contain_text("Drawn", timeout=COLD_MS)
    last = next(r for r in reversed(page.evaluate("window.__tkBar")) if r["value"] is not None)
    assert last["value"] == last["max"] == sum(run_files(built_site, "lock").values())
    assert page.locator(".tk-duties").get_attribute("data-boot") == "lock"
    context.close()


def test_without_the_bar_nothing_is_counted(site_url: str, browser) -> None:
    """data-progress="off", which the benchmark that prices the bar sets: no bar, no sizes."""
    context = browser.new_context(service_workers="block")
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.goto(site_url + MODULE_04)
    page.evaluate("document.querySelector('.tk-duties').dataset.progress = 'off'")
    page.evaluate(RECORD)
    page.locator(".tk-live__run").click()
    expect(page.locator(".tk-live__status")).to_contain_text("Drawn", timeout=COLD_MS)
    assert [r for r in page.evaluate("window.__tkBar") if r["max"] is not None] == []
    assert not [url for url in requests if url.endswith("/run-files.json")]
    context.close()
