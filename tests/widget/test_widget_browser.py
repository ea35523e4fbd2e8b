"""Pick a duty, live, in Debian's Chromium: the built site served on 127.0.0.1, under the page's
own Content-Security-Policy. The model runs in Pyodide in a module worker."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from support import MODULE_04, SAVE_DATA_SCRIPT
from support.duties import show_every_run
from trafikist.model_view.live import canonical_json

pytestmark = pytest.mark.browser

ASSETS = "assets/trafikist"
HOSTILE = "<img src=x onerror=alert(1)>"
DONE = re.compile(r"Drawn \d+ ms after Run|error|stopped|failed")
# A cold run loads Pyodide (about 12 MB) and compiles it: generous on a busy 2-core machine.
COLD_MS = 120_000
# The drawing marks its figure and trace for the search indexer; Zensical drops the mark from
# the pages it writes once its index is made, so the page's baked copy may lack it. It is no
# part of what the reader sees, and the comparison leaves it out.
SEARCH_MARK = re.compile(r' data-search-exclude(="")?')


def as_seen(markup: str) -> str:
    return SEARCH_MARK.sub("", markup)


def open_page(browser, base: str, query: str = ""):
    """A fresh context (no cache), its page on module 04, and every URL the page requested."""
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base + MODULE_04 + query)
    return context, page, requests, errors


def status(page):
    return page.locator(".tk-duties .tk-live__status")


def run_and_wait(page, expected: re.Pattern[str] | str = "Drawn") -> str:
    # The last run's words would satisfy the wait at once: clear them first.
    page.evaluate("document.querySelector('.tk-live__status').textContent = ''")
    page.locator(".tk-live__run").click()
    expect(status(page)).to_contain_text(DONE, timeout=COLD_MS)
    text = status(page).inner_text()
    assert re.search(expected, text), text
    return text


def pyodide_requests(requests: list[str]) -> list[str]:
    # The baked runs' own pages (model/runs/) are the page's, not the model's.
    return [
        url
        for url in requests
        if "/pyodide/" in url or ("/model/" in url and "/model/runs/" not in url)
    ]


def test_pick_a_duty_change_a_control_run_and_read_the_result(site_url: str, browser) -> None:
    """Keyboard only: pick the duty, switch the wire, Run; the timeline and the trace show the
    verb; nothing of Pyodide loads before Run, and nothing leaves the site's origin."""
    context, page, requests, errors = open_page(browser, site_url)
    page.locator("#tk-duty-promote").focus()
    page.keyboard.press("ArrowRight")  # radios: the next duty, recover expired leases
    recover = page.locator("#tk-duty-panel-recover")
    expect(recover).to_be_visible()
    live = recover.locator(".tk-live")
    expect(live).to_be_visible()  # widget.mjs moved the controls under the chosen duty
    live.locator("input[name=wire][value='6']").focus()
    page.keyboard.press("Space")
    # page.url follows history.replaceState a moment later: wait for it.
    expect(page).to_have_url(re.compile(r"\?duty=recover&wire=6$"))
    expect(live.locator(".tk-live__changed")).to_have_text("Changed from the default: wire: 6.")
    assert pyodide_requests(requests) == [], "Pyodide was fetched before the first Run"

    live.locator(".tk-live__run").focus()
    page.keyboard.press("Enter")
    expect(status(page)).to_contain_text(DONE, timeout=COLD_MS)
    assert "Drawn" in status(page).inner_text(), status(page).inner_text()
    assert status(page).get_attribute("role") == "status"

    result = recover.locator(".tk-run__result")
    assert page.evaluate("document.activeElement.classList.contains('tk-run__result')")
    expect(recover.locator(".tk-run__state")).to_have_text("live run, changed")
    expect(result.locator("svg.tk-tl[role=img]")).to_be_visible()
    assert result.locator("svg.tk-tl path.tk-tl__cmd").count() >= 1
    commands = result.locator("table.tk-trace__table tbody td:nth-child(4)").all_text_contents()
    assert commands and all(c.startswith("EMQ.STALLED.CHECK 3 q:active") for c in commands)
    replies = result.locator("table.tk-trace__table tbody td:nth-child(5)").all_text_contents()
    assert "2 items: [1, 0]" in [reply.strip() for reply in replies]  # [recovered, dead]

    fetched = pyodide_requests(requests)
    assert any(url.endswith("/pyodide/pyodide.asm.wasm") for url in fetched)
    assert any(url.endswith(".whl") for url in fetched)
    # Pyodide came from the build's memory snapshot, so the model's lock file was not needed.
    assert page.locator(".tk-duties").get_attribute("data-boot") == "snapshot"
    assert any(url.endswith(".snapshot") for url in fetched)
    assert not any(url.endswith("/model/pyodide-lock.json") for url in fetched)
    assert all(url.startswith(site_url) for url in requests), [
        url for url in requests if not url.startswith(site_url)
    ]
    assert errors == []
    context.close()


@pytest.fixture(scope="module")
def ran_page(site_url: str, browser):
    """One page that has run once (its Pyodide stays warm for the next runs), and the baked
    result of each duty as the browser read it before that run."""
    context, page, _, errors = open_page(browser, site_url)
    # Each duty's run and its trace's rows as the page shows them once the reader has picked
    # the duty and opened its trace (they come from the run's own page), the trace closed again.
    show_every_run(page)
    page.evaluate("document.querySelectorAll('details.tk-trace').forEach((t) => t.open = false)")
    baked = page.locator(".tk-run").evaluate_all(
        "(runs) => Object.fromEntries(runs.map((run) => "
        "[run.dataset.scenario, run.querySelector('.tk-run__result').innerHTML]))"
    )
    run_and_wait(page)
    yield page, baked
    assert errors == []
    context.close()


def test_the_live_trace_and_drawing_equal_the_baked_ones_for_every_duty(
    ran_page, built_site: Path
) -> None:
    page, baked_markups = ran_page
    duties = page.locator(".tk-duty").evaluate_all("(all) => all.map((d) => d.dataset.duty)")
    assert len(duties) == 9
    for duty in duties:
        page.locator(f"label[for=tk-duty-{duty}]").click()
        run = page.locator(f"#tk-duty-panel-{duty} .tk-run")
        name = run.get_attribute("data-scenario")
        baked_file = built_site / ASSETS / "model/scenarios" / f"{name}.json"
        baked_trace = canonical_json(json.loads(baked_file.read_text(encoding="utf-8"))["trace"])
        baked_markup = baked_markups[name]
        run_and_wait(page)
        assert run.get_attribute("data-trace") == baked_trace, duty
        assert as_seen(run.locator(".tk-run__result").inner_html()) == as_seen(baked_markup), duty
        assert run.locator(".tk-run__state").inner_text() == "live run"


def test_the_console_replies_like_valkey_cli_and_shows_input_as_text(ran_page) -> None:
    page, _ = ran_page
    page.locator("label[for=tk-duty-promote]").click()
    run_and_wait(page)
    console = page.locator(".tk-console")
    expect(console).to_be_visible()
    output = console.locator(".tk-console__out")
    box = page.get_by_role("textbox", name=re.compile("^Console · send a command"))

    def send(line: str, expected: str) -> None:
        box.fill(line)
        box.press("Enter")
        expect(output).to_contain_text(expected)

    send("ZCARD q:schedule", "> ZCARD q:schedule\n(integer) 0")
    send("LRANGE q:pending 0 -1", "(empty array)")
    send("EMQ.PROMOTE 1 q:schedule", "(error) ERR wrong number of arguments for 'emq.promote'")
    send(HOSTILE, f"> {HOSTILE}\n(error) ERR unknown command '<img', with args beginning with")
    send(f'SET k "{HOSTILE}"', "OK")
    send("GET k", f'"{HOSTILE}"')
    # Shown as text: no element was made from it, and nothing ran.
    assert output.locator("img").count() == 0
    assert page.locator("img[src=x]").count() == 0
    assert HOSTILE in output.inner_text()


def test_a_shared_url_restores_the_changed_run_without_loading_pyodide(
    site_url: str, browser
) -> None:
    context, page, requests, _ = open_page(
        browser, site_url, "?duty=recover&wire=6&limit=1&send=Stalled,Pump"
    )
    expect(page.locator("#tk-duty-recover")).to_be_checked()
    live = page.locator("#tk-duty-panel-recover .tk-live")
    expect(live).to_be_visible()
    expect(live.locator("input[name=wire][value='6']")).to_be_checked()
    expect(live.locator("input[name=limit]")).to_have_value("1")
    expect(live.locator("input[name=send][value=Pump]")).to_be_checked()
    expect(live.locator(".tk-live__changed")).to_have_text(
        "Changed from the default: processes Pump and Stalled; wire: 6; limit 1."
    )
    assert pyodide_requests(requests) == []
    share = live.locator(".tk-live__share").get_attribute("href") or ""
    assert parse_qs(urlparse(share).query)["wire"] == ["6"]
    context.close()


def test_a_model_error_is_shown_in_the_widget(site_url: str, browser) -> None:
    context, page, _, _ = open_page(browser, site_url, "?duty=promote&send=StreamConsumer")
    text = run_and_wait(page, "error")
    assert "a StreamConsumer needs a stream" in text
    expect(status(page)).to_have_class(re.compile("tk-live__status--error"))
    context.close()


def test_a_run_past_its_time_limit_is_stopped_and_the_reader_told(site_url: str, browser) -> None:
    # A heavy run (about 900 commands, a few hundred milliseconds in Pyodide) and a limit of a
    # millisecond for the run itself (Pyodide's load has its own, longer limit): the page's
    # timer fires long before the worker could answer.
    heavy = "?duty=promote&beat=0.1&send=Consumer,Metronome,Pump,Stalled"
    context, page, _, _ = open_page(browser, site_url, heavy)
    page.evaluate("document.querySelector('.tk-duties').dataset.timeLimit = '0.001'")
    text = run_and_wait(page, "stopped")
    assert text == "The run went past its time limit of 0.001 s and was stopped."
    context.close()


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"status": 404, "body": "gone"}, "a deployment without the file"),
        ({"status": 200, "body": b"\x1f\x8b" + bytes(64)}, "a damaged file"),
        ({"status": 200, "body": bytes(1024)}, "not a snapshot at all"),
    ],
)
def test_a_snapshot_that_does_not_restore_falls_back_to_the_plain_boot(
    site_url: str, browser, built_site: Path, answer: dict, why: str
) -> None:
    """The snapshot uses an underscore option of Pyodide: if it fails, the reader still gets
    the same run, from the lock file, and no error."""
    context = browser.new_context()
    context.route("**/*.snapshot", lambda route: route.fulfill(**answer))
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(site_url + MODULE_04)
    run_and_wait(page)
    assert page.locator(".tk-duties").get_attribute("data-boot") == "lock", why
    run = page.locator("#tk-duty-panel-promote .tk-run")
    baked_file = built_site / ASSETS / "model/scenarios/promote-due.json"
    baked = json.loads(baked_file.read_text(encoding="utf-8"))["trace"]
    assert run.get_attribute("data-trace") == canonical_json(baked), why
    assert errors == []
    context.close()


def test_a_reader_who_saves_data_is_not_sent_the_snapshot(site_url: str, browser) -> None:
    """The snapshot costs about 7 MB more on the wire; Save-Data readers get the plain boot."""
    context = browser.new_context()
    context.add_init_script(SAVE_DATA_SCRIPT)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(site_url + MODULE_04)
    run_and_wait(page)
    assert page.locator(".tk-duties").get_attribute("data-boot") == "lock"
    assert not [url for url in requests if url.endswith(".snapshot")]
    assert any(url.endswith("/model/pyodide-lock.json") for url in requests)
    context.close()
