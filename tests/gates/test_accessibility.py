"""Gate: axe-core (npm) finds no violation on any built page, in Debian's Chromium, with the
duty widget as loaded (closed) and with each of its duties open. axe runs all its default
rules: WCAG 2.x A and AA, and its best practices; every page in both palettes (light and dark)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import serve
from support.gates import (
    BROKEN,
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


def test_every_page_has_no_axe_violation_in_either_palette(
    site_url: str, pages: list[str], browser
) -> None:
    """Each page in both palettes, switched with the theme's own toggle as a reader does (one
    load a page: the second palette is the same page, recoloured). That a first visit follows
    the reader's system setting is test_timeline_layout's."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    failures = {}
    for path in pages:
        page.goto(site_url + path, wait_until="load")
        for _ in PALETTES:
            scheme = page.locator("body").get_attribute("data-md-color-scheme")
            found = describe_violations(run_axe(page))
            if found:
                failures[f"{path} · {scheme}"] = found
            switch_palette(page, next(other for other in PALETTES if other != scheme))
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
