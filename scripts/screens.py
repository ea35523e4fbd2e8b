#!/usr/bin/env python3
"""Every state a reader can bring a page to, as PNGs, and one sheet for each page and size
(both palettes side by side), for a person to look at all of them in a minute.

    scripts/screens [--site DIR] [--engine zensical] [--out DIR] [--page PATH ...]

States: the page as loaded; for each kind of question (choice, number, order) before
answering, after a wrong answer, after a sure but wrong answer, with the run shown and after a
right answer (tests/support/reader_states.py); the duty widget with each duty picked and its
trace open, after Run and after a Run with a control changed, another duty picked after them,
the run's own page as its link opens it, and with JavaScript off (the first duty's trace,
another duty, and the run's own page its link opens); the review page without a record, with
one, asking before it clears and offering undo after; and each page with JavaScript off; "How
we know" (issue 26): the switch on with its counts, a mark's popover open, a mark's popover
from a question's feedback, a model step's row shown in the trace, and the foot's link with
JavaScript off; the module's How we know page. Sizes: 390 and 1366 px wide; palettes: light
and dark, as the system asks for them (prefers-color-scheme), JavaScript off too. A state's
label says what the reader should not see: a page that scrolls sideways ("WIDE 671 px"), or a
page in the other palette than the system's ("the system asks for dark, the page is light":
without JavaScript the theme's pages are light whatever the system asks, as the HTML marks
the light palette and only the theme's script reads the system's).

Without --site the course is built into a temporary folder first. The PNGs go to --out
(default: a folder `trafikist-screens` in the system's temporary folder, outside the
repository): OUT/PAGE/SIZE-PALETTE-STATE.png, and OUT/sheet-PAGE-SIZE.png.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from playwright._impl._api_structures import Clip  # the screenshot clip type; not re-exported
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from support import CHROMIUM, CHROMIUM_ARGS, ENGINES, MODULE_04, serve, site_or_build
from support.duties import open_trace
from support.reader_states import STATES, bring_to, kind_of, questions
from support.seen import PALETTES, VIEWPORTS, open_view, page_colours, sideways

DIVES = "trafikist/04-blocking-timers-and-the-bus"
PAGES = (
    "index.html",
    MODULE_04,
    f"{DIVES}/01-who-moves-time-today/index.html",
    f"{DIVES}/02-the-blocking-claim/index.html",
    f"{DIVES}/03-the-native-bus/index.html",
    "review/index.html",
    "how-we-know/blocking-timers-and-the-bus/index.html",
)
REVIEW = "review/index.html"
STORE = "trafikist-checks"
TALLEST = 1100  # px: a shot of one question is cut there (a run's table can be long)
MARGIN = 12  # px around a question's card


@dataclass
class Shot:
    state: str
    palette: str
    png: bytes
    note: str


def label(page: Page) -> str:
    """What the shot's label says beyond its state: the page scrolls sideways, or it shows the
    other palette than the one the system asks for (the theme without JavaScript is light)."""
    notes = []
    wide = sideways(page)
    if wide["scrollWidth"] > wide["clientWidth"]:
        notes.append(f"WIDE {wide['scrollWidth']} px")
    asked = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    shown = dark(page_colours(page, "body")["background"])
    if asked != shown:
        notes.append(
            f"the system asks for {'dark' if asked else 'light'}, the page is "
            f"{'dark' if shown else 'light'}"
        )
    return " · ".join(notes)


def dark(colour: str) -> bool:
    """Whether a #rrggbb colour is a dark palette's background."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return red + green + blue < 3 * 128


def shoot_question(page: Page, question: Locator) -> bytes:
    """The question's card and a margin, the page's whole width (what sticks out shows)."""
    question.scroll_into_view_if_needed()
    return shoot_box(page, question, MARGIN, TALLEST)


def shoot_box(page: Page, element: Locator, margin: int, tallest: int) -> bytes:
    """The page's whole width, from `margin` px above the element to `margin` px below it
    (at most `tallest` px), in page coordinates (a shot may be taller than the screen)."""
    box = element.bounding_box()
    assert box is not None
    scroll = page.evaluate("window.scrollY")
    width = (page.viewport_size or VIEWPORTS["desktop"])["width"]
    top = max(box["y"] + scroll - margin, 0)
    height = min(box["height"] + 2 * margin, tallest)
    clip: Clip = {"x": 0, "y": top, "width": width, "height": height}
    # The theme's header sticks to the top of the screen, which a shot of the whole page
    # would show wherever the screen was: for the shot it stays at the top of the page.
    page.evaluate(STICKY, "relative")
    png = page.screenshot(clip=clip, full_page=True, animations="disabled", caret="hide")
    page.evaluate(STICKY, "")
    return png


STICKY = """(position) => {
  // Only what sticks (a phone's sidebars are drawers, fixed off the screen: left alone).
  for (const bar of document.querySelectorAll(".md-header, .md-sidebar")) {
    if (!position || getComputedStyle(bar).position === "sticky") bar.style.position = position;
  }
}"""


def screen(page: Page) -> bytes:
    return page.screenshot(animations="disabled", caret="hide")


def question_states(browser: Browser, url: str, size: str, palette: str) -> list[Shot]:
    view = open_view(browser, url, viewport=size, palette=palette)
    shots = [Shot("loaded", palette, screen(view.page), label(view.page))]
    by_kind: dict[str, str] = {}
    for id_ in questions(view.page):
        question = view.page.locator(f"#{id_}")
        kind = kind_of(question)
        if kind not in by_kind or (
            question.get_attribute("data-run") is not None
            and view.page.locator(f"#{by_kind[kind]}").get_attribute("data-run") is None
        ):
            by_kind[kind] = id_
    for kind, id_ in by_kind.items():
        for state in STATES:
            view.goto(url)
            question = view.page.locator(f"#{id_}")
            bring_to(question, state)
            view.page.mouse.move(0, 0)
            note = label(view.page)
            png = shoot_question(view.page, question)
            shots.append(Shot(f"{kind} · {state}", palette, png, note))
    problems = view.problems()
    view.context.close()
    shots += javascript_off(browser, url, size, palette)
    if problems:
        shots[0].note += " · " + "; ".join(problems)[:200]
    return shots


def javascript_off(browser: Browser, url: str, size: str, palette: str) -> list[Shot]:
    view = open_view(browser, url, viewport=size, palette=palette, javascript=False)
    first = view.page.locator("section.tk-check").first
    if first.count():
        first.locator("summary").click()  # "Show the answer", as a reader without JS opens it
        png = shoot_question(view.page, first)
    else:
        png = screen(view.page)
    shot = Shot("JavaScript off", palette, png, label(view.page))
    view.context.close()
    return [shot]


def a_record(ids: list[str]) -> str:
    """A reader's record of three of the review page's questions (`ids`, in its order, its
    first when it has no record): the last answered right three days ago, the next answered
    wrong and then right the same day, and the one after answered wrong yesterday, sure. With
    the record the page asks the last first, then the middle one."""
    now = int(time.time() * 1000)
    day = 24 * 3600 * 1000

    def attempt(days: float, right: bool, sure: str | None) -> dict[str, object]:
        return {"at": now - int(days * day), "answer": 0, "right": right, "sure": sure}

    keys = [id_.removeprefix("check-") for id_ in ids[1:4]]
    questions = {
        keys[0]: [attempt(3, True, "sure")],
        keys[1]: [attempt(1, False, None), attempt(1, True, "guess")],
        keys[2]: [attempt(2, True, "think"), attempt(1, False, "sure")],
    }
    return json.dumps({"version": 2, "questions": questions})


def review_states(browser: Browser, url: str, size: str, palette: str) -> list[Shot]:
    view = open_view(browser, url, viewport=size, palette=palette)
    view.page.locator(".tk-review__last").first.wait_for()
    shots = [Shot("no record", palette, screen(view.page), label(view.page))]
    record = a_record(questions(view.page))
    view.context.close()
    view = open_view(browser, url, viewport=size, palette=palette, storage={STORE: record})
    page = view.page
    page.locator(".tk-review__last").first.wait_for()
    # The status line and the first questions, in the order the record gives them.
    shots.append(Shot("with a record", palette, shoot(page, ".tk-review"), label(page)))
    page.get_by_role("button", name="Clear my record").click()
    shots.append(Shot("clear asks", palette, shoot(page, ".tk-review__actions"), label(page)))
    page.get_by_role("button", name="Clear it").click()
    shots.append(Shot("cleared, undo", palette, shoot(page, ".tk-review__actions"), label(page)))
    problems = view.problems()
    if problems:
        shots[1].note += " · " + "; ".join(problems)[:200]
    view.context.close()
    shots += javascript_off(browser, url, size, palette)
    return shots


def shoot(page: Page, selector: str) -> bytes:
    """The element and the page's width around it, a few lines high."""
    return shoot_box(page, page.locator(selector), 60, TALLEST)


# A cold Run loads Pyodide (about 12 MB) and compiles it: generous on a busy machine.
RUN_MS = 180_000


def shoot_panel(panel: Locator) -> bytes:
    """A duty's panel, as tall as it is: a shot of the element (a clip of the whole page taller
    than the screen laid the page out anew, in a column a few words wide, after a Run)."""
    panel.page.evaluate(STICKY, "relative")  # the header stays at the page's top (shoot_box)
    png = panel.screenshot(animations="disabled", caret="hide")
    panel.page.evaluate(STICKY, "")
    return png


def widget_states(browser: Browser, url: str, size: str, palette: str) -> list[Shot]:
    """The duty widget: each duty picked (the first as the page loads it), then after Run, and
    after a Run with a control changed (wire: 6); each shot is the duty's panel."""
    view = open_view(browser, url, viewport=size, palette=palette)
    page = view.page
    shots = []
    duties = page.locator(".tk-duty").evaluate_all("(all) => all.map((duty) => duty.dataset.duty)")
    # Until the duty is picked, its panel links to its run's own page.
    run_page = page.locator(f"#tk-duty-panel-{duties[-1]} .tk-run__file a").evaluate(
        "(a) => a.href"
    )
    for duty in duties:
        # Picked, its run and its trace's rows in place (from the run's own page), trace open.
        open_trace(page, duty)
        panel = page.locator(f"#tk-duty-panel-{duty}")
        png = shoot_panel(panel)
        shots.append(Shot(f"widget · {duty} · trace open", palette, png, label(page)))
    first = page.locator(f"#tk-duty-panel-{duties[0]}")
    page.locator(f"label[for=tk-duty-{duties[0]}]").click()
    for state, change in (("after Run", ""), ("after Run, wire 6", "input[name=wire][value='6']")):
        if change:
            first.locator(change).check()
        page.evaluate("document.querySelector('.tk-live__status').textContent = ''")
        first.locator(".tk-live__run").click()
        status = page.locator(".tk-duties .tk-live__status")
        expect(status).to_contain_text(re.compile("Drawn|error|stopped|failed"), timeout=RUN_MS)
        page.mouse.move(0, 0)
        png = shoot_panel(first)
        shots.append(Shot(f"widget · {duties[0]} · {state}", palette, png, label(page)))
    # Another duty picked after a Run: the controls and the line under Run are that duty's.
    page.locator(f"label[for=tk-duty-{duties[1]}]").click()
    second = page.locator(f"#tk-duty-panel-{duties[1]}")
    expect(second.locator(".tk-live")).to_be_visible()
    page.mouse.move(0, 0)
    png = shoot_panel(second)
    shots.append(Shot(f"widget · after Run, {duties[1]} picked", palette, png, label(page)))
    # The last duty's run on a page of its own, as a reader opens its link in a tab: in the
    # palette the site shows.
    page.goto(run_page)
    png = page.screenshot(full_page=True, animations="disabled")
    shots.append(Shot(f"widget · {duties[-1]}'s run page", palette, png, label(page)))
    problems = view.problems()
    view.context.close()
    if problems:
        shots[0].note += " · " + "; ".join(problems)[:200]
    return shots


def widget_states_without_javascript(
    browser: Browser, url: str, size: str, palette: str
) -> list[Shot]:
    """The duty widget with JavaScript off: the first duty's trace opened (a link to its run's
    own page), another duty picked (a link to its run), and the run's own page it opens."""
    view = open_view(browser, url, viewport=size, palette=palette, javascript=False)
    page = view.page
    duties = page.locator(".tk-duty").evaluate_all("(all) => all.map((duty) => duty.dataset.duty)")
    first = page.locator(f"#tk-duty-panel-{duties[0]}")
    first.locator("details.tk-trace summary").click()
    shots = [Shot(f"no JS · {duties[0]} · trace open", palette, shoot_panel(first), label(page))]
    page.locator(f"label[for=tk-duty-{duties[-1]}]").click()
    last = page.locator(f"#tk-duty-panel-{duties[-1]}")
    shots.append(Shot(f"no JS · {duties[-1]}", palette, shoot_panel(last), label(page)))
    last.locator(".tk-run__file a").click()
    page.wait_for_load_state("load")
    png = page.screenshot(full_page=True, animations="disabled")
    shots.append(Shot(f"no JS · {duties[-1]}'s run page", palette, png, label(page)))
    view.context.close()
    return shots


def evidence_states(browser: Browser, url: str, size: str, palette: str) -> list[Shot]:
    """How we know: the switch on (the page's top, its counts beside the switch), the first
    mark's popover, a mark's popover from a question's feedback, a model step's row shown, and
    the foot's link with JavaScript off."""
    view = open_view(browser, url, viewport=size, palette=palette)
    page = view.page
    switch = page.locator(".tk-evswitch button")
    switch.click()
    page.locator(".tk-evswitch__status").filter(has_text="checked").wait_for()
    shots = [Shot("how we know · on", palette, screen(page), label(page))]
    first = page.locator("button.tk-mark").first
    first.scroll_into_view_if_needed()
    first.focus()
    page.keyboard.press("Enter")
    page.locator("#tk-evpop").wait_for()
    shots.append(Shot("how we know · popover", palette, screen(page), label(page)))
    page.keyboard.press("Escape")
    # A question whose explanations hold a mark (a button by now: the switch is on).
    explained = page.locator("section.tk-check:has(.tk-check__answer dd button.tk-mark)")
    if explained.count():
        question = explained.first
        bring_to(question, "wrong")
        mark = question.locator(".tk-check__feedback button.tk-mark").first
        if mark.count():
            mark.focus()
            page.keyboard.press("Enter")
            page.locator("#tk-evpop").wait_for()
            png = shoot_box(page, question, MARGIN, TALLEST)
            shots.append(Shot("how we know · from the feedback", palette, png, label(page)))
            page.keyboard.press("Escape")
    for mark in page.locator("button.tk-mark").all():
        mark.scroll_into_view_if_needed()
        mark.focus()
        page.keyboard.press("Enter")
        row_link = page.locator("#tk-evpop a.tk-evidence__row").first
        if row_link.count():
            shots.append(Shot("how we know · model step", palette, screen(page), label(page)))
            row_link.click()
            page.locator("tr.tk-trace__shown").wait_for()
            page.mouse.move(0, 0)
            shots.append(Shot("how we know · row shown", palette, screen(page), label(page)))
            break
        page.keyboard.press("Escape")
    problems = view.problems()
    view.context.close()
    if problems:
        shots[0].note += " · " + "; ".join(problems)[:200]
    view = open_view(browser, url, viewport=size, palette=palette, javascript=False)
    png = shoot(view.page, ".tk-howlink")
    shots.append(Shot("how we know · JavaScript off", palette, png, label(view.page)))
    view.context.close()
    return shots


def plain_states(browser: Browser, url: str, size: str, palette: str) -> list[Shot]:
    view = open_view(browser, url, viewport=size, palette=palette)
    shot = Shot("loaded", palette, screen(view.page), label(view.page))
    view.context.close()
    return [shot]


def sheet(browser: Browser, title: str, shots: list[Shot], width: int) -> bytes:
    """The shots in a grid, one column per palette, one row per state, each labelled."""
    states = list(dict.fromkeys(shot.state for shot in shots))
    scale = 1 if width < 800 else 0.5
    cells = []
    for state in states:
        row = []
        for palette in PALETTES:
            shot = next((s for s in shots if s.state == state and s.palette == palette), None)
            if shot is None:
                row.append("<td></td>")
                continue
            data = base64.b64encode(shot.png).decode()
            note = f" <b>{html.escape(shot.note)}</b>" if shot.note else ""
            row.append(
                f"<td><p>{html.escape(state)} · {palette}{note}</p>"
                f"<img src='data:image/png;base64,{data}' style='width:{width * scale}px'></td>"
            )
        cells.append("<tr>" + "".join(row) + "</tr>")
    page_html = (
        "<!doctype html><style>body{margin:8px;font:13px sans-serif;background:#ccc}"
        "td{vertical-align:top;padding:4px}p{margin:0 0 2px}b{color:#b00}"
        "img{border:1px solid #666;display:block}</style>"
        f"<h1 style='font-size:16px;margin:0 0 6px'>{html.escape(title)}</h1>"
        "<table>" + "".join(cells) + "</table>"
    )
    context = browser.new_context(viewport={"width": 800, "height": 600}, device_scale_factor=1)
    page = context.new_page()
    page.set_content(page_html)
    png = page.screenshot(full_page=True)
    context.close()
    return png


def name_of(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.removesuffix("index.html").lower()).strip("-") or "home"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    parser.add_argument("--engine", choices=ENGINES, default="mkdocs")
    parser.add_argument(
        "--out", type=Path, default=Path(tempfile.gettempdir()) / "trafikist-screens"
    )
    parser.add_argument("--page", action="append", help="a page's path in the site (repeatable)")
    parser.add_argument("--size", action="append", choices=list(VIEWPORTS))
    args = parser.parse_args()
    out: Path = args.out.resolve()
    with tempfile.TemporaryDirectory() as temp:
        site = site_or_build(args.site, Path(temp), args.engine)
        with serve(site) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for path in args.page or PAGES:
                folder = out / name_of(path)
                folder.mkdir(parents=True, exist_ok=True)
                for size in args.size or list(VIEWPORTS):
                    shots: list[Shot] = []
                    for palette in PALETTES:
                        if path == REVIEW:
                            shots += review_states(browser, base + path, size, palette)
                        elif "tk-check" in (site / path).read_text(encoding="utf-8"):
                            shots += question_states(browser, base + path, size, palette)
                        else:
                            shots += plain_states(browser, base + path, size, palette)
                        if "tk-evswitch" in (site / path).read_text(encoding="utf-8"):
                            shots += evidence_states(browser, base + path, size, palette)
                        if 'class="tk-duties"' in (site / path).read_text(encoding="utf-8"):
                            shots += widget_states(browser, base + path, size, palette)
                            shots += widget_states_without_javascript(
                                browser, base + path, size, palette
                            )
                    for shot in shots:
                        state = re.sub(r"[^a-z0-9]+", "-", shot.state.lower())
                        (folder / f"{size}-{shot.palette}-{state}.png").write_bytes(shot.png)
                    width = VIEWPORTS[size]["width"]
                    title = f"{path} · {size} ({width} px) · {args.engine}"
                    target = out / f"sheet-{name_of(path)}-{size}.png"
                    target.write_bytes(sheet(browser, title, shots, width))
                    wide = [f"{s.state} ({s.palette}): {s.note}" for s in shots if s.note]
                    print(f"{target}" + (f"  {'; '.join(wide)}" if wide else ""))
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
