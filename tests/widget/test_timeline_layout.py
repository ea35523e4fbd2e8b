"""The duty widget's timeline on a phone and in both palettes, measured in Debian's Chromium:
the labels' rendered font size at 390 and 1280 CSS px, what scrolls sideways, the trace
table's text, and the contrast of every colour of the drawing against what it is drawn on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support import MODULE_04
from support.duties import open_trace, pick_duty
from support.gates import describe_violations, run_axe

pytestmark = pytest.mark.browser

DIVE = "trafikist/04-blocking-timers-and-the-bus/01-who-moves-time-today/index.html"
PHONE, DESKTOP = 390, 1280
MIN_TEXT_PX = 12  # the floor for the timeline's labels
MIN_TABLE_PX = 12
NON_TEXT, TEXT = 3.0, 4.5  # WCAG 1.4.11 and 1.4.3 (small text)
PALETTE_CLASSES = ["s", "sl", "p", "a", "d", "f", "x", "g", "n"]


def open_at(browser, url: str, width: int, scheme: str = "light"):
    context = browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=scheme, service_workers="block"
    )
    page = context.new_page()
    page.goto(url, wait_until="load")
    return context, page


# Each SVG text's font size as rendered: its computed size in user units times the drawing's
# scale on screen (the SVG's screen matrix).
TEXT_SIZES = """(root) => [...document.querySelectorAll(root + " svg.tk-tl")]
  .filter((svg) => svg.getBoundingClientRect().width > 0)
  .flatMap((svg) => [...svg.querySelectorAll("text")].map((text) =>
    parseFloat(getComputedStyle(text).fontSize) * svg.getScreenCTM().a))"""

# Every element of the page's content that scrolls sideways (its content is wider than its box
# and it lets the reader scroll it), and the page's own width.
SIDEWAYS = """() => ({
  page: document.documentElement.scrollWidth,
  viewport: document.documentElement.clientWidth,
  boxes: [...document.querySelectorAll("article *")]
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && el.getClientRects().length &&
                    ["auto", "scroll"].includes(getComputedStyle(el).overflowX))
    .map((el) => el.className.baseVal ?? (el.className || el.tagName.toLowerCase())),
})"""


@pytest.mark.parametrize("path", [MODULE_04, DIVE])
def test_on_a_phone_the_labels_stay_readable_and_only_the_figure_scrolls(
    site_url: str, browser, path: str
) -> None:
    sizes = {}
    for width in (PHONE, DESKTOP):
        context, page = open_at(browser, site_url + path, width)
        found = page.evaluate(TEXT_SIZES, "article")
        assert found, f"no timeline text on {path} at {width} px"
        sizes[width] = (min(found), max(found))
        sideways = page.evaluate(SIDEWAYS)
        assert sideways["page"] <= sideways["viewport"], (width, sideways)
        boxes = sideways["boxes"]
        if width == PHONE:
            # The drawing is wider than a phone: it scrolls, in its own box (as a trace's long
            # rows do in theirs) and nowhere else.
            assert "tk-tl__scroll" in boxes, boxes
            assert set(boxes) <= {"tk-tl__scroll", "tk-trace__scroll"}, boxes
            box = page.locator(".tk-tl__scroll").filter(has=page.locator("svg:visible")).first
            assert box.get_attribute("tabindex") == "0"  # a keyboard can scroll it too
        else:
            # On a desktop the drawing fits the column (a long code line may still scroll).
            assert "tk-tl__scroll" not in boxes, boxes
        context.close()
    assert sizes[PHONE][0] >= MIN_TEXT_PX, sizes
    assert sizes[DESKTOP][0] >= MIN_TEXT_PX, sizes


def test_on_a_phone_the_trace_table_is_readable_and_scrolls_in_its_box(
    site_url: str, browser
) -> None:
    context, page = open_at(browser, site_url + MODULE_04, PHONE)
    cells = open_trace(page, "promote").locator("td")
    sizes = cells.evaluate_all("(all) => all.map((c) => parseFloat(getComputedStyle(c).fontSize))")
    assert sizes and min(sizes) >= MIN_TABLE_PX, min(sizes)
    # Words are whole (tests/reader/test_timeline_seen.py): a wide row scrolls in the box.
    assert page.evaluate(SIDEWAYS)["page"] <= PHONE
    context.close()


# The contrast of every colour the drawing uses (the measuring is in contrast.js).
CONTRAST = (Path(__file__).with_name("contrast.js")).read_text(encoding="utf-8")


def switch_palette(page, scheme: str) -> None:
    """Use the theme's palette toggle in the header, as a reader does."""
    current = page.locator("body").get_attribute("data-md-color-scheme")
    if current != scheme:
        page.locator("form[data-md-component=palette] label:visible").click()
    assert page.locator("body").get_attribute("data-md-color-scheme") == scheme


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_the_timeline_keeps_its_contrast_in_both_palettes(
    site_url: str, browser, scheme: str
) -> None:
    context, page = open_at(browser, site_url + MODULE_04, DESKTOP)
    switch_palette(page, scheme)
    duties = page.locator(".tk-duty").evaluate_all("(all) => all.map((d) => d.dataset.duty)")
    failures, checked, bar_labels = [], 0, 0
    for duty in duties:
        pick_duty(page, duty)  # its drawing comes from the run's own page
        where = {"panel": f"#tk-duty-panel-{duty}", "fills": PALETTE_CLASSES}
        where |= {"nonTextFloor": NON_TEXT, "textFloor": TEXT}
        for item in page.evaluate(CONTRAST, where):
            checked += 1
            bar_labels += item["where"] == "its bar"
            if item["ratio"] < item["floor"]:
                failures.append(f"{duty}: {item['what']} {item['ratio']:.2f}:1 on {item['where']}")
    assert checked > 100 and bar_labels > 10, (checked, bar_labels)
    assert failures == [], "\n".join(failures)
    context.close()


def test_the_palette_toggle_switches_and_the_dark_page_has_no_axe_violation(
    site_url: str, browser
) -> None:
    context, page = open_at(browser, site_url + MODULE_04, DESKTOP)
    assert page.locator("body").get_attribute("data-md-color-scheme") == "default"
    switch_palette(page, "slate")
    toggle = page.get_by_role("radio", name=re.compile("Switch to the light palette"))
    assert toggle.count() == 1
    page.reload()  # the reader's choice is kept
    assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
    pick_duty(page, "recover")
    assert describe_violations(run_axe(page)) == []
    context.close()


def test_a_reader_whose_system_is_dark_gets_the_dark_palette(site_url: str, browser) -> None:
    context, page = open_at(browser, site_url + MODULE_04, DESKTOP, scheme="dark")
    assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
    context.close()
