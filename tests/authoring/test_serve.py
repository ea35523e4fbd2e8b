"""The preview loop under each engine's real preview (`mkdocs serve`, `trafikist serve --engine
zensical`): an edit is served; a broken file shows its error on the page being previewed while
the server keeps running; the fix brings the page back with no restart."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from support import SEARCH_INDEX, copy_project, edit
from support.authoring import MODULE_04, fetch, site_serve, wait_until

pytestmark = pytest.mark.slow

PAGE = "trafikist/04-blocking-timers-and-the-bus/"
ERROR = "The course does not build"

BAD_STATUS = "'status' is 'bilt', not one of 'built' or 'planned'. Fix: Write one of"


def test_edit_break_and_fix_under_serve(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    module = project / MODULE_04 / "module.md"
    with site_serve(engine, project) as (base, process):
        url = base + PAGE
        wait_until(url, lambda text: "Who moves time today" in text)

        # An edit is served.
        marker = "A marker sentence for the serve test."
        edit(module, "## Who moves time today\n", f"## Who moves time today\n\n{marker}\n")
        wait_until(url, lambda text: marker in text)

        # A broken file: the error shows on the page being previewed, with file, line and fix.
        line = edit(module, "status: built\n", "status: bilt\n")
        page = wait_until(url, lambda text: ERROR in text)
        assert (
            f"modules/04-blocking-timers-and-the-bus/module.md:{line}: {BAD_STATUS}"
            in html.unescape(page)
        )
        assert "Fix: Write one of 'built' or 'planned'." in html.unescape(page)
        assert "Traceback" not in page
        # Every other page of the site shows it too, and so do addresses that do not exist.
        assert ERROR in wait_until(base, lambda text: ERROR in text)
        assert ERROR in wait_until(base + "no/such/page/", lambda text: ERROR in text)
        assert process.poll() is None, "the server stopped"

        # The fix brings the page back, with the earlier edit, and no restart.
        edit(module, "status: bilt\n", "status: built\n")
        page = wait_until(url, lambda text: ERROR not in text and marker in text)
        assert "Who moves time today" in page
        assert process.poll() is None

    log = (project / "serve.log").read_text(encoding="utf-8")
    assert BAD_STATUS in log
    assert "Traceback" not in log


def test_a_failure_outside_the_course_shows_too(engine: str, tmp_path: Path) -> None:
    """A dead link in docs/ (a strict-mode warning under MkDocs, the link check under Zensical)
    aborts the rebuild; the preview shows it instead of holding every request, and the fix
    recovers."""
    project = copy_project(tmp_path / "project")
    docs = sorted((project / "docs").glob("*.md"))[0]
    original = docs.read_text(encoding="utf-8")
    with site_serve(engine, project) as (base, process):
        url = base + PAGE
        wait_until(url, lambda text: "Who moves time today" in text)
        docs.write_text(original + "\nSee [the missing page](no-such-page.md).\n")
        page = wait_until(url, lambda text: ERROR in text)
        assert "no-such-page.md" in page
        assert process.poll() is None
        docs.write_text(original)
        wait_until(url, lambda text: ERROR not in text and "Who moves time today" in text)


def test_serve_starts_on_a_broken_course_and_recovers(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    module = project / MODULE_04 / "module.md"
    edit(module, "status: built\n", "status: bilt\n")
    with site_serve(engine, project) as (base, process):
        page = wait_until(base, lambda text: ERROR in text)
        assert BAD_STATUS in html.unescape(page)
        assert process.poll() is None
        edit(module, "status: bilt\n", "status: built\n")
        wait_until(base + PAGE, lambda text: "Who moves time today" in text and ERROR not in text)


@pytest.mark.browser
def test_an_open_page_reloads_itself_under_its_policy(engine: str, tmp_path: Path, browser) -> None:
    """In Chromium, the page the author has open reloads onto a save by itself: the reload
    client is a file of the site, which the page's Content-Security-Policy allows (an inline
    one, as both engines' own previews inject, is blocked)."""
    project = copy_project(tmp_path / "project")
    module = project / MODULE_04 / "module.md"
    with site_serve(engine, project) as (base, _):
        url = base + PAGE
        wait_until(url, lambda text: "Who moves time today" in text)
        page = browser.new_page()
        blocked: list[str] = []
        page.on("console", lambda message: blocked.append(message.text))
        page.goto(url, wait_until="load")
        assert page.locator("meta[http-equiv='Content-Security-Policy']").count() == 1
        marker = "A sentence the open page shows after its reload."
        edit(module, "## Who moves time today\n", f"## Who moves time today\n\n{marker}\n")
        expect(page.locator("article")).to_contain_text(marker, timeout=90_000)
        page.close()
    assert not [text for text in blocked if "Content Security Policy" in text], blocked


def test_the_preview_serves_the_authors_pages_apart(engine: str, tmp_path: Path) -> None:
    """docs/ is the authors' and developers': the preview serves it under authors/, with an
    index of its pages, and keeps it out of the readers' navigation and search index."""
    project = copy_project(tmp_path / "project")
    with site_serve(engine, project) as (base, process):
        index = wait_until(base + "authors/", lambda text: "For authors and developers" in text)
        for path in sorted((project / "docs").glob("*.md")):
            assert f'href="{path.stem}/"' in index, path.name
            title = path.read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")
            assert title in fetch(base + f"authors/{path.stem}/"), path.name
        search = json.loads(fetch(base + SEARCH_INDEX[engine]))
        items = search["docs"] if engine == "mkdocs" else search["items"]
        assert items and not [item for item in items if "authors/" in item["location"]]
        module = fetch(base + PAGE)
        assert "Who moves time today" in module and 'href="../../authors/' not in module
        assert process.poll() is None


@pytest.mark.browser
def test_a_browser_leaving_during_a_reload_poll_prints_no_traceback(
    engine: str, tmp_path: Path, browser
) -> None:
    """Every page waits on a reload poll; a browser that leaves the page drops it. The answer
    then meets a closed connection, which the preview lets go quietly."""
    project = copy_project(tmp_path / "project")
    module = project / MODULE_04 / "module.md"
    with site_serve(engine, project) as (base, process):
        wait_until(base + PAGE, lambda text: "Who moves time today" in text)
        page = browser.new_page()
        for address in (PAGE, "", PAGE, "review/", PAGE):
            page.goto(base + address, wait_until="load")
            page.wait_for_timeout(300)  # its poll is waiting; the next page drops it
        marker = "A sentence that answers every waiting poll."
        edit(module, "## Who moves time today\n", f"## Who moves time today\n\n{marker}\n")
        wait_until(base + PAGE, lambda text: marker in text)
        page.wait_for_timeout(1000)
        page.close()
        assert process.poll() is None
    log = (project / "serve.log").read_text(encoding="utf-8")
    assert "Traceback" not in log and "BrokenPipeError" not in log, log[-3000:]
