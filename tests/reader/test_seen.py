"""support.seen measures what a reader sees, so each of its checks must fail where a reader
would see a fault: here on small pages made for it, in Debian's Chromium, each fault beside its
fix."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from support.seen import (
    VIEWPORTS,
    edge_contrast,
    focus_mark,
    seen,
    sideways,
    tab_order,
    text_problems,
)

pytestmark = pytest.mark.browser


def page_with(browser: Browser, body: str, css: str = "") -> Page:
    context = browser.new_context(viewport=VIEWPORTS["phone"], device_scale_factor=1)
    page = context.new_page()
    page.set_content(f"<!doctype html><style>body {{ margin: 8px }} {css}</style>{body}")
    return page


def test_hidden_that_a_stylesheet_overrides_is_seen(browser: Browser) -> None:
    page = page_with(
        browser,
        "<details id=a hidden><summary>Show</summary>x</details>"
        "<details id=b><summary>Show</summary><p id=inside>x</p></details>",
        "details { display: flow-root }",
    )
    assert seen(page.locator("#a")) == [True]  # the attribute alone proves nothing
    assert seen(page.locator("#inside")) == [False]  # a closed <details> hides its content
    page.add_style_tag(content="[hidden] { display: none !important }")
    assert seen(page.locator("#a")) == [False]
    page.context.close()


def test_a_fieldset_widens_the_page_unless_it_may_shrink(browser: Browser) -> None:
    wide = "<fieldset><div style='overflow-x: auto'><pre>" + "x" * 200 + "</pre></div></fieldset>"
    page = page_with(browser, wide)
    found = sideways(page)
    assert found["scrollWidth"] > found["clientWidth"], found
    page.add_style_tag(content="fieldset { min-width: 0 }")
    found = sideways(page)
    assert found["scrollWidth"] <= found["clientWidth"], found
    page.context.close()


def test_focus_without_a_mark_is_found(browser: Browser) -> None:
    page = page_with(browser, "<p><input type=radio id=r> <input id=n type=number></p>")
    page.add_style_tag(content="input { outline: none }")
    for control in ("#r", "#n"):
        mark = focus_mark(page, page.locator(control))
        assert not mark.visible, (control, mark)
    page.add_style_tag(content="input:focus-visible { outline: 2px solid #3949ab }")
    for control in ("#r", "#n"):
        mark = focus_mark(page, page.locator(control))
        assert mark.visible, (control, mark)
    page.context.close()


def test_tab_order_finds_a_control_out_of_order(browser: Browser) -> None:
    page = page_with(
        browser, "<div id=s><button>a</button><button tabindex=1>b</button><button>c</button></div>"
    )
    wanted, reached = tab_order(page, "#s")
    assert len(wanted) == 3 and reached == [1, 0, 2], reached
    page.context.close()


def test_a_faint_border_is_not_an_edge(browser: Browser) -> None:
    page = page_with(
        browser,
        "<div style='background: #1e2129; padding: 4px'>"
        "<section id=faint style='border: 1px solid #1b1e26'>a</section>"
        "<section id=clear style='border: 1px solid #8a8f9c'>b</section></div>",
    )
    faint, clear = edge_contrast(page.locator("section"))
    assert faint["ratio"] < 3 <= clear["ratio"], (faint, clear)
    page.context.close()


def test_small_or_faint_text_is_found(browser: Browser) -> None:
    page = page_with(
        browser,
        "<main><p id=small style='font-size: 10.9px'>small</p>"
        "<p id=grey style='color: #aaa'>grey</p><p>fine</p></main>",
    )
    found = text_problems(page, "main")
    assert len(found) == 2, found
    assert "10.9 px" in found[0] and "grey" in found[1], found
    page.context.close()
