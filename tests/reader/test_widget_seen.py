"""The duty widget as a reader sees it, at 390 and 1366 px, in both palettes, under both
engines: where the keyboard is on every control, the edges of its fields and groups, and that
it says only what it shows (the line under Run after a new duty, a question's link)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from support import MODULE_04
from support.seen import (
    COLOUR_JS,
    View,
    assert_edges,
    assert_no_sideways_scroll,
    assert_quiet,
    focus_mark,
    seen,
    text_problems,
)

pytestmark = pytest.mark.browser

WIDGET = ".tk-duties"
WIRE_6 = "#check-a-beat-on-wire-6"  # its run: the promote duty's, with `wire: 6`
RUNS = "assets/trafikist/checks/runs"
# A cold run loads Pyodide (about 12 MB) and compiles it: generous on a busy 2-core machine.
COLD_MS = 120_000
LOADED_MS = 30_000  # the widget's code and a question's run, on a busy machine
# A trace's rows, each as its cells' words (a function of the element that holds the table).
ROWS = (
    "(root) => [...root.querySelectorAll('table.tk-trace__table tbody tr')]"
    ".map((row) => [...row.cells].map((cell) => cell.textContent.trim()).join(' | '))"
)


def widget_page(reader: Callable[..., View], site_url: str, viewport: str, palette: str) -> Page:
    """Module 04 with the widget's code loaded (a reader's first move in it loads it) and its
    console shown as a Run leaves it (a Run itself is the slow test below)."""
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    page.locator(WIDGET).scroll_into_view_if_needed()
    page.locator(WIDGET).dispatch_event("focusin")
    page.wait_for_function("!!document.querySelector('.tk-live').parentElement.closest('.tk-run')")
    page.evaluate("document.querySelector('.tk-console').hidden = false")
    page.locator("#tk-duty-panel-promote details.tk-trace summary").click()
    # Its rows come from the run's own page (support.duties).
    rows = page.locator("#tk-duty-panel-promote .tk-trace__scroll tbody tr")
    expect(rows.first).to_be_visible(timeout=LOADED_MS)
    return page


# Every control of the widget a reader can reach, each with the box that shows its focus: a
# duty's radio is drawn as its label.
CONTROLS = """() => [...document.querySelectorAll(
    '.tk-duties :is(input, select, button, a[href], summary, [tabindex="0"])')]
  .filter((el) => el.closest('.tk-duty__panel, .tk-duties__picker') && el.tabIndex >= 0)
  .filter((el) => el.matches('.tk-duty__radio') ? el.checked :
                  el.checkVisibility({ checkVisibilityCSS: true }))
  .filter((el) => !el.closest('.tk-duty__panel') || el.closest('.tk-duty__panel')
                  .checkVisibility())
  .map((el, index) => { el.dataset.control = String(index);
    return el.matches('.tk-duty__radio') ? `label[for="${el.id}"]` : null; })"""


def test_every_control_of_the_widget_shows_where_the_keyboard_is(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    page = widget_page(reader, site_url, viewport, palette)
    drawn_by = page.evaluate(CONTROLS)
    assert len(drawn_by) > 15, drawn_by  # duties, processes, wire, sweeps, faults, Run, console
    faint = []
    for index, shown in enumerate(drawn_by):
        control = page.locator(f"[data-control='{index}']")
        mark = focus_mark(page, control, shown=page.locator(shown) if shown else None)
        if not mark.visible:
            what = control.evaluate("(el) => el.outerHTML.slice(0, 90)")
            faint.append(f"{what}: {mark.strong} px at 3:1 of {mark.needed} ({mark.best:.2f}:1)")
    assert faint == [], "\n".join(faint)


def test_the_widgets_fields_and_groups_have_edges_a_reader_can_see(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    page = widget_page(reader, site_url, viewport, palette)
    panel = page.locator("#tk-duty-panel-promote")
    assert_edges(panel.locator(".tk-live input[type=number]"), "the number fields")
    assert_edges(panel.locator(".tk-live select"), "the crash's client")
    assert_edges(panel.locator(".tk-console__input"), "the console")
    assert_edges(panel.locator(".tk-live__group"), "the controls' groups")
    assert_edges(page.locator(".tk-duties__picker"), "the duties' group")
    assert_edges(page.locator(".tk-duty__label"), "each duty")


# A <details> of the widget as drawn: its edge and the widget's groups' edge, composited over
# what lies behind them; its summary's fill, and how far from grey it is (`tint`, the spread of
# its channels) beside the page's background (the dark palette's is a blue grey); where the
# summary's words begin in it.
DETAILS_LOOK = (
    """(details) => {"""
    + COLOUR_JS
    + """
  const edge = (el) =>
    hex(over(parse(getComputedStyle(el).borderTopColor), behind(el.parentElement)));
  const summary = details.querySelector(":scope > summary");
  const words = document.createRange();
  words.selectNodeContents(summary);
  const tint = (colour) => Math.max(...colour.slice(0, 3)) - Math.min(...colour.slice(0, 3));
  const fill = behind(summary);
  return { edge: edge(details), groups: edge(document.querySelector(".tk-live__group")),
           fill: hex(fill), tint: tint(fill), page: tint(behind(details.parentElement)),
           indent: words.getBoundingClientRect().left - summary.getBoundingClientRect().left };
}"""
)


def test_the_trace_and_the_choices_have_the_widgets_look_not_the_themes_note(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    """The trace's box and the model's choices are the widget's (its groups' edge, a grey
    summary, no icon), not the theme's blue "note" with its pen, which the course uses for
    nothing else."""
    page = widget_page(reader, site_url, viewport, palette)
    for details in (
        page.locator("#tk-duty-panel-promote details.tk-trace"),
        page.locator("details.tk-choices"),
    ):
        look = details.evaluate(DETAILS_LOOK)
        name = details.evaluate("(el) => el.className")
        assert look["edge"] == look["groups"], f"{name} ({palette}): {look}"
        assert look["tint"] <= look["page"] + 4, f"{name}'s summary is tinted ({palette}): {look}"
        # The theme keeps 2rem (40 px) before the words for its icon.
        assert look["indent"] <= 16, f"{name}'s summary keeps room for an icon: {look}"
        assert_edges(details, name)


def test_the_widgets_text_is_readable(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    page = widget_page(reader, site_url, viewport, palette)
    problems = text_problems(page, WIDGET)
    assert problems == [], "\n".join(problems)


def run_and_wait(page: Page) -> str:
    page.locator(".tk-live__run").click()
    status = page.locator(".tk-duties .tk-live__status")
    expect(status).to_contain_text(re.compile("Drawn|error|stopped|failed"), timeout=COLD_MS)
    return status.inner_text()


def test_after_a_run_a_new_duty_clears_the_line_and_the_duty_keeps_its_runs_controls(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04, viewport="phone")
    page = view.page
    promote = page.locator("#tk-duty-panel-promote")
    promote.locator("input[name=wire][value='6']").check()
    said = run_and_wait(page)
    assert said.startswith("Ran promote-due:") and "Drawn" in said, said
    assert_no_sideways_scroll(page, "after Run")
    page.locator("label[for=tk-duty-recover]").click()
    status = page.locator("#tk-duty-panel-recover .tk-live__status")
    expect(status).to_have_text("")
    assert "promote" not in page.locator("#tk-duty-panel-recover").inner_text()
    # The promote duty keeps its live run, said as such, under the controls of that run.
    page.locator("label[for=tk-duty-promote]").click()
    expect(promote.locator(".tk-run__state")).to_have_text("live run, changed")
    expect(promote.locator("input[name=wire][value='6']")).to_be_checked()
    expect(promote.locator(".tk-live__changed")).to_have_text("Changed from the default: wire: 6.")
    # Reset sets the defaults, whatever the drawing shows.
    promote.get_by_role("button", name="Reset to the default").click()
    expect(promote.locator("input[name=wire][value='4']")).to_be_checked()
    assert_quiet(view)


def test_a_questions_link_shows_the_questions_run_with_its_controls_set(
    reader: Callable[..., View], site_url: str, viewport: str
) -> None:
    """ "Run it in the widget" from the wire: 6 question: the widget shows that question's run
    (the build's), not the default run, and loads no Python for it."""
    view = reader(site_url + MODULE_04, viewport=viewport)
    page = view.page
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    page.locator(WIRE_6).get_by_role("link", name="run it in the widget").click()
    expect(page).to_have_url(
        re.compile(r"\?duty=promote&wire=6#tk-duties-title$"), timeout=LOADED_MS
    )
    run = page.locator("#tk-duty-panel-promote .tk-run")
    # The widget's code loads, then the question's run is fetched: a busy machine is slow.
    expect(run.locator(".tk-run__state")).to_have_text(
        "the question's run, as the build made it", timeout=LOADED_MS
    )
    expect(run.locator("input[name=wire][value='6']")).to_be_checked()
    shown = run.locator(".tk-run__result").evaluate(f"(result) => ({ROWS})(result)")
    baked = page.evaluate(
        f"async (url) => ({ROWS})("
        "new DOMParser().parseFromString(await (await fetch(url)).text(), 'text/html'))",
        f"{site_url}{RUNS}/a-beat-on-wire-6.html",
    )
    assert baked and shown == baked
    assert any("wire: 6" in row for row in shown), shown  # the default run has no refusal
    assert seen(run.locator("svg.tk-tl")) == [True]
    assert not [url for url in fetched if "/pyodide/" in url]
    assert_no_sideways_scroll(page, "the question's run")
    assert_quiet(view)


def test_a_shared_link_that_changes_the_controls_says_the_drawing_is_the_default_run(
    reader: Callable[..., View], site_url: str
) -> None:
    view = reader(site_url + MODULE_04 + "?duty=recover&wire=6", viewport="phone")
    state = view.page.locator("#tk-duty-panel-recover .tk-run__state")
    expect(state).to_have_text("default run, not this link's: press Run for it", timeout=LOADED_MS)
    assert_quiet(view)
