"""The readers' search holds the course's prose: no page of the project's own documentation
(docs/ is the authors' and developers', served by the preview alone), and no label of a drawn
run or row of a trace (both engines' search leaves out what carries `data-search-exclude`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support import ROOT, SEARCH_INDEX, add_plugin_options, copy_project, site_build, soup

# Text only a drawn run or a trace puts on a page: the timeline's axis and lanes, its caption,
# the trace's summary and header row.
DIVES = ("01-who-moves-time-today", "02-the-blocking-claim", "03-the-native-bus")
DRAWN = ("0 s1 s2 s", "schedulepending", "Ran promote-due:", "Trace ·", "t (s)")


def index_items(site: Path, engine: str) -> list[dict]:
    data = json.loads((site / SEARCH_INDEX[engine]).read_text(encoding="utf-8"))
    return data["docs"] if engine == "mkdocs" else data["items"]


def page_of(location: str) -> str:
    return location.split("#", 1)[0]


def test_the_authors_pages_are_not_in_the_readers_site(built_site: Path) -> None:
    stems = sorted(path.stem for path in (ROOT / "docs").glob("*.md"))
    assert "authoring" in stems and "architecture" in stems
    for name in [*stems, "authors"]:
        assert not (built_site / name).exists(), name
    nav = soup(built_site / "index.html").select_one("nav.md-nav--primary").get_text(" ")
    assert "About this site" not in nav and "Writing the course" not in nav


def test_the_index_holds_the_course_pages_only(built_site: Path, engine: str) -> None:
    items = index_items(built_site, engine)
    assert len(items) > 50
    pages = {page_of(item["location"]) for item in items}
    for page in pages:
        file = built_site / page / "index.html" if not page.endswith(".html") else built_site / page
        assert file.is_file(), page
        assert soup(file).select_one("article .tk-header, article .tk-title"), page
    # Searching BLPOP finds lessons, not the authors' guide.
    found = {page_of(item["location"]) for item in items if "BLPOP" in item["text"]}
    assert found and all(page.startswith(("trafikist/", "reference/", "review")) for page in found)


def test_the_index_holds_no_drawn_run_and_no_trace(built_site: Path, engine: str) -> None:
    items = index_items(built_site, engine)
    for item in items:
        for text in DRAWN:
            assert text not in item["text"], (item["location"], text)
    # What was left out is on the pages (Zensical drops the attribute once it has read it):
    # the runs are drawn, and the prose around them is searched.
    module = soup(built_site / "trafikist/04-blocking-timers-and-the-bus/index.html")
    assert module.select("figure.tk-run__figure svg")
    assert module.select("details.tk-trace")  # its rows come from the run's own page
    assert any("a due job stays in schedule" in item["text"] for item in items)


def test_the_authors_pages_build_apart_on_request(engine: str, tmp_path: Path) -> None:
    """The option `authors_pages` builds them as the preview serves them: under authors/, each
    link of theirs checked by a strict build, out of the navigation and the search index."""
    project = copy_project(tmp_path / "project")
    add_plugin_options(project, authors_pages="true")
    site = tmp_path / "site"
    result = site_build(engine, project, site)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    index = soup(site / "authors/index.html")
    listed = {link["href"] for link in index.select("article a[href]")}
    for path in sorted((ROOT / "docs").glob("*.md")):
        assert f"{path.stem}/" in listed, path.name
        assert (site / "authors" / path.stem / "index.html").is_file()
    assert not [i for i in index_items(site, engine) if "authors/" in i["location"]]
    nav = soup(site / "index.html").select_one("nav.md-nav--primary")
    assert not nav.select('a[href*="authors/"]')


def test_the_prose_after_a_run_is_searched(built_site: Path, engine: str) -> None:
    """Leaving a trace out ends where the trace ends: the sections after a drawn run are in the
    index, under both engines (Zensical's exclusion ran on to the page's end while the trace's
    cells had no end tags). The page the reader gets still leaves those end tags out."""
    texts = {item["location"]: item["text"] for item in index_items(built_site, engine)}
    module = "trafikist/04-blocking-timers-and-the-bus/"
    assert "EchoMQ.Bus" in texts[f"{module}#the-bus-composed-from-built-ins"]
    for page in (module, *(f"{module}{dive}/" for dive in DIVES)):
        assert "Valkey — " in texts[f"{page}#sources"], page
        html = (built_site / page / "index.html").read_text(encoding="utf-8")
        tables = re.findall(r'<table class="tk-trace__table">.*?</table>', html, re.S)
        # The module's duties keep their traces' rows on the runs' own pages.
        assert tables or page == module, page
        assert not any(re.search(r"</t[dhr]>", table) for table in tables), page
