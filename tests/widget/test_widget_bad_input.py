"""No bad input makes the widget hang, download for nothing or say nothing, in Debian's Chromium
(issue 20): a console command past the run's time limit is stopped like a Run; a shared URL's
wrong values are each named in the run note; a form that cannot run downloads nothing; a boot
that cannot fetch Python's files says so at once, and the next Run tries again."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from support import MODULE_04

pytestmark = pytest.mark.browser

DONE = re.compile(r"Drawn \d+ ms after Run|error|stopped|failed|could not")
COLD_MS = 120_000
# What a Run fetches that the page itself does not: Pyodide, the model, the widget's worker.
RUN_FILE = re.compile(r"/pyodide/|/model/[^/]+\.(snapshot|whl)$|/model/pyodide-lock\.json$")


def open_page(browser, base: str, query: str = ""):
    """A fresh context, its page on module 04 (with `query`), and every URL it requested."""
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(base + MODULE_04 + query)
    return context, page, requests


def status(page):
    return page.locator(".tk-duties .tk-live__status")


def press_run(page, expected: str | re.Pattern[str] = "Drawn") -> str:
    page.evaluate("document.querySelector('.tk-live__status').textContent = ''")
    page.locator(".tk-live__run").click()
    expect(status(page)).to_contain_text(DONE, timeout=COLD_MS)
    text = status(page).inner_text()
    assert re.search(expected, text), text
    return text


def run_files(requests: list[str]) -> list[str]:
    return [url for url in requests if RUN_FILE.search(url) or url.endswith("/worker.mjs")]


# -- the console keeps the run's time limit ---------------------------------------------------

# In the page: when the last console command was sent, and when its answer came.
TIME_CONSOLE = """() => {
  const out = document.querySelector(".tk-console__out");
  document.querySelector(".tk-console").addEventListener("submit", () => {
    window.__tkSent = performance.now(); window.__tkAnswered = null;
  }, true);
  new MutationObserver(() => { window.__tkAnswered = performance.now(); })
    .observe(out, { childList: true, characterData: true, subtree: true });
}"""


def test_a_console_command_past_the_time_limit_is_stopped_and_the_next_one_works(
    site_url: str, browser
) -> None:
    """A list of 300,000 items, then a ZADD of 40,000 members (0.2 s on a quiet machine to over
    two seconds under load, in Pyodide: each member goes into a sorted list) under a limit of a
    twentieth of a second, well below its quickest time, so that the stop does not depend on the
    machine's speed (at 20,000 members and 0.2 s it finished on a quiet machine): the page ends
    the worker at the limit and says so in the console; the next command gets a new worker,
    which finds the server as the last Run left it, and a Run works after."""
    context, page, _ = open_page(browser, site_url)
    press_run(page)
    box = page.get_by_role("textbox", name=re.compile("^Console · send a command"))
    output = page.locator(".tk-console__out")

    def send(line: str, expected: str, timeout: float = 30_000) -> None:
        page.evaluate("document.querySelector('.tk-console__out').textContent = ''")
        box.fill(line)
        box.press("Enter")
        expect(output).to_contain_text(expected, timeout=timeout)

    items = " ".join(["x"] * 100_000)
    for count in (100_000, 200_000, 300_000):
        send(f"RPUSH big {items}", f"(integer) {count}")
    page.evaluate("document.querySelector('.tk-duties').dataset.timeLimit = '0.05'")
    page.evaluate(TIME_CONSOLE)
    members = " ".join(f"{number} m{number}" for number in range(40_000))
    send(
        f"ZADD slow {members}",
        "(error) The command went past its time limit of 0.05 s and was stopped.",
        timeout=COLD_MS,
    )
    sent, answered = page.evaluate("[window.__tkSent, window.__tkAnswered]")
    waited = (answered - sent) / 1000
    print(f"\nZADD of 40,000 members stopped {waited:.2f} s after it was sent (limit 0.05 s)")
    assert 0.045 < waited < 2.5, waited
    assert "(integer) 40000" not in output.inner_text()

    page.evaluate("document.querySelector('.tk-duties').dataset.timeLimit = '10'")
    send("LLEN big", "(integer) 0", timeout=COLD_MS)  # a new worker: the last Run's server
    send("ZCARD q:schedule", "(integer) 0")
    press_run(page)
    context.close()


def test_a_long_reply_is_cut_and_says_so_and_the_next_reply_comes_at_once(
    site_url: str, browser
) -> None:
    """LRANGE over 300,000 items would print millions of characters (25.7 million took 22 s,
    and the next PING 6.4 s): the console shows the reply's first 20,000 characters and a line
    that says it was cut, and the next command's reply follows at once."""
    context, page, _ = open_page(browser, site_url)
    press_run(page)
    box = page.get_by_role("textbox", name=re.compile("^Console · send a command"))
    output = page.locator(".tk-console__out")
    items = " ".join(["x"] * 100_000)
    for count in (100_000, 200_000, 300_000):
        box.fill(f"RPUSH big {items}")
        box.press("Enter")
        expect(output).to_contain_text(f"(integer) {count}", timeout=COLD_MS)
    page.evaluate(TIME_CONSOLE)
    box.fill("LRANGE big 0 -1")
    box.press("Enter")
    cut = (
        "(cut: the reply holds 300,000 items; the console shows its first 20,000 characters. "
        "Ask for fewer, such as LRANGE key 0 99.)"
    )
    expect(output).to_contain_text(cut, timeout=COLD_MS)
    shown = output.inner_text()
    reply = shown[shown.index("> LRANGE big 0 -1") :]
    assert len(reply) < 21_000 + len(cut), len(reply)
    assert '1) "x"' in reply
    box.fill("PING")
    box.press("Enter")
    expect(output).to_contain_text("> PING\nPONG", timeout=10_000)
    sent, answered = page.evaluate("[window.__tkSent, window.__tkAnswered]")
    waited = (answered - sent) / 1000
    print(f"\nPING after a cut LRANGE of 300,000 items answered in {waited:.3f} s")
    assert waited < 1.0, waited
    context.close()


# -- a shared URL's wrong values --------------------------------------------------------------

MINUS = "\u2212"
DASH = "\u2013"


@pytest.mark.parametrize(
    ("query", "said", "fields"),
    [
        (
            "?duty=promote&beat=-1&batch=99999999",
            [
                f"beat {MINUS}1 s is outside 0.1{DASH}60 s; the default 1 s is used.",
                f"batch 99999999 is outside 1{DASH}1000; the default 100 is used.",
            ],
            {"beat": "1", "batch": "100"},
        ),
        ("?duty=promote&beat=", ["beat has no value; the default 1 s is used."], {"beat": "1"}),
        (
            "?duty=nope&limit=2",
            ["duty 'nope' is not a duty of this page; the first duty is shown."],
            {"limit": "2"},
        ),
        (
            "?duty=promote&send=pump",
            ["send 'pump' is not a process kind (Consumer, Metronome, Pump, Stalled"],
            {},
        ),
        (
            "?duty=promote&baet=2&limit=5",
            ["'baet' is not one of the controls (did you mean beat?); it is left out."],
            {"beat": "1", "limit": "5"},
        ),
        (
            "?beat=-1",
            [f"beat {MINUS}1 s is outside 0.1{DASH}60 s; the default 1 s is used."],
            {"beat": "1"},
        ),
    ],
    ids=[
        "out of range",
        "empty",
        "unknown duty",
        "unknown process kind",
        "unknown key",
        "no duty",
    ],
)
def test_a_shared_urls_wrong_values_are_named_in_the_run_note(
    site_url: str, browser, query: str, said: list[str], fields: dict[str, str]
) -> None:
    context, page, requests = open_page(browser, site_url, query)
    expect(status(page)).to_contain_text("From this link: ")
    note = status(page).inner_text()
    for sentence in said:
        assert sentence in note, note
    live = page.locator("#tk-duty-panel-promote .tk-live")
    expect(page.locator("#tk-duty-promote")).to_be_checked()
    for name, value in fields.items():
        expect(live.locator(f"input[name={name}]")).to_have_value(value)
    # The link now says what the form holds, and the form can run.
    shared = page.url.split("?", 1)[1]
    assert shared.startswith("duty=promote"), shared
    for wrong in ("nope", "=-1", "pump", "baet", "99999999"):
        assert wrong not in shared, shared
    assert page.evaluate("document.querySelector('.tk-controls').checkValidity()")
    page.wait_for_timeout(300)
    assert run_files(requests) == []
    context.close()


def test_a_shared_url_with_wrong_values_runs_with_the_defaults(site_url: str, browser) -> None:
    context, page, _ = open_page(browser, site_url, "?duty=promote&beat=-1&batch=99999999")
    expect(status(page)).to_contain_text("is outside")
    press_run(page)
    run = page.locator("#tk-duty-panel-promote .tk-run")
    expect(run.locator(".tk-run__state")).to_have_text("live run")
    context.close()


@pytest.mark.parametrize("press", ["pointer", "keyboard"])
def test_a_run_on_an_invalid_form_shows_its_message_and_downloads_nothing(
    site_url: str, browser, press: str
) -> None:
    context, page, requests = open_page(browser, site_url)
    beat = page.locator("#tk-duty-panel-promote input[name=beat]")
    beat.fill("-1")
    run = page.locator(".tk-live__run")
    if press == "pointer":
        run.click()
    else:
        # Enter at once: whether the widget's code has arrived or not (the test below holds
        # it back), the press says why.
        run.focus()
        page.keyboard.press("Enter")
    message = beat.evaluate("(field) => field.validationMessage")
    assert message, "the browser found nothing wrong with the field"
    expect(status(page)).to_have_text(f"Not run: beat, seconds: {message}")
    expect(status(page)).to_have_class(re.compile("tk-live__status--error"))
    page.wait_for_timeout(1500)  # a worker started by the press would be fetching by now
    assert run_files(requests) == []
    assert page.locator(".tk-duties").get_attribute("aria-busy") is None
    context.close()


@pytest.mark.parametrize("press", ["pointer", "keyboard"])
def test_an_invalid_form_run_before_the_widgets_code_arrives_still_says_why(
    site_url: str, browser, press: str
) -> None:
    """The widget's code (widget.mjs) comes on the reader's first move in the widget. A Run on
    an invalid form pressed before it arrives (a slow network, a busy machine; the focus on Run
    and Enter at once) is held like any early Run, and once the code is there the status line
    says why, as for a later press. widget.mjs is held back here until after the press, so the
    race is always lost (service workers blocked: they would serve it past the route)."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url + MODULE_04)
    held = []
    page.route("**/duty/widget.mjs", lambda route: held.append(route))
    beat = page.locator("#tk-duty-panel-promote input[name=beat]")
    beat.fill("-1")
    run = page.locator(".tk-live__run")
    if press == "pointer":
        run.click()
    else:
        run.focus()
        page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    assert len(held) == 1, "the press did not ask for the widget's code"
    expect(status(page)).to_have_text("")  # nothing has said it yet
    held[0].continue_()
    message = beat.evaluate("(field) => field.validationMessage")
    assert message, "the browser found nothing wrong with the field"
    expect(status(page)).to_have_text(f"Not run: beat, seconds: {message}", timeout=10_000)
    expect(status(page)).to_have_class(re.compile("tk-live__status--error"))
    page.wait_for_timeout(1500)  # a worker started by the press would be fetching by now
    assert run_files(requests) == []
    assert page.locator(".tk-duties").get_attribute("aria-busy") is None
    context.close()


# -- Python that cannot start ------------------------------------------------------------------


HTML_PAGE = {"status": 200, "body": "<html>Sign in</html>", "content_type": "text/html"}


@pytest.mark.parametrize(
    ("pattern", "answer", "reason"),
    [
        (
            "**/pyodide/pyodide.asm.wasm",
            None,
            "the file pyodide.asm.wasm could not be fetched (offline?)",
        ),
        (
            "**/pyodide/python_stdlib.zip",
            {"status": 404, "body": "gone"},
            "the file python_stdlib.zip could not be fetched (HTTP 404)",
        ),
        ("**/pyodide/pyodide.mjs", None, "the file pyodide.mjs could not be fetched (offline?)"),
        (
            "**/pyodide/pyodide.asm.mjs",
            {"status": 404, "body": "gone"},
            "the file pyodide.asm.mjs could not be fetched (HTTP 404)",
        ),
        # A captive portal's page instead of the file, and a server that labels WebAssembly
        # as something else: Pyodide only logs a warning and never settles.
        (
            "**/model/*.whl",
            HTML_PAGE,
            "the file {wheel} is not the site's file (it came as text/html)",
        ),
        (
            "**/pyodide/pyodide.asm.wasm",
            {"status": 200, "body": b"\0asm", "content_type": "application/octet-stream"},
            "the file pyodide.asm.wasm could not be used (Incorrect response MIME type. "
            "Expected 'application/wasm')",
        ),
    ],
    ids=[
        "the runtime's WebAssembly, offline",
        "the standard library, gone",
        "Pyodide's loader, offline",
        "Pyodide's runtime script, gone",
        "the model's wheel, a portal's page",
        "the runtime's WebAssembly, mislabelled",
    ],
)
def test_a_boot_that_cannot_fetch_its_files_says_so_at_once_and_a_later_run_retries(
    site_url: str, browser, pattern: str, answer: dict | None, reason: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + MODULE_04)
    reason = reason.format(wheel=page.locator(".tk-duties").get_attribute("data-wheel"))

    def fail(route) -> None:
        if answer is None:
            route.abort("internetdisconnected")
        else:
            route.fulfill(**answer)

    context.route(pattern, fail)
    started = time.monotonic()
    text = press_run(page, "could not start")
    waited = time.monotonic() - started
    print(f"\n{reason}: told {waited:.2f} s after Run")
    assert text == f"Python could not start: {reason}. A new Run tries again.", text
    assert waited < 15, "the reader waited for the load's time limit"
    expect(status(page)).to_have_class(re.compile("tk-live__status--error"))
    assert page.locator(".tk-live progress").count() == 0
    assert page.locator(".tk-live__run").get_attribute("aria-disabled") is None

    context.unroute(pattern, fail)
    press_run(page)  # a new worker, which fetches the file this time
    context.close()


def wait_for(page, expression: str, timeout_s: float = 60) -> None:
    """Poll from here: the page's policy forbids the eval that wait_for_function needs."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"timed out waiting for {expression}"
        page.wait_for_timeout(50)


@pytest.mark.parametrize(
    ("before", "said"),
    [
        (
            "the page's first move",
            "The widget could not start: its code (widget.mjs) could not be loaded (offline?).",
        ),
        (
            "the widget's code came",
            "Python could not start: its worker (worker.mjs) could not be loaded (offline?).",
        ),
        (
            "the site's worker kept the course",
            "Python could not start: the file pyodide.mjs could not be fetched (offline?).",
        ),
    ],
    ids=["at once", "after the widget's code", "after the site's worker"],
)
def test_a_run_offline_before_its_files_were_kept_says_so_at_once(
    site_url: str, browser, before: str, said: str
) -> None:
    """The network goes before the first Run: at once, with no site worker yet (nothing of
    the widget is in the page but its first script); once the widget's code came (a move in
    the form), or once the site's worker has kept the course but not yet any Run's files.
    The status says what could not be had, and Run works once the network is back."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(site_url + MODULE_04, wait_until="load")
    if before == "the widget's code came":
        # A move in the form loads the widget's code; once it runs, a change is in the URL.
        beat = page.locator("#tk-duty-panel-promote input[name=beat]")
        beat.focus()
        deadline = time.monotonic() + 30
        while "beat=2" not in page.evaluate("location.search"):
            assert time.monotonic() < deadline, "the widget's code never ran"
            beat.fill("2")
            page.wait_for_timeout(100)
    elif before == "the site's worker kept the course":
        wait_for(page, "navigator.serviceWorker.controller !== null")
    context.set_offline(True)
    started = time.monotonic()
    text = press_run(page, "could not")
    waited = time.monotonic() - started
    print(f"\noffline after {before}: told {waited:.2f} s after Run")
    assert text == f"{said} A new Run tries again.", text
    assert waited < 15, "the reader waited for the load's time limit"
    expect(status(page)).to_have_class(re.compile("tk-live__status--error"))
    assert page.locator(".tk-duties").get_attribute("aria-busy") is None
    context.set_offline(False)
    press_run(page)
    context.close()
