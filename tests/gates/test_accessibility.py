"""Gate: axe-core (npm) finds no violation on any built page, in Debian's Chromium, with the
duty widget as loaded (closed) and with each of its duties open. axe runs all its default
rules: WCAG 2.x A and AA, and its best practices; every page in both palettes (light and dark)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import serve
from support.gates import (
    BROKEN,
    COLOUR_RULES,
    PALETTES,
    WIDGET_MARKER,
    describe_violations,
    report,
    run_axe,
    switch_palette,
    watching_context,
    widget_open_states,
)

pytestmark = pytest.mark.browser
TOGGLE = "form[data-md-component=palette]"
# The page's markup but for the palette's toggle, whose buttons swap their `hidden`, and the
# search box, which its worker fills in when it is ready, whatever the palette.
OUTSIDE_THE_TOGGLE = f"""() => {{
  const body = document.body.cloneNode(true);
  for (const part of body.querySelectorAll("{TOGGLE}, [data-md-component=search]")) part.remove();
  return body.innerHTML;
}}"""


def test_every_page_has_no_axe_violation_in_either_palette(
    site_url: str, pages: list[str], browser
) -> None:
    """Each page in both palettes, switched with the theme's own toggle as a reader does (one
    load a page). Every rule runs in the first palette. In the second, the page is the same
    markup in other colours but for the toggle, which shows its other button (checked: the
    rest of the DOM is the same): every rule runs on the toggle, and on the whole page the
    rules that read colours. That a first visit follows the reader's system setting is
    test_timeline_layout's."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    failures = {}
    for path in pages:
        page.goto(site_url + path, wait_until="load")
        # The review page imports its grader after load and then adds its confirm and undo
        # buttons: the first markup is taken once those imports are done.
        page.wait_for_load_state("networkidle")
        first = page.locator("body").get_attribute("data-md-color-scheme")
        markup = page.evaluate(OUTSIDE_THE_TOGGLE)
        found = describe_violations(run_axe(page))
        if found:
            failures[f"{path} · {first}"] = found
        second = next(other for other in PALETTES if other != first)
        switch_palette(page, second)
        assert page.evaluate(OUTSIDE_THE_TOGGLE) == markup, f"{path}: the DOM changed"
        found = describe_violations(run_axe(page, TOGGLE) + run_axe(page, rules=COLOUR_RULES))
        if found:
            failures[f"{path} · {second}"] = found
    context.close()
    assert not failures, report(failures)


def test_the_duty_widget_open_has_no_axe_violation(
    site_url: str, pages: list[str], built_site: Path, browser
) -> None:
    with_widget = [p for p in pages if WIDGET_MARKER in (built_site / p).read_text("utf-8")]
    assert with_widget, "no page carries the duty widget"
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    failures = {}
    for path in with_widget:
        page.goto(site_url + path, wait_until="load")
        for duty in widget_open_states(page):
            found = describe_violations(run_axe(page, f".{WIDGET_MARKER}"))
            if found:
                failures[f"{path} · {duty} open"] = found
        # The last state, in the whole page: what opening changed outside the widget too.
        found = describe_violations(run_axe(page))
        if found:
            failures[f"{path} · whole page, widget open"] = found
    context.close()
    assert not failures, report(failures)


def test_axe_flags_the_broken_page(browser) -> None:
    with serve(BROKEN) as base, watching_context(browser, base) as context:
        page = context.new_page()
        page.goto(base + "index.html", wait_until="load")
        ids = {violation["id"] for violation in run_axe(page)}
    assert "image-alt" in ids, ids
