"""The way in leads to written pages: the navigation's headings open written pages, planned
pages come after every written one and are marked, no "Next" leads into a planned page while a
written one remains, and the home page lists what is written first. Under each engine."""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from support import MODULE_04, article, serve, soup

HOME = "index.html"
# The last page of the reading order that is written: no written lesson follows it.
LAST_WRITTEN_LESSON = f"{MODULE_04.rsplit('/', 1)[0]}/03-the-native-bus/index.html"
PLANNED_HEADING = "Not written yet"


def target_file(site: Path, page: str, href: str) -> str:
    """The HTML file (relative to the site) that a link of `page` leads to."""
    path = urlsplit(href).path
    folder = posixpath.dirname(page)
    target = posixpath.normpath(posixpath.join(folder, path)) if path else page
    if target == ".":
        target = ""
    if not target.endswith(".html"):
        target = posixpath.join(target, "index.html")
    assert (site / target).is_file(), f"{page} -> {href}"
    return target


def written(site: Path, page: str) -> bool:
    """A written page: its header carries no "planned" badge and no planned note."""
    content = article(soup(site / page))
    return content.select_one(".tk-planned, .tk-header .tk-badge--planned") is None


def nav_links(site: Path, page: str) -> list[tuple[str, object]]:
    """The primary navigation's links, in order: (target file, the link element)."""
    nav = soup(site / page).select_one("nav.md-nav--primary")
    return [
        (target_file(site, page, link["href"]), link) for link in nav.select("a.md-nav__link[href]")
    ]


def test_navigation_headings_open_written_pages(built_site: Path) -> None:
    """A heading that is a link (the theme makes a section's index page its heading) opens a
    written page; no page leaves the list for a heading it should not be."""
    for page in (HOME, MODULE_04):
        nav = soup(built_site / page).select_one("nav.md-nav--primary")
        headings = nav.select(".md-nav__container > a.md-nav__link[href]")
        assert headings, "module 04 opens from its heading"
        for link in headings:
            target = target_file(built_site, page, link["href"])
            assert written(built_site, target), f"the heading {link.get_text()!r} opens {target}"
        # Every page of the site is in the navigation: none hides behind a heading. A module's
        # "How we know" is out of it by design (every sentence again; its pages link to it).
        listed = {target for target, _ in nav_links(built_site, page)}
        pages = {
            path.relative_to(built_site).as_posix()
            for path in built_site.rglob("index.html")
            if path.parent != built_site / "search"
            and not path.relative_to(built_site).as_posix().startswith("how-we-know/")
        }
        assert pages - listed == set()


def test_planned_pages_come_last_and_marked(built_site: Path) -> None:
    links = nav_links(built_site, HOME)
    statuses = [written(built_site, target) for target, _ in links]
    first_planned = statuses.index(False)
    assert all(statuses[:first_planned]) and not any(statuses[first_planned:]), [
        (target, state) for (target, _), state in zip(links, statuses, strict=True)
    ]
    for target, link in links[first_planned:]:
        # Marked twice: under the one heading of pages not written yet, and by the theme's
        # status mark, which names the status in words.
        section = link.find_parent("li", class_="md-nav__item--section")
        assert section is not None and PLANNED_HEADING in section.find(
            class_="md-nav__link"
        ).get_text(" ", strip=True), target
        mark = link.select_one(".md-status--planned")
        assert mark is not None and mark["title"] == "Planned, not written yet", target


def footer_next(site: Path, page: str) -> str | None:
    link = soup(site / page).select_one("a.md-footer__link--next")
    return target_file(site, page, link["href"]) if link else None


def test_no_next_leads_into_a_stub_while_a_written_page_remains(built_site: Path) -> None:
    """The footer's "Next", followed from the home page, meets every written page before any
    planned one; and every "Next" of a written page's content (its "Up next", a dive's next)
    leads to a written page while the reading order holds one after it. The last written
    lesson's "Next" is the next lesson, and says that it is planned."""
    order = [HOME]
    while (following := footer_next(built_site, order[-1])) is not None:
        assert following not in order
        order.append(following)
    states = [written(built_site, page) for page in order]
    assert False in states
    assert not any(states[states.index(False) :]), list(zip(order, states, strict=True))
    assert set(order) == {target for target, _ in nav_links(built_site, HOME)}
    for page in order:
        if not written(built_site, page):
            continue
        for link in article(soup(built_site / page)).select('a[rel="next"]'):
            target = target_file(built_site, page, link["href"])
            if written(built_site, target):
                continue
            assert page == LAST_WRITTEN_LESSON, f"{page}: 'next' leads to {target}"
            badge = link.find_next_sibling("span")
            assert badge is not None and "tk-badge--planned" in badge["class"], page


def test_home_lists_written_modules_first(built_site: Path) -> None:
    home = article(soup(built_site / HOME))
    entries = home.select("li.tk-course-entry[data-page]")
    states = ["tk-course-entry--built" in entry["class"] for entry in entries]
    assert False in states
    assert not any(states[states.index(False) :])
    modules = [entry for entry in entries if "module" in entry.get_text()]
    assert modules[0]["data-page"] == "blocking-timers-and-the-bus"
    for entry in entries[states.index(False) :]:
        assert entry.select_one(".tk-badge--planned").get_text() == "planned"


def test_module_04_up_next(built_site: Path) -> None:
    """← is the previous lesson and comes first (left), → the next; each card's badge is the
    status of the page it links to on this site."""
    up_next = article(soup(built_site / MODULE_04)).select_one("nav.tk-up-next")
    items = up_next.select(".tk-up-next__item")
    assert [item.select_one(".tk-up-next__arrow").get_text() for item in items] == ["←", "→"]
    assert [item.select_one("a")["rel"] for item in items] == [["prev"], ["next"]]
    for item in items:
        target = target_file(built_site, MODULE_04, item.select_one("a")["href"])
        badge = item.select_one(".tk-badge").get_text()
        assert badge == ("built" if written(built_site, target) else "planned"), target


@pytest.mark.parametrize("width", [390, 1366])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_home_page_names_the_course_twice_at_most(
    built_site: Path, browser, width: int, scheme: str
) -> None:
    """The site's name in the header, and the home page's heading: the navigation's title and
    the numbered book's heading do not repeat it."""
    with serve(built_site) as base:
        context = browser.new_context(
            viewport={"width": width, "height": 900}, color_scheme=scheme, service_workers="block"
        )
        page = context.new_page()
        page.goto(base, wait_until="load")
        seen = page.evaluate(
            """() => [...document.querySelectorAll("body *")].filter((el) =>
                [...el.childNodes].some(
                  (node) => node.nodeType === 3 && node.textContent.trim() === "Trafikist")
                && el.checkVisibility({ visibilityProperty: true, opacityProperty: true })
                && el.getBoundingClientRect().top < innerHeight
                && el.getBoundingClientRect().bottom > 0
                && el.getBoundingClientRect().left < innerWidth
                && el.getBoundingClientRect().right > 0
              ).map((el) => el.className || el.tagName)"""
        )
        assert len(seen) <= 2, seen
        if width == 1366:
            # Up next: the previous lesson on the left, the next on the right.
            page.goto(base + MODULE_04, wait_until="load")
            boxes = page.evaluate(
                """() => [...document.querySelectorAll(".tk-up-next__item")].map((item) => ({
                    arrow: item.querySelector(".tk-up-next__arrow").textContent,
                    left: item.getBoundingClientRect().left }))"""
            )
            assert [box["arrow"] for box in sorted(boxes, key=lambda b: b["left"])] == ["←", "→"]
        context.close()
