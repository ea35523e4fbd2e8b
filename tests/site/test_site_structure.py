"""The whole site: structure from modules/, links by id, planned pages, no dead link."""

from __future__ import annotations

import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from support import ROOT, article, copy_project, site_build, soup

PLANNED = {
    "trafikist/03-the-job-core-natively/index.html": "The job core, natively",
    "trafikist/03-the-job-core-natively/01-failures-and-recovery/index.html": (
        "Failures and recovery"
    ),
    "trafikist/05-tra-and-native-values/index.html": "TRA and native values",
    "protocol/the-native-module/index.html": "The native module",
    "queue/the-consumer-loop/index.html": "The consumer loop",
    "queue/scheduling-and-recurrence/index.html": "Scheduling and recurrence",
    "bus/the-consumer-group/index.html": "The consumer group",
    "redis-patterns/blocking-vs-polling/index.html": "Blocking vs polling",
}


def test_strict_build_prints_no_warning(engine: str, tmp_path: Path) -> None:
    result = site_build(engine, ROOT, tmp_path / "site")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr


def test_home_presents_books_and_modules_in_order(built_site: Path) -> None:
    """Written pages first, book by book; then the planned ones, book by book, under one
    heading (tests/site/test_reading_order.py holds the order to the pages' statuses)."""
    home = article(soup(built_site / "index.html"))
    books = [h2.get_text() for h2 in home.select("section.tk-book > h2")]
    assert books == ["Modules", "Check yourself", "Command reference", "Not written yet"]
    planned = [h3.get_text() for h3 in home.select("section[data-book=planned] > h3")]
    assert planned == [
        "More modules",
        "The Protocol",
        "The Queue",
        "The Bus pillar",
        "Redis Patterns Applied",
    ]
    modules = home.select_one("section[data-book=trafikist] > ol").find_all("li", recursive=False)
    heads = [m.select_one(".tk-course-entry__head").get_text(" ", strip=True) for m in modules]
    assert heads == ["module 04 Blocking, timers and the bus built"]
    dives = [a.get_text() for a in modules[0].select(".tk-course-entry__dives a")]
    assert dives == ["Who moves time today", "The blocking claim", "The native bus"]
    # The entry's progress line counts every question that module 04 and its dives ask, the
    # ones each page's own header counts, in reading order; the script fills it from the
    # reader's record (hidden until it does).
    checks = modules[0].select_one(".tk-course-entry__checks .tk-checks-progress")
    asked = []
    pages = [modules[0].select_one(".tk-course-entry__head a")]
    pages += modules[0].select(".tk-course-entry__dives a")
    for link in pages:
        page = soup(built_site / posixpath.normpath(unquote(link["href"])) / "index.html")
        asked += page.select_one(".tk-header__checks .tk-checks-progress")["data-checks"].split()
    assert len(asked) >= 20  # 6 on the module's page, the rest in its three dives
    assert checks["data-checks"].split() == asked
    waiting = home.select_one("section[data-book=planned] > ol").find_all("li", recursive=False)
    heads = [m.select_one(".tk-course-entry__head").get_text(" ", strip=True) for m in waiting]
    assert heads == [
        "module 03 The job core, natively planned",
        "module 03 · dive 01 Failures and recovery planned",
        "module 05 TRA and native values planned",
    ]
    assert waiting[0].select_one(".tk-course-entry__checks") is None


@pytest.mark.parametrize("path,title", sorted(PLANNED.items()))
def test_planned_pages_are_marked(built_site: Path, path: str, title: str) -> None:
    page = article(soup(built_site / path))
    assert page.select_one("h1").get_text() == title
    assert page.select_one(".tk-header .tk-badge--planned").get_text() == "planned"
    assert "not written yet" in page.select_one(".tk-planned").get_text()
    assert page.select_one(".tk-planned__summary").get_text().strip()


def test_dive_pages_are_real_pages_with_status(built_site: Path) -> None:
    base = built_site / "trafikist/04-blocking-timers-and-the-bus"
    for folder, title in [
        ("01-who-moves-time-today", "Who moves time today"),
        ("02-the-blocking-claim", "The blocking claim"),
        ("03-the-native-bus", "The native bus"),
    ]:
        page = article(soup(base / folder / "index.html"))
        assert page.select_one("h1").get_text() == title
        assert page.select_one(".tk-kicker").get_text().startswith("Trafikist · module 04 · dive 0")
        assert page.select_one(".tk-header .tk-badge--built").get_text() == "built"


def test_status_badge_wherever_a_page_is_linked(built_site: Path) -> None:
    """Every link to a course page carries the target's status, as a class and a badge."""
    module = article(soup(built_site / "trafikist/04-blocking-timers-and-the-bus/index.html"))
    # A verb's link to its command page is code, not a lesson link: it carries no badge; nor
    # does a choice marker, which is a badge of its own ("model's choice").
    for link in module.select("a.tk-link:not(.tk-verb):not(.tk-choice__mark)"):
        status = link["data-status"]
        has_badge = link.select_one(f".tk-badge--{status}") is not None
        # The header's "review them" leads to the generated review page (Check yourself),
        # which is no lesson, and a question's "run it in the widget" leads to a run of the
        # widget, and the foot's "How we know" leads to the module's generated list of its
        # checked sentences: the status of any of these tells the reader nothing.
        has_badge_nearby = link.find_parent(
            class_=[
                "tk-dive-card",
                "tk-up-next__item",
                "tk-dive-nav__item",
                "tk-course-entry",
                "tk-header__checks",
                "tk-check__run",
                "tk-howlink",
            ]
        )
        assert has_badge or has_badge_nearby, link


def test_no_dead_internal_link(built_site: Path) -> None:
    pages = sorted(built_site.rglob("*.html"))
    assert len(pages) >= 15
    ids: dict[Path, set[str]] = {}
    dead = []
    for page in pages:
        document = soup(page)
        for link in document.select("a[href]"):
            href = link["href"]
            parts = urlsplit(href)
            if parts.scheme or href.startswith(("mailto:", "//")):
                assert parts.scheme in {"http", "https", "mailto"}, f"{page}: {href}"
                continue
            if not parts.path:
                target = page
            elif parts.path.startswith("/"):  # the 404 page links from the site root
                target = built_site / unquote(parts.path).lstrip("/")
            else:
                target = page.parent / unquote(parts.path)
            target = Path(posixpath.normpath(str(target)))
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                dead.append(f"{page.relative_to(built_site)} -> {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = {el["id"] for el in soup(target).select("[id]")}
                if parts.fragment not in ids[target]:
                    dead.append(f"{page.relative_to(built_site)} -> {href} (no such anchor)")
    assert dead == []


def test_unknown_link_id_fails_the_build_with_file_and_line(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    module = project / "modules/04-blocking-timers-and-the-bus/module.md"
    lines = module.read_text(encoding="utf-8").splitlines()
    target = next(i for i, line in enumerate(lines) if line.startswith("## Who moves time"))
    lines.insert(target + 2, "See [the missing page](id:no-such-page) first.")
    module.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = site_build(engine, project, project / "site")
    assert result.returncode != 0
    expected = (
        f"modules/04-blocking-timers-and-the-bus/module.md:{target + 3}: "
        "the link names an unknown id 'no-such-page'."
    )
    assert expected in result.stderr
    assert "Fix:" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "site").exists()


def test_a_worked_example_without_its_scenario_fails_the_build(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    dives = project / "modules/04-blocking-timers-and-the-bus/dives"
    (dives / "01-who-moves-time-today.example.yml").unlink()
    result = site_build(engine, project, project / "site")
    assert result.returncode != 0
    page = dives / "01-who-moves-time-today.md"
    line = page.read_text(encoding="utf-8").splitlines().index("/// worked-example") + 1
    assert (
        f"modules/04-blocking-timers-and-the-bus/dives/01-who-moves-time-today.md:{line}: "
        "'/// worked-example' stands in a dive with no worked example "
        "(01-who-moves-time-today.example.yml). Fix: Write the scenario beside the dive "
        "(NN-slug.example.yml), or remove the block."
    ) in result.stderr
    assert "Traceback" not in result.stderr
