"""The timelines of the site as a reader sees them, at 390 and 1366 px, in both palettes, under
both engines: on a phone a timeline shows that it scrolls and gives the run its width; its
legend lists each colour and mark it draws; one colour means one thing on every timeline of
the site (the duties', the dives' worked examples and every question's run); and the trace
under it breaks no word."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from support import MODULE_04
from support.duties import duty_ids, open_trace, show_every_run
from support.seen import (
    SHADED,
    View,
    assert_no_sideways_scroll,
    edge_shade,
    seen,
    text_problems,
)

pytestmark = pytest.mark.browser

DIVES = [
    "trafikist/04-blocking-timers-and-the-bus/01-who-moves-time-today/index.html",
    "trafikist/04-blocking-timers-and-the-bus/03-the-native-bus/index.html",
]
RUNS = "assets/trafikist/checks/runs"
MIN_TEXT_PX = 12
SWIPES = 2.5  # the whole run in a few swipes: the drawing is at most this many boxes wide
LABELS = 0.1  # the lanes' names take no more than this share of the box's width

# Each timeline a reader can see: the width of its box and of the drawing, where the run's
# first tick is, and whether the line under it that says it scrolls is seen.
SCROLLS = """() => [...document.querySelectorAll(".tk-tl__scroll")]
  .filter((box) => box.checkVisibility())
  .map((box) => {
    const tick = box.querySelector(".tk-tl__axis").getBoundingClientRect().left;
    const hint = box.closest("figure").querySelector(".tk-tl__hint");
    return { box: box.clientWidth, drawing: box.scrollWidth,
             start: (tick - box.getBoundingClientRect().left) / box.clientWidth,
             hint: hint.checkVisibility(), name: box.getAttribute("aria-label") };
  })"""


def timeline_pages(site_url: str) -> list[str]:
    return [site_url + MODULE_04, *(site_url + dive for dive in DIVES)]


def test_on_a_phone_a_timeline_shows_it_scrolls_and_gives_the_run_the_width(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    for url in timeline_pages(site_url):
        view = reader(url, viewport=viewport, palette=palette)
        found = view.page.evaluate(SCROLLS)
        assert found, f"no timeline seen on {url}"
        for box in found:
            assert box["start"] <= LABELS, f"{box['name']}: the run starts at {box['start']:.0%}"
            if viewport == "phone":
                assert box["drawing"] > box["box"], box
                assert box["hint"], f"{box['name']}: nothing says the drawing scrolls"
                assert box["drawing"] <= SWIPES * box["box"], box
            else:
                assert box["drawing"] <= box["box"] + 1 and not box["hint"], box
        assert_no_sideways_scroll(view.page, url)


# Each lane name of each timeline seen, after its box is scrolled to `where` (0: the start, 1:
# the end): the share of the name that lies outside the box's visible part.
LANE_NAMES = """(where) => [...document.querySelectorAll(".tk-tl__scroll")]
  .filter((box) => box.checkVisibility())
  .flatMap((box) => {
    const shown = box.getBoundingClientRect();
    return [...box.querySelectorAll(".tk-tl__lane tspan")].map((name) => {
      const rect = name.getBoundingClientRect();
      const outside = Math.max(0, shown.left - rect.left) + Math.max(0, rect.right - shown.right);
      return { name: name.textContent, where, outside: outside / rect.width,
               box: box.getAttribute("aria-label") };
    });
  })"""
SCROLL_TO = """(where) => document.querySelectorAll(".tk-tl__scroll").forEach((box) => {
  box.scrollLeft = where * (box.scrollWidth - box.clientWidth);
})"""


def test_on_a_phone_the_lane_names_stay_in_view_as_the_run_scrolls(
    reader: Callable[..., View], site_url: str, palette: str
) -> None:
    """Scrolled to 5-10 s, a lane's name is still beside its lane (issue 24: they went off to
    the left); each name wholly inside the box, at the start, half-way and at the end."""
    for url in timeline_pages(site_url):
        view = reader(url, viewport="phone", palette=palette)
        page = view.page
        for where in (0, 0.5, 1):
            page.evaluate(SCROLL_TO, where)
            page.wait_for_timeout(150)  # the scroll event, then a frame
            names = page.evaluate(LANE_NAMES, where)
            assert names, f"no lane name seen on {url}"
            off = [name for name in names if name["outside"] > 0.01]
            assert off == [], off
        assert_no_sideways_scroll(page, url)


# Each figure's drawing as the reader sees its colours: the fill of each bar and the stroke of
# the commands, the marks, and the legend's keys (its words, its swatch's colour, its mark).
COLOURS = """(root) => [...root.querySelectorAll("figure.tk-run__figure")].map((figure) => {
  const svg = figure.querySelector("svg.tk-tl");
  const style = (el) => getComputedStyle(el);
  const paths = [...svg.querySelectorAll("path:not(.tk-tl__bg, .tk-tl__axis, .tk-tl__cmd)")];
  return {
    name: figure.querySelector(".tk-tl__scroll").getAttribute("aria-label"),
    fills: paths.map((path) => style(path).fill),
    strokes: [...svg.querySelectorAll(".tk-tl__cmd")].map((path) => style(path).stroke),
    marks: [...svg.querySelectorAll("text.tk-tl__event")]
      .map((mark) => [mark.textContent, style(mark).fill]),
    keys: [...figure.querySelectorAll(".tk-tl__key")].map((key) => {
      const swatch = key.querySelector(".tk-tl__swatch");
      const mark = key.querySelector(".tk-tl__mark");
      return { words: key.textContent.replace(mark?.textContent ?? "", "").trim(),
               colour: swatch ? style(swatch).backgroundColor : null,
               mark: mark?.textContent ?? null };
    }),
  };
})"""

# Every question's run, as "Show the run" puts it into the page, appended to the page's end.
ADD_RUNS = """async (urls) => {
  for (const url of urls) {
    const box = document.createElement("div");
    box.className = "tk-test-run";
    box.innerHTML = await (await fetch(url)).text();
    document.querySelector("article").append(box);
  }
}"""


def every_timeline(page: Page, site_url: str, built_site: Path) -> list[dict]:
    """The timelines of the site: the module's duties, the dives', every question's run."""
    found: list[dict] = []
    for url in timeline_pages(site_url):
        page.goto(url, wait_until="load")
        if url.endswith(MODULE_04):
            show_every_run(page)  # each duty's run comes when it is picked
        found += page.locator("body").evaluate(COLOURS)
    runs = sorted(path.name for path in (built_site / RUNS).glob("*.html"))
    assert len(runs) > 10, runs
    page.goto(site_url + MODULE_04, wait_until="load")
    page.evaluate("document.querySelectorAll('article figure').forEach((f) => f.remove())")
    page.evaluate(ADD_RUNS, [f"{site_url}{RUNS}/{name}" for name in runs])
    found += page.locator("body").evaluate(COLOURS)
    return found


def test_one_colour_means_one_thing_on_every_timeline_and_each_legend_lists_its_own(
    reader: Callable[..., View], site_url: str, built_site: Path, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport="desktop", palette=palette)
    figures = every_timeline(view.page, site_url, built_site)
    assert len(figures) > 20, len(figures)
    meaning: dict[str, set[str]] = defaultdict(set)  # a colour: what the legends call it
    colour_of: dict[str, set[str]] = defaultdict(set)  # a legend's words: their colours
    unlisted = []
    for figure in figures:
        keys = figure["keys"]
        listed = {key["colour"] for key in keys if key["colour"]}
        marks = {key["mark"] for key in keys if key["mark"]}
        for key in keys:
            if key["colour"]:
                meaning[key["colour"]].add(key["words"])
                colour_of[key["words"]].add(key["colour"])
        drawn = set(figure["fills"]) | set(figure["strokes"])
        unlisted += [f"{figure['name']}: colour {colour}" for colour in drawn - listed]
        unlisted += [f"{figure['name']}: mark {mark}" for mark, _ in figure["marks"]
                     if mark not in marks]  # fmt: skip
        # Every client's commands are drawn alike, in the colour the legend gives a command.
        assert len(set(figure["strokes"])) <= 1, figure["strokes"]
    assert unlisted == [], "\n".join(unlisted)
    assert {colour: words for colour, words in meaning.items() if len(words) > 1} == {}
    assert {words: cs for words, cs in colour_of.items() if len(cs) > 1} == {}
    assert {"a command", "pending", "active", "dead", "past due, still in schedule"} <= set(
        colour_of
    )


# Each SVG text's font size as rendered: its computed size in user units times the drawing's
# scale on screen (the SVG's screen matrix).
SVG_TEXT = """() => [...document.querySelectorAll("svg.tk-tl")]
  .filter((svg) => svg.checkVisibility())
  .flatMap((svg) => [...svg.querySelectorAll("text")].map((text) =>
    parseFloat(getComputedStyle(text).fontSize) * svg.getScreenCTM().a))"""


def test_a_timelines_text_and_its_legend_are_readable(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    for url in timeline_pages(site_url):
        view = reader(url, viewport=viewport, palette=palette)
        sizes = view.page.evaluate(SVG_TEXT)
        assert sizes and min(sizes) >= MIN_TEXT_PX - 0.01, (url, min(sizes))
        problems = text_problems(view.page, "figure.tk-run__figure")
        assert problems == [], "\n".join(problems)


# Each word of each cell of the trace that the browser set on more than one line.
BROKEN_WORDS = """(root) => {
  const broken = [];
  const cells = document.createTreeWalker(root.querySelector("tbody"), NodeFilter.SHOW_TEXT);
  for (let node = cells.nextNode(); node; node = cells.nextNode()) {
    const text = node.textContent;
    for (const match of text.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}"""


def test_the_trace_breaks_no_word_and_scrolls_in_its_own_box(
    reader: Callable[..., View], site_url: str, viewport: str, palette: str
) -> None:
    view = reader(site_url + MODULE_04, viewport=viewport, palette=palette)
    page = view.page
    for duty in duty_ids(page):
        box = open_trace(page, duty)
        assert seen(box) == [True]
        assert box.evaluate(BROKEN_WORDS) == [], duty
        assert_no_sideways_scroll(page, f"{duty}'s trace")
        problems = text_problems(page, f"#tk-duty-panel-{duty} .tk-trace")
        assert problems == [], "\n".join(problems)


# Scroll each box that holds a trace's rows to `where` along `axis` (0: the start, 1: the end).
SCROLL_TRACE = """([where, axis]) => document.querySelectorAll(".tk-trace__scroll")
  .forEach((box) => {
  if (axis === "x") box.scrollLeft = where * (box.scrollWidth - box.clientWidth);
  else box.scrollTop = where * (box.scrollHeight - box.clientHeight);
})"""


def test_the_trace_shows_on_which_side_it_has_more(
    reader: Callable[..., View], site_url: str, palette: str
) -> None:
    """On a phone the trace is wider than its box (its reply column lies off to the right) and
    taller (it scrolls down), and a phone shows no scroll bar until the reader scrolls: the box
    shades each side that has more, and only those, as the reader scrolls it."""
    view = reader(site_url + MODULE_04, viewport="phone", palette=palette)
    page = view.page
    box = open_trace(page, duty_ids(page)[0])
    size = box.evaluate(
        "(el) => [el.scrollWidth - el.clientWidth, el.scrollHeight - el.clientHeight]"
    )
    assert size[0] > 0 and size[1] > 0, f"the trace fits its box on a phone: {size}"
    page.evaluate(SCROLL_TRACE, [0, "y"])
    for where, more in ((0, "right"), (0.5, "both"), (1, "left")):
        page.evaluate(SCROLL_TRACE, [where, "x"])
        shade = edge_shade(page, box)
        shaded = [side for side in ("left", "right") if shade[side] >= SHADED]
        wanted = ["left", "right"] if more == "both" else [more]
        assert shaded == wanted, f"scrolled {where:.0%} across ({palette}): {shade}"
        assert shade["bottom"] >= SHADED > shade["top"], f"at the top ({palette}): {shade}"
    page.evaluate(SCROLL_TRACE, [1, "y"])
    shade = edge_shade(page, box)
    assert shade["top"] >= SHADED > shade["bottom"], f"at the bottom ({palette}): {shade}"


# A trace's box: how many of its rows it shows whole, and how many it holds.
WHOLE_ROWS = """(box) => {
  const seen = box.getBoundingClientRect();
  const rows = [...box.querySelectorAll("tbody tr")];
  const whole = rows.filter((row) => {
    const { top, bottom } = row.getBoundingClientRect();
    return top >= seen.top - 0.5 && bottom <= seen.bottom + 0.5;
  });
  return [whole.length, rows.length];
}"""
ROWS_AT_ONCE = 4


def test_on_a_phone_the_trace_shows_several_rows_at_once(
    reader: Callable[..., View], site_url: str
) -> None:
    """A phone sets each row of a trace on several lines (a command, a long reply): as the
    reader opens it, each duty's trace shows at least four whole rows, or all of a shorter
    one, not the two it showed in a box of the desktop's height."""
    view = reader(site_url + MODULE_04, viewport="phone")
    page = view.page
    few = {}
    for duty in duty_ids(page):
        whole, rows = open_trace(page, duty).evaluate(WHOLE_ROWS)
        if whole < min(rows, ROWS_AT_ONCE):
            few[duty] = f"{whole} of {rows} rows"
    assert few == {}, few
