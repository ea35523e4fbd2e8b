"""Reading offline, in Debian's Chromium with the site's service worker (trafikist.core.offline): a
first visit and one Run, then the network off; a rebuild with a changed model; a reader who
never presses Run, and one who saves data."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MODULE_04,
    ROOT,
    SAVE_DATA_SCRIPT,
    SEARCH_INDEX,
    build_env,
    copy_project,
    edit,
    serve,
)
from support.authoring import MODULE as MODULE_SOURCE
from support.authoring import free_port, site_serve
from support.authoring import wait_until as serve_wait
from support.gates import CSP_LISTENER

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DONE = re.compile(r"Drawn \d+ ms after Run|error|stopped|failed")
COLD_MS = 120_000
MODULE_PAGE = MODULE_04.removesuffix("index.html")
DIVE_TITLE = "Who moves time today"
RUN_FILE = re.compile(r"/pyodide/|\.snapshot$|\.whl$|/model/pyodide-lock\.json$")
BUILD = re.compile(r"trafikist-precache-([0-9a-f]{16})")


# True once the first duty's trace, opened, shows the call (poll it: the page may reload).
OPEN_THE_TRACE_AND_FIND = """(() => {
  const trace = document.querySelector("#tk-duty-panel-promote details.tk-trace");
  if (trace && !trace.open) trace.open = true;
  return !!trace && trace.textContent.includes("CALL");
})()"""


def build_hash(site: Path) -> str:
    match = BUILD.search((site / "sw.js").read_text(encoding="utf-8"))
    assert match, "sw.js names no cache after the build"
    return match.group(1)


def wait_until(page, expression: str, timeout_s: float = 60) -> None:
    """Poll from here: the page's policy forbids the eval that wait_for_function needs."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        page.wait_for_timeout(50)


def caches(page) -> dict[str, list[str]]:
    """Every cache of the page's origin and the paths of what it holds."""
    return page.evaluate(
        """async () => {
          const found = {};
          for (const name of await caches.keys()) {
            const requests = await (await caches.open(name)).keys();
            found[name] = requests.map((request) => new URL(request.url).pathname);
          }
          return found;
        }"""
    )


def search(page, engine: str, query: str):
    """Type a query in the theme's search, key by key (mkdocs-material reads the query on
    keyup, so a filled-in value alone goes unseen); its results. Zensical's search is a
    button that opens a dialog with a combobox and a list of options (in a shadow root, which
    Playwright's locators pierce)."""
    if engine == "mkdocs":
        box = page.get_by_role("textbox", name="Search")
        results = page.locator(".md-search-result__item")
    else:
        page.locator(".md-search__button").click()
        box = page.get_by_role("combobox", name="Search")
        results = page.get_by_role("listbox", name="Search results").get_by_role("option")
    box.click()
    box.press_sequentially(query)
    expect(results.first).to_be_visible(timeout=60_000)
    return results


def run_another_duty_offline(context, page) -> None:
    """With the network off, the page reloaded: another duty, changed (wire 6), runs from the
    offline copy alone."""
    context.set_offline(True)
    page.reload()
    page.locator("label[for=tk-duty-recover]").click()
    page.locator("#tk-duty-panel-recover .tk-live input[name=wire][value='6']").check()
    run_and_wait(page, "#tk-duty-panel-recover")
    assert page.locator(".tk-duties").get_attribute("data-boot-from") == "cache"


def run_and_wait(page, panel: str = "#tk-duty-panel-promote") -> None:
    page.evaluate("document.querySelector('.tk-live__status').textContent = ''")
    page.locator(f"{panel} .tk-live__run").click()
    expect(page.locator(".tk-live__status")).to_contain_text(DONE, timeout=COLD_MS)
    assert "Drawn" in page.locator(".tk-live__status").inner_text()


def test_after_one_visit_and_one_run_the_course_opens_searches_and_runs_offline(
    site_url: str, engine: str, built_site: Path, browser
) -> None:
    context = browser.new_context()
    context.add_init_script(CSP_LISTENER)  # the page's policy holds with the worker too
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site_url + MODULE_04)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    run_and_wait(page)
    section = page.locator(".tk-duties")
    assert section.get_attribute("data-boot") == "snapshot"
    assert section.get_attribute("data-boot-from") == "network"
    build = build_hash(built_site)
    assert all(build in name for name in caches(page)), caches(page)

    context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_contain_text("Blocking, timers and the bus")
    # A dive this reader never opened: the worker precached every page.
    assert page.evaluate("window.__tkCspViolations") == []
    page.locator(".tk-dive-card a", has_text=DIVE_TITLE).first.click()
    expect(page.locator("h1")).to_contain_text(DIVE_TITLE)
    # The search: the theme's worker reads the precached index.
    results = search(page, engine, "BLPOP")
    assert results.count() >= 2
    page.keyboard.press("Escape")
    # Back to the module, a duty picked, a control changed, Run: Pyodide from the cache.
    page.go_back()
    expect(page.locator("h1")).to_contain_text("Blocking, timers and the bus")
    # A duty this reader never picked: its run's own page was precached (model/runs/), so its
    # drawing and its trace's rows come offline.
    precached = [path for paths in caches(page).values() for path in paths]
    assert any("/model/runs/" in path for path in precached), precached
    page.locator("label[for=tk-duty-count-failures]").click()
    other = page.locator("#tk-duty-panel-count-failures")
    expect(other.locator("svg.tk-tl")).to_be_visible()
    other.locator("details.tk-trace summary").click()
    expect(other.locator(".tk-trace__table tbody tr").first).to_be_visible()
    page.locator("label[for=tk-duty-recover]").click()
    live = page.locator("#tk-duty-panel-recover .tk-live")
    live.locator("input[name=wire][value='6']").check()
    run_and_wait(page, "#tk-duty-panel-recover")
    assert section.get_attribute("data-boot") == "snapshot"
    assert section.get_attribute("data-boot-from") == "cache"
    run = page.locator("#tk-duty-panel-recover .tk-run")
    expect(run.locator(".tk-run__state")).to_have_text("live run, changed")
    commands = run.locator("table.tk-trace__table tbody td:nth-child(4)").all_text_contents()
    assert commands and all(command.startswith("EMQ.STALLED.CHECK") for command in commands)
    assert page.evaluate("window.__tkCspViolations") == []
    assert all(url.startswith(site_url) for url in requests), [
        url for url in requests if not url.startswith(site_url)
    ]
    assert errors == []
    context.close()


def test_after_a_first_visit_how_we_know_shows_a_pages_evidence_offline(
    site_url: str, browser
) -> None:
    """The switch's script, the page's evidence file and its stylesheet load only when the
    switch is first on (issue 26): the worker precached them, so a page the reader never
    opened shows its marks, drawn, and a mark's evidence with the network off."""
    context = browser.new_context()
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site_url + MODULE_04)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    page.goto(site_url + MODULE_04.replace("index.html", "01-who-moves-time-today/index.html"))
    expect(page.locator("h1")).to_contain_text(DIVE_TITLE)
    switch = page.locator(".tk-evswitch button")
    switch.click()
    status = page.locator(".tk-evswitch__status")
    expect(status).to_contain_text("checked sentences", timeout=20_000)
    assert "could not be loaded" not in status.inner_text()
    mark = page.locator("button.tk-mark#tk-m1")
    expect(mark).to_be_visible()
    # Drawn by its stylesheet (evidence/shown.css): a raised number, as a footnote's.
    assert mark.evaluate("(m) => getComputedStyle(m).verticalAlign") == "super"
    mark.focus()
    page.keyboard.press("Enter")
    lines = page.locator("#tk-evpop .tk-evidence__lines > li")
    expect(lines.first).to_be_visible()
    assert page.evaluate("window.__tkCspViolations") == []
    assert errors == []
    context.close()


def test_a_reader_who_never_presses_run_downloads_none_of_its_files(
    site_url: str, engine: str, browser
) -> None:
    context = browser.new_context()
    context.add_init_script(
        """window.__tkRegisteredAfterLoad = null;
        addEventListener("load", () => { window.__tkLoaded = true; });
        const register = ServiceWorkerContainer.prototype.register;
        ServiceWorkerContainer.prototype.register = function (...args) {
          window.__tkRegisteredAfterLoad = window.__tkLoaded === true;
          return register.apply(this, args);
        };"""
    )
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.goto(site_url + MODULE_04)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    assert page.evaluate("window.__tkRegisteredAfterLoad") is True
    page.wait_for_load_state("networkidle")
    assert [url for url in requests if RUN_FILE.search(url)] == []
    found = caches(page)
    precache = next(paths for name, paths in found.items() if "-precache-v2-" in name)
    assert not [path for path in precache if RUN_FILE.search(path)]
    assert any(path.endswith("/" + SEARCH_INDEX[engine]) for path in precache)
    assert not [name for name in found if "-runtime-" in name], found
    context.close()


def test_the_worker_registers_only_once_a_run_that_is_loading_is_drawn(
    site_url: str, browser, tmp_path: Path
) -> None:
    """A Run pressed as the page loads: the worker's precache must not compete with it, and
    the worker still keeps what that Run fetched. A reader's own browser profile, whose HTTP
    cache is on disk: a fresh context's in-memory cache holds none of the big files."""
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile", executable_path=CHROMIUM, args=CHROMIUM_ARGS
    )
    context.add_init_script(
        """window.__tkRegisteredAt = null; window.__tkDrawnAt = null;
        addEventListener("DOMContentLoaded", () => {
          document.querySelector(".tk-duties")
            .addEventListener("tk:drawn", () => { window.__tkDrawnAt = performance.now(); });
        });
        const register = ServiceWorkerContainer.prototype.register;
        ServiceWorkerContainer.prototype.register = function (...args) {
          window.__tkRegisteredAt = performance.now();
          return register.apply(this, args);
        };"""
    )
    page = context.new_page()
    page.goto(site_url + MODULE_04, wait_until="load")
    run_and_wait(page)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    registered, drawn = page.evaluate("[window.__tkRegisteredAt, window.__tkDrawnAt]")
    assert drawn is not None and registered > drawn, (registered, drawn)
    # That Run's files went past the worker; once it controls the page it keeps them from the
    # browser's HTTP cache, so this visit runs offline too.
    section = page.locator(".tk-duties")
    assert section.get_attribute("data-boot-from") == "network"
    wait_until(
        page,
        """caches.keys().then(async (names) => {
          const runtime = names.filter((name) => name.includes("-runtime-"));
          if (!runtime.length) return false;
          const kept = (await (await caches.open(runtime[0])).keys()).map((r) => r.url);
          return kept.some((url) => url.endsWith(".snapshot"))
            && kept.some((url) => url.endsWith("pyodide.asm.wasm"));
        })""",
    )
    run_another_duty_offline(context, page)
    context.close()


def test_a_run_pressed_at_once_in_a_private_window_is_kept_offline(site_url: str, browser) -> None:
    """A fresh context keeps its HTTP cache in memory, as a private window does, and drops the
    big files (the runtime's WebAssembly, the memory snapshot). A Run pressed before the worker
    controls the page: once it does, the page asks for that Run's files through it, from the
    network when the HTTP cache has lost them, so the reload offline still runs; and nothing
    of that logs an error (no `only-if-cached` miss, ERR_FAILED)."""
    context = browser.new_context()
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.goto(site_url + MODULE_04, wait_until="load")
    run_and_wait(page)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    section = page.locator(".tk-duties")
    assert section.get_attribute("data-boot-from") == "network"
    wait_until(page, "document.querySelector('.tk-duties').hasAttribute('data-kept-offline')")
    kept = [path for name, paths in caches(page).items() if "-runtime-" in name for path in paths]
    for name in ("pyodide.asm.wasm", "python_stdlib.zip", ".snapshot", ".whl"):
        assert any(path.endswith(name) for path in kept), (name, kept)
    assert console_errors == [], console_errors

    run_another_duty_offline(context, page)
    context.close()


def test_a_first_visit_logs_no_error(site_url: str, browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.goto(site_url + MODULE_04)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    assert console_errors == [], console_errors
    context.close()


def test_a_reader_who_saves_data_gets_no_cached_run_files(site_url: str, browser) -> None:
    context = browser.new_context()
    context.add_init_script(SAVE_DATA_SCRIPT)
    page = context.new_page()
    page.goto(site_url + MODULE_04)
    wait_until(page, "navigator.serviceWorker.controller !== null")
    run_and_wait(page)
    assert page.locator(".tk-duties").get_attribute("data-boot") == "lock"
    kept = [path for paths in caches(page).values() for path in paths if RUN_FILE.search(path)]
    assert kept == []
    context.close()


# -- a new build replaces the old one ----------------------------------------------------------

CHANGED_CALL = "Jobs.promote/3 (rebuilt)"


def build(project: Path, site: Path, package: Path | None = None) -> None:
    """`mkdocs build --strict` of `project` into `site`, importing trafikist from `package`'s
    folder when given (a copy of the sources with a changed model)."""
    env = build_env()
    if package is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(package.parent), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)]
    result = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr


def _found_during_reload(page, expression: str) -> bool:
    """The expression's answer; False while the page is reloading onto the new build (the
    new worker's takeover reloads it, which ends the page's script context mid-question)."""
    try:
        return bool(page.evaluate(expression))
    except PlaywrightError as error:
        if "Execution context was destroyed" not in str(error):
            raise
        return False


def test_a_rebuild_with_a_changed_model_replaces_the_cache_and_the_new_model_runs(
    tmp_path: Path, browser
) -> None:
    project = copy_project(tmp_path / "project")
    site = project / "site"
    build(project, site)
    first = build_hash(site)
    with serve(site) as base:
        context = browser.new_context()
        page = context.new_page()
        page.goto(base + MODULE_04)
        wait_until(page, "navigator.serviceWorker.controller !== null")
        run_and_wait(page)
        old = caches(page)
        assert any("-runtime-" in name for name in old), old
        run = page.locator("#tk-duty-panel-promote .tk-run")
        assert CHANGED_CALL not in (run.get_attribute("data-trace") or "")

        # The same site, rebuilt with a model whose promotion reports another call.
        package = shutil.copytree(ROOT / "src" / "trafikist", tmp_path / "src" / "trafikist")
        edit(
            package / "model" / "echomq.py",
            'return Call("Jobs.promote/3", ("EVALSHA"',
            f'return Call("{CHANGED_CALL}", ("EVALSHA"',
        )
        build(project, site, package)
        second = build_hash(site)
        assert second != first

        # The next visit: the new worker takes over, the page reloads onto the new build.
        page.goto(base + MODULE_04)
        # The call is in the trace's rows, which come from the run's own page once the trace
        # is open: opened on whichever build the page is, until the page is the new one's.
        deadline = time.monotonic() + 60
        while not _found_during_reload(page, OPEN_THE_TRACE_AND_FIND.replace("CALL", CHANGED_CALL)):
            assert time.monotonic() < deadline, "the page never showed the rebuilt model's trace"
            page.wait_for_timeout(200)
        only_new = f"caches.keys().then((names) => names.every((n) => n.includes('{second}')))"
        wait_until(page, only_new)
        run_and_wait(page)
        assert CHANGED_CALL in (run.get_attribute("data-trace") or "")
        assert run.locator(".tk-run__state").inner_text() == "live run"
        new = caches(page)
        assert not [name for name in new if first in name], new
        runtime = next(paths for name, paths in new.items() if "-runtime-" in name)
        snapshot = next(path for path in runtime if path.endswith(".snapshot"))
        assert (site / snapshot.lstrip("/")).is_file(), f"{snapshot} is not the new build's"
        context.close()


# -- the authors' preview ----------------------------------------------------------------------


def test_the_preview_replaces_a_worker_that_a_built_site_left_at_its_address(
    tmp_path: Path, engine: str, built_site: Path, browser
) -> None:
    """A built site served at 127.0.0.1:PORT leaves its worker and caches in the browser; a
    later preview at the same address (`mkdocs serve`, `trafikist serve --engine zensical`)
    must show the preview, not that cache."""
    port = free_port()
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(built_site))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    built = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=built.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{port}/"
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(base + MODULE_PAGE)
        wait_until(page, "navigator.serviceWorker.controller !== null")
    finally:
        built.shutdown()
        built.server_close()

    project = copy_project(tmp_path / "project")
    # A page of the readers' site (the authors' pages of docs/ are the preview's alone).
    marker = "The module answers and returns, in the preview only"
    edit(project / MODULE_SOURCE, "## The module answers and returns\n", f"## {marker}\n")
    with site_serve(engine, project, port) as (served, _):
        serve_wait(served + MODULE_PAGE, lambda text: marker in text)
        page.goto(base + MODULE_PAGE)  # the old worker answers first, from its cache
        expect(page.locator("article")).to_contain_text(marker, timeout=60_000)
        wait_until(page, "navigator.serviceWorker.getRegistrations().then((r) => !r.length)")
    context.close()
