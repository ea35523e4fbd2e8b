"""A reader with JavaScript off can pick a duty and read its rows (Debian's Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import MODULE_04, serve

pytestmark = pytest.mark.browser


def test_pick_a_duty_without_javascript(built_site: Path, browser) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    with serve(built_site) as base:
        page.goto(base + MODULE_04)
        promote = page.locator("#tk-duty-panel-promote")
        count = page.locator("#tk-duty-panel-count-failures")
        assert promote.is_visible() and not count.is_visible()

        page.get_by_text("count failures · dead-letter count and its TTL").first.click()
        assert count.is_visible() and not promote.is_visible()
        rows = count.locator("dt").all_inner_texts()
        assert [row.lower() for row in rows] == ["the library", "trafikey", "between calls"]
        assert "INCR followed by a separate EXPIRE" in count.locator("dd").first.inner_text()

        # The keyboard works too: arrow keys move between the radios of one group.
        page.locator("#tk-duty-count-failures").focus()
        page.keyboard.press("ArrowRight")
        assert page.locator("#tk-duty-panel-park-dead-letter").is_visible()
    context.close()
