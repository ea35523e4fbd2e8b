"""Tested as seen: what a reader sees in Debian's Chromium, measured in the page, not read off
the DOM (an element with `hidden` that a stylesheet overrides is on the screen all the same).

Opening a page as a reader does
- `VIEWPORTS`: "phone" (390x844) and "desktop" (1366x900), CSS px at device scale 1.
- `PALETTES`: the theme's two schemes, "default" (light) and "slate" (dark).
- fixtures `viewport` and `palette` (each test that takes them runs at every size and in both
  palettes), `site_url` (the built course served on 127.0.0.1, once per engine: it takes the
  `engine` fixture, so a test runs under MkDocs and under Zensical), and `reader`: a factory,
  `reader(url, viewport=..., palette=..., javascript=True, storage=None) -> View`, whose
  contexts are closed after the test. Use them from a conftest.py:
  `from support.seen import palette, reader, site_url, viewport  # noqa: F401`.
- `View`: the page (`view.page`) and what it did: console errors, uncaught errors and CSP
  reports. `view.problems()` lists them; `assert_quiet(view)` fails on any.
- The palette is the one the theme shows a reader whose system asks for it
  (prefers-color-scheme, mkdocs.yml's `media`), checked on `<body data-md-color-scheme>`;
  `switch_palette(page, scheme)` (support.gates) uses the header's toggle, and the theme stores
  the choice as a reader's own.
- `storage` preloads the origin's localStorage (a reader's record, say) before the first load.

What the reader sees (each returns what it found, so a failure says what and where; each
`assert_…` fails with that)
- `sideways(page)`, `assert_no_sideways_scroll(page)`: the document's scrollWidth is at most
  its clientWidth; the report also names the boxes that scroll sideways on their own.
- `seen(locator)`, `assert_unseen(locator)`: `element.checkVisibility()` with opacity and
  visibility counted, for every element the locator matches (an answer inside a closed
  <details> is unseen; one whose `hidden` the theme overrides is seen).
- `focus_mark(page, locator)`, `assert_focus_visible(page, locator)`: the control is focused
  from the keyboard (:focus-visible), its box and a margin around it are shot focused and then
  blurred, and the two images are compared in the page: `strong` counts the pixels whose colour
  changed by 3:1 or more (WCAG 2.4.7 and 2.4.11's "change of contrast"); the mark is visible
  when that area is at least the control's perimeter (a 1 px ring all round).
- `tab_order(page, scope)`, `assert_tab_order(page, scope)`: Tab from the top of the page
  reaches every visible control inside `scope` (a CSS selector), in the order read (document
  order; a radio group is one stop).
- `edge_contrast(locator)`, `assert_edges(locator)`: a control's or card's boundary against the
  background next to it (WCAG 1.4.11), computed in the browser: its border (each side that
  has one, composited over what is behind it; the weakest side counts) or its own background,
  whichever stands out more; 3:1 or more.
- `edge_shade(page, locator)`: for each side of a box that scrolls, how far the line of
  pixels just inside it stands from the background (a median: text is sparse there), so a
  test can say the box shows on which sides it has more (a shadow), as a phone shows no
  scroll bar; `SHADED` is the least that is seen.
- `page_colours(page, selector)`: the opaque background behind an element and its text's
  colour over it (#rrggbb), to compare the palette of two pages.
- `text_problems(page, scope)`: every visible text in `scope` is at least 12 px and has 4.5:1
  against its composited background (3:1 when large: 24 px, or 18.66 px bold); `exclude` is a
  selector of text left to another test (a drawing's labels).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright._impl._api_structures import Clip  # the screenshot clip type; not re-exported
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Locator, Page

from support import serve
from support.gates import CSP_LISTENER, PALETTES

VIEWPORTS: dict[str, dict[str, int]] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1366, "height": 900},
}
# What the palettes ask of the system (mkdocs.yml: each palette's `media`).
COLOR_SCHEME = {"default": "light", "slate": "dark"}
NON_TEXT = 3.0  # WCAG 1.4.11 and 2.4.11
TEXT, LARGE_TEXT = 4.5, 3.0  # WCAG 1.4.3
MIN_TEXT_PX = 12.0

__all__ = [
    "PALETTES",
    "SHADED",
    "VIEWPORTS",
    "FocusMark",
    "View",
    "assert_edges",
    "assert_focus_visible",
    "assert_no_sideways_scroll",
    "assert_quiet",
    "assert_tab_order",
    "assert_unseen",
    "edge_contrast",
    "edge_shade",
    "focus_mark",
    "open_view",
    "page_colours",
    "palette",
    "reader",
    "seen",
    "sideways",
    "site_url",
    "tab_order",
    "text_problems",
    "viewport",
]


# -- opening a page ---------------------------------------------------------------------------


@dataclass
class View:
    """One page as a reader has it open, and what it reported while open."""

    page: Page
    context: BrowserContext
    viewport: str
    palette: str
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Console errors, uncaught errors and CSP reports, since the page opened."""
        violations: list[str] = []
        if self.page.evaluate("!!document.documentElement"):
            violations = self.page.evaluate("window.__tkCspViolations || []")
        return (
            [f"console error: {text}" for text in self.console]
            + [f"uncaught error: {text}" for text in self.errors]
            + [f"CSP report: {text}" for text in violations]
        )

    def goto(self, url: str) -> None:
        self.page.goto(url, wait_until="load")


def open_view(
    browser: Browser,
    url: str,
    *,
    viewport: str = "phone",
    palette: str = "default",
    javascript: bool = True,
    storage: dict[str, str] | None = None,
) -> View:
    """Open `url` in a new context at `viewport` in `palette`, service workers blocked (a
    test's page is the page as served), CSP reports and console errors recorded."""
    options: dict[str, Any] = {
        "viewport": VIEWPORTS[viewport],
        "device_scale_factor": 1,
        "color_scheme": COLOR_SCHEME[palette],
        "java_script_enabled": javascript,
        "service_workers": "block",
    }
    if storage:
        origin = "/".join(url.split("/")[:3])
        items = [{"name": name, "value": value} for name, value in storage.items()]
        origins = [{"origin": origin, "localStorage": items}]
        options["storage_state"] = {"cookies": [], "origins": origins}
    context = browser.new_context(**options)
    context.add_init_script(CSP_LISTENER)
    page = context.new_page()
    view = View(page, context, viewport, palette)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            view.console.append(f"{message.text[:300]} ({message.location.get('url', '')})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: view.errors.append(str(error)[:300]))
    view.goto(url)
    if javascript:
        shown = page.locator("body").get_attribute("data-md-color-scheme")
        assert shown == palette, f"asked for the {palette} palette, the page shows {shown}"
    return view


def assert_quiet(view: View) -> None:
    problems = view.problems()
    assert not problems, "\n".join(problems)


@pytest.fixture(params=list(VIEWPORTS))
def viewport(request: pytest.FixtureRequest) -> str:
    """Each size a reader reads at: a phone and a desktop."""
    return str(request.param)


@pytest.fixture(params=PALETTES)
def palette(request: pytest.FixtureRequest) -> str:
    """Each of the theme's palettes: light (default) and dark (slate)."""
    return str(request.param)


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """The course built by the engine under test, served on 127.0.0.1 (a free port)."""
    with serve(built_site) as base:
        yield base


@pytest.fixture
def reader(browser: Browser) -> Iterator[Callable[..., View]]:
    """`reader(url, viewport=..., palette=..., javascript=..., storage=...)`: a page opened as
    a reader has it (open_view); every context it opened is closed after the test."""
    views: list[View] = []

    def open_one(url: str, **options: Any) -> View:
        view = open_view(browser, url, **options)
        views.append(view)
        return view

    yield open_one
    for view in views:
        view.context.close()


# -- colour, computed in the page ------------------------------------------------------------

# Colour arithmetic in the page: parse a computed colour, composite it over another, the
# relative luminance and contrast ratio of WCAG 2.x, and the opaque background behind an
# element (every ancestor's background composited from the canvas down).
COLOUR_JS = """
const parse = (text) => {
  const m = /rgba?\\(([^)]+)\\)/.exec(text || "");
  if (!m) return null;
  const [r, g, b, a = 1] = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
  return [r, g, b, a];
};
const over = (top, below) =>
  [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3])).concat(1);
const channel = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
const ratio = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const behind = (el) => {
  const chain = [];
  for (let node = el; node; node = node.parentElement) chain.unshift(node);
  let colour = [255, 255, 255, 1];
  for (const node of chain) {
    const layer = parse(getComputedStyle(node).backgroundColor);
    if (layer && layer[3] > 0) colour = over(layer, colour);
  }
  return colour;
};
const hex = (c) =>
  "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
  [...el.classList].slice(0, 2).map((name) => "." + name).join("");
"""


# -- no sideways scroll -----------------------------------------------------------------------

SIDEWAYS_JS = """() => ({
  scrollWidth: document.documentElement.scrollWidth,
  clientWidth: document.documentElement.clientWidth,
  widest: [...document.querySelectorAll("body *")]
    .filter((el) => !el.closest(".md-sidebar, .md-search"))  // the theme's off-screen drawers
    .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .filter((el) => el.checkVisibility())
    .slice(0, 8)
    .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}` +
                 ` right=${Math.round(el.getBoundingClientRect().right)}`),
  scrollers: [...document.querySelectorAll("body *")]
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && el.getClientRects().length &&
                    ["auto", "scroll"].includes(getComputedStyle(el).overflowX))
    .map((el) => el.className.baseVal ?? (el.className || el.tagName.toLowerCase())),
})"""


def sideways(page: Page) -> dict[str, Any]:
    """The document's scrollWidth and clientWidth, what sticks out past the viewport's right
    edge (up to eight elements), and the boxes that scroll sideways on their own."""
    found: dict[str, Any] = page.evaluate(SIDEWAYS_JS)
    return found


def assert_no_sideways_scroll(page: Page, where: str = "") -> None:
    found = sideways(page)
    assert found["scrollWidth"] <= found["clientWidth"], (
        f"{where}: the page scrolls sideways: {found['scrollWidth']} px wide in a "
        f"{found['clientWidth']} px viewport; past the edge: {found['widest']}"
    )


# -- hidden means unseen ----------------------------------------------------------------------

SEEN_JS = """(el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })"""


def seen(locator: Locator) -> list[bool]:
    """For each element the locator matches: is it on the screen (checkVisibility)?"""
    return [bool(item.evaluate(SEEN_JS)) for item in locator.all()]


def assert_unseen(locator: Locator, what: str = "") -> None:
    shown = seen(locator)
    assert shown, f"{what or locator}: nothing matches"
    assert not any(shown), f"{what or locator}: {shown.count(True)} of {len(shown)} seen"


# -- visible focus ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FocusMark:
    """What focusing a control changed in its box and the margin around it."""

    changed: int  # pixels whose colour changed at all
    strong: int  # pixels whose colour changed by NON_TEXT (3:1) or more
    needed: int  # the control's perimeter in px: a 1 px ring all round
    best: float  # the largest contrast between a pixel focused and the same pixel blurred

    @property
    def visible(self) -> bool:
        return self.strong >= self.needed


COMPARE_JS = (
    """async ([focused, blurred, floor]) => {"""
    + COLOUR_JS
    + """
  const pixels = async (data) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext("2d");
    context.drawImage(bitmap, 0, 0);
    return context.getImageData(0, 0, bitmap.width, bitmap.height).data;
  };
  const [a, b] = [await pixels(focused), await pixels(blurred)];
  let changed = 0, strong = 0, best = 1;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2]) continue;
    changed += 1;
    const r = ratio([a[i], a[i + 1], a[i + 2]], [b[i], b[i + 1], b[i + 2]]);
    if (r >= floor) strong += 1;
    if (r > best) best = r;
  }
  return { changed, strong, best };
}"""
)


# The length of a 1 px ring round each of an element's boxes (one, or one a line when inline).
PERIMETER_JS = """(el) => [...el.getClientRects()]
  .reduce((sum, rect) => sum + 2 * (rect.width + rect.height), 0)"""


def focus_from_keyboard(page: Page, locator: Locator) -> None:
    """Focus the control as a keyboard reader does (Chromium then matches :focus-visible)."""
    locator.scroll_into_view_if_needed()
    locator.focus()
    # A key press makes the focus a keyboard's: Shift alone moves nothing.
    page.keyboard.press("Shift")
    assert locator.evaluate("(el) => el === document.activeElement && el.matches(':focus-visible')")


def focus_mark(
    page: Page, locator: Locator, margin: int = 6, shown: Locator | None = None
) -> FocusMark:
    """Shoot the control's box (and `margin` px around it) focused from the keyboard and then
    blurred, and compare the two images pixel by pixel. `shown`: what draws the control when
    the control itself is not seen (a radio drawn as its label). A link that wraps is ringed
    line by line: the ring needed is its lines' perimeters, not its whole box's."""
    focus_from_keyboard(page, locator)
    drawn = shown or locator
    box = drawn.bounding_box()
    assert box is not None, f"{locator} has no box"
    clip: Clip = {
        "x": max(box["x"] - margin, 0),
        "y": max(box["y"] - margin, 0),
        "width": box["width"] + 2 * margin,
        "height": box["height"] + 2 * margin,
    }
    focused = page.screenshot(clip=clip, animations="disabled", caret="hide")
    locator.evaluate("(el) => el.blur()")
    page.mouse.move(0, 0)  # no hover either way
    blurred = page.screenshot(clip=clip, animations="disabled", caret="hide")
    found = page.evaluate(
        COMPARE_JS,
        [base64.b64encode(focused).decode(), base64.b64encode(blurred).decode(), NON_TEXT],
    )
    perimeter = round(drawn.evaluate(PERIMETER_JS))
    return FocusMark(int(found["changed"]), int(found["strong"]), perimeter, float(found["best"]))


def assert_focus_visible(page: Page, locator: Locator, what: str = "") -> FocusMark:
    mark = focus_mark(page, locator)
    assert mark.visible, (
        f"{what or locator}: focus changes {mark.strong} px by 3:1 or more (the box's "
        f"perimeter is {mark.needed} px; {mark.changed} px change at all, at most "
        f"{mark.best:.2f}:1)"
    )
    return mark


# Every control inside the scope a reader can reach with Tab, in document order, a radio group
# as one stop (its checked radio, or its first): each marked with data-seen-stop="N".
STOPS_JS = """(scope) => {
  const focusable = "a[href], button, input, select, textarea, summary, [tabindex]";
  const groups = new Set();
  const stops = [];
  for (const root of document.querySelectorAll(scope)) {
    for (const el of root.querySelectorAll(focusable)) {
      if (el.disabled || el.tabIndex < 0) continue;
      if (!el.checkVisibility({ checkVisibilityCSS: true })) continue;
      if (el.type === "radio") {
        const key = (el.form ? "f" : "") + el.name;
        if (groups.has(key)) continue;
        groups.add(key);
        const checked = [...document.querySelectorAll(`input[type=radio]`)]
          .find((other) => other.name === el.name && other.checked);
        stops.push(checked || el);
      } else stops.push(el);
    }
  }
  stops.forEach((el, index) => el.setAttribute("data-seen-stop", String(index)));
  return stops.map((el) => el.outerHTML.slice(0, 100));
}"""


def tab_order(page: Page, scope: str, limit: int = 600) -> tuple[list[str], list[int]]:
    """The controls inside `scope` a reader should reach (outerHTML heads, in document order),
    and the order Tab reached them in, from the top of the page (indexes into the first list;
    a control reached twice is listed twice)."""
    wanted: list[str] = page.evaluate(STOPS_JS, scope)
    page.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    page.locator("body").focus()
    reached: list[int] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        index = page.evaluate(
            "() => document.activeElement?.getAttribute('data-seen-stop') ?? "
            "(document.activeElement === document.body ? 'end' : null)"
        )
        if index == "end":
            break
        if index is not None:
            reached.append(int(index))
            if int(index) == len(wanted) - 1:
                break
    return wanted, reached


def assert_tab_order(page: Page, scope: str) -> None:
    wanted, reached = tab_order(page, scope)
    assert wanted, f"no control inside {scope}"
    missing = [wanted[i] for i in range(len(wanted)) if i not in reached]
    assert not missing, f"Tab never reaches: {missing}"
    assert reached == sorted(reached), f"Tab reaches {scope}'s controls out of order: {reached}"


# -- edges you can see ------------------------------------------------------------------------

EDGE_JS = (
    """(el) => {"""
    + COLOUR_JS
    + """
  const style = getComputedStyle(el);
  const outside = behind(el.parentElement);
  const sides = ["top", "right", "bottom", "left"].map((side) => {
    const width = parseFloat(style[`border-${side}-width`]);
    const colour = parse(style[`border-${side}-color`]);
    if (!(width >= 1) || style[`border-${side}-style`] === "none" || !colour) return 1;
    const under = over(parse(style.backgroundColor) || [0, 0, 0, 0], outside);
    return ratio(over(colour, under), outside);
  });
  const own = parse(style.backgroundColor);
  const fill = own && own[3] > 0 ? ratio(over(own, outside), outside) : 1;
  return { border: Math.min(...sides), fill, outside: hex(outside), what: describe(el),
           colour: style.borderTopColor };
}"""
)


def edge_contrast(locator: Locator) -> list[dict[str, Any]]:
    """For each element the locator matches: its weakest border side's contrast against the
    background outside it (`border`), its own background's (`fill`), and `ratio`, the larger."""
    found = []
    for item in locator.all():
        edge: dict[str, Any] = item.evaluate(EDGE_JS)
        edge["ratio"] = max(edge["border"], edge["fill"])
        found.append(edge)
    return found


def assert_edges(locator: Locator, what: str = "") -> None:
    edges = edge_contrast(locator)
    assert edges, f"{what or locator}: nothing matches"
    weak = [edge for edge in edges if edge["ratio"] < NON_TEXT]
    assert not weak, f"{what or locator}: edges under 3:1: " + "; ".join(
        f"{e['what']} {e['ratio']:.2f}:1 ({e['colour']} on {e['outside']})" for e in weak
    )


# -- readable text ----------------------------------------------------------------------------

TEXT_JS = (
    """([scope, exclude, minPx, text, large]) => {"""
    + COLOUR_JS
    + """
  const found = [];
  const walker = [];
  for (const root of document.querySelectorAll(scope)) {
    const nodes = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = nodes.nextNode(); node; node = nodes.nextNode()) walker.push(node);
  }
  const done = new Set();
  for (const node of walker) {
    const el = node.parentElement;
    if (!el || done.has(el) || !node.textContent.trim()) continue;
    done.add(el);
    if (exclude && el.closest(exclude)) continue;
    if (el.closest("svg, script, style, template, noscript")) continue;
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const own = el.getBoundingClientRect();
    if (own.width < 2 || own.height < 2) continue;  // clipped to a pixel: for screen readers
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue;  // clipped to nothing: for screen readers
    if (el.closest("button:disabled, input:disabled")) continue;  // WCAG exempts inactive controls
    const style = getComputedStyle(el);
    const size = parseFloat(style.fontSize);
    const bold = Number(style.fontWeight) >= 700;
    const isLarge = size >= 24 || (bold && size >= 18.66);
    const background = behind(el);
    const colour = over(parse(style.color), background);
    const contrast = ratio(colour, background);
    const words = node.textContent.trim().replace(/\\s+/g, " ").slice(0, 40);
    if (size < minPx - 0.01) found.push(`${describe(el)} "${words}": ${size.toFixed(1)} px`);
    const floor = isLarge ? large : text;
    if (contrast < floor) {
      found.push(`${describe(el)} "${words}": ${contrast.toFixed(2)}:1 ` +
                 `(${hex(colour)} on ${hex(background)}, needs ${floor}:1)`);
    }
  }
  return found;
}"""
)


def text_problems(page: Page, scope: str = ".md-content", exclude: str = "") -> list[str]:
    """Each visible text in `scope` under 12 px, or under 4.5:1 (3:1 when large) against the
    background composited behind it, as "element "words": what"."""
    found: list[str] = page.evaluate(TEXT_JS, [scope, exclude, MIN_TEXT_PX, TEXT, LARGE_TEXT])
    return found


# -- the palette shown ------------------------------------------------------------------------

PAGE_COLOURS_JS = (
    """(el) => {"""
    + COLOUR_JS
    + """
  const background = behind(el);
  return { background: hex(background),
           text: hex(over(parse(getComputedStyle(el).color), background)) };
}"""
)


def page_colours(page: Page, selector: str) -> dict[str, str]:
    """The opaque background behind the first element `selector` matches and its text's colour
    composited over it, as #rrggbb: what a reader sees of the palette."""
    found: dict[str, str] = page.locator(selector).first.evaluate(PAGE_COLOURS_JS)
    return found


# -- a box that scrolls shows it --------------------------------------------------------------

SHADE_JS = (
    """async ([png, side, box]) => {"""
    + COLOUR_JS
    + """
  const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext("2d");
  context.drawImage(bitmap, 0, 0);
  const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
  const at = (x, y) => data.slice((y * bitmap.width + x) * 4, (y * bitmap.width + x) * 4 + 3);
  // The line of pixels 2 px inside the side, along the side's whole length.
  const line = [];
  if (side === "left" || side === "right") {
    const x = side === "left" ? 2 : box.width - 3;
    for (let y = 0; y < box.height; y += 1) line.push(at(x, y));
  } else {
    const y = side === "top" ? 2 : box.height - 3;
    for (let x = 0; x < box.width; x += 1) line.push(at(x, y));
  }
  const ratios = line.map((pixel) => ratio([...pixel], box.background)).sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)];
}"""
)
# The box's visible part (inside its borders, without scroll bars), in the page, and the
# opaque background behind it.
VIEWPORT_OF_JS = (
    """(el) => {"""
    + COLOUR_JS
    + """
  const rect = el.getBoundingClientRect();
  return { x: rect.left + el.clientLeft, y: rect.top + el.clientTop, width: el.clientWidth,
           height: el.clientHeight, background: behind(el.parentElement) };
}"""
)
SHADED = 1.5  # a shade this far from the background is seen (text is 4.5:1)


def edge_shade(page: Page, locator: Locator) -> dict[str, float]:
    """For each side of a box that scrolls: the median contrast, against the background behind
    the box, of the line of pixels 2 px inside that side of its visible part (most of such a
    line is background, not text). A box that shows it has more on a side shades that side;
    a shade of SHADED or more is seen. The box is first brought whole into the window (a
    screenshot holds only what the window shows)."""
    locator.evaluate("(el) => el.scrollIntoView({ block: 'center', inline: 'nearest' })")
    box = locator.evaluate(VIEWPORT_OF_JS)
    clip: Clip = {"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]}
    png = base64.b64encode(page.screenshot(clip=clip, animations="disabled")).decode()
    page_box = {"width": round(box["width"]), "height": round(box["height"])}
    page_box["background"] = box["background"]
    return {
        side: float(page.evaluate(SHADE_JS, [png, side, page_box]))
        for side in ("left", "right", "top", "bottom")
    }
