"""The duty widget's baked runs as a reader sees them, at 390 and 1366 px, in both palettes,
with JavaScript on and off, under both engines. The page carries the first duty's drawing; its
trace's rows, and every other duty's run, are pages of their own that the page's script puts in
place on the reader's move (support.duties), and that a reader without JavaScript opens by a
link. Either way the rows are seen, readable, and widen no page."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Route, expect

from support import MODULE_04
from support.duties import LOADED_MS, RUNS, open_trace, pick_duty
from support.gates import PALETTES, switch_palette
from support.seen import (
    View,
    assert_no_sideways_scroll,
    assert_quiet,
    page_colours,
    seen,
    text_problems,
)

pytestmark = pytest.mark.browser

FIRST, OTHER = "promote", "count-failures"
# The drawing's labels are the timeline tests' (test_timeline_seen.py).
DRAWING = "svg.tk-tl"


def test_with_javascript_a_trace_and_another_duty_come_on_the_readers_move(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    page.wait_for_load_state("networkidle")
    # As loaded: the first duty's drawing is seen, its rows are not in the page, and no run's
    # page was fetched.
    first = page.locator(f"#tk-duty-panel-{FIRST}")
    assert seen(first.locator("figure.tk-run__figure")) == [True]
    assert first.locator("table.tk-trace__table").count() == 0
    assert [url for url in fetched if f"/{RUNS}/" in url] == []

    box = open_trace(page, FIRST)
    rows = box.locator("tbody tr")
    assert rows.count() > 20 and seen(rows.first) == [True], rows.count()
    assert_no_sideways_scroll(page, "the first duty's trace")
    problems = text_problems(page, f"#tk-duty-panel-{FIRST} .tk-trace")
    assert problems == [], "\n".join(problems)

    panel = pick_duty(page, OTHER)
    assert seen(panel.locator(DRAWING)) == [True]
    assert seen(panel.locator(".tk-run__file")) == []  # the link gave its place
    box = open_trace(page, OTHER)
    assert box.locator("tbody tr").count() > 3
    # The model's choices the run relies on link to their list on this page.
    for link in panel.locator(".tk-run__choices a").all():
        href = link.get_attribute("href") or ""
        assert href.startswith("#tk-choice-"), href
    assert_no_sideways_scroll(page, "another duty's run")
    problems = text_problems(page, f"#tk-duty-panel-{OTHER} .tk-run__result", exclude=DRAWING)
    assert problems == [], "\n".join(problems)
    assert_quiet(view)


def test_without_javascript_a_trace_and_another_duty_are_a_link_away(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette, javascript=False)
    page = view.page
    for duty in (FIRST, OTHER):
        panel = page.locator(f"#tk-duty-panel-{duty}")
        if duty == FIRST:
            assert seen(panel.locator("figure.tk-run__figure")) == [True]
            panel.locator("details.tk-trace summary").click()
            link = panel.locator(".tk-trace__file a")
        else:
            page.locator(f"label[for=tk-duty-{duty}]").click()
            link = panel.locator(".tk-run__file a")
        expect(link).to_be_visible()
        assert_no_sideways_scroll(page, f"the link to {duty}'s run")
        problems = text_problems(page, f"#tk-duty-panel-{duty} .tk-run__result", exclude=DRAWING)
        assert problems == [], "\n".join(problems)

        with page.expect_navigation():
            link.click()
        expect(page.locator("h1")).to_contain_text("The run of")
        assert seen(page.locator(DRAWING)) == [True], duty
        rows = page.locator(".tk-trace__table tbody tr")
        assert rows.count() > 3 and seen(rows.first) == [True], duty
        assert_no_sideways_scroll(page, f"{duty}'s run on its own page")
        problems = text_problems(page, "main", exclude=DRAWING)
        assert problems == [], f"{duty}:\n" + "\n".join(problems)
        with page.expect_navigation():
            page.locator("main > p > a").first.click()  # back to the module
        expect(page.locator(".tk-duties")).to_be_visible()
    assert_quiet(view)


def test_a_trace_opened_before_the_pages_script_ran_gets_its_rows(
    reader: Callable[..., View], site_url: str
) -> None:
    """A reader on a slow connection opens the first duty's trace while the page's script
    (duty.js, a module: it runs once the page is parsed) is still on its way; the trace's
    `toggle` has passed by the time it runs. The rows still come."""
    view = reader(site_url + "index.html")
    page = view.page
    held: list[Route] = []
    # Answered below, once the trace is open.
    page.route("**/duty/duty.js", lambda route: held.append(route))
    page.goto(site_url + MODULE_04, wait_until="commit")
    trace = page.locator(f"#tk-duty-panel-{FIRST} details.tk-trace").first
    trace.locator("summary").click()
    expect(trace.locator(".tk-trace__file a")).to_be_visible()  # the link, before the script
    page.wait_for_timeout(300)  # the toggle event's task has run, unseen
    # The script has not run: the widget's controls it reveals are still hidden.
    assert len(held) == 1 and page.evaluate("document.querySelector('.tk-live').hidden")
    held[0].continue_()
    expect(trace.locator(".tk-trace__scroll tbody tr").first).to_be_visible(timeout=LOADED_MS)
    assert seen(trace.locator(".tk-trace__file")) == []  # the link gave its place
    assert_quiet(view)


def test_the_runs_own_page_shows_the_palette_the_reader_sees_on_the_site(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    """Opened from its link (in a tab of its own, or with JavaScript off), the run's page has
    the background and the text colour of the page it came from: the palette the system asks
    for, then the one the reader picks with the header's toggle; without JavaScript the light
    one, as every page of the site. Its text stays readable in each."""
    for javascript in (True, False):
        view = reader(
            site_url + MODULE_04, viewport=viewport, palette=palette, javascript=javascript
        )
        page = view.page
        link = page.locator(f"#tk-duty-panel-{OTHER} .tk-run__file a")
        run_url = link.evaluate("(a) => a.href")
        schemes = (
            [palette, *(other for other in PALETTES if other != palette)]
            if javascript
            else [palette]
        )
        for scheme in schemes:
            page.goto(site_url + MODULE_04)
            if javascript:
                switch_palette(page, scheme)
            site = page_colours(page, "main")
            page.goto(run_url)
            expect(page.locator("h1")).to_contain_text("The run of")
            run = page_colours(page, "main")
            assert run == site, (
                f"{scheme}, JavaScript {'on' if javascript else 'off'}: {run} against {site}"
            )
            problems = text_problems(page, "main", exclude=DRAWING)
            assert problems == [], f"{scheme}:\n" + "\n".join(problems)
        assert_quiet(view)
