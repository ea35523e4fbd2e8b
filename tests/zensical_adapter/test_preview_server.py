"""The preview server both engines' previews rely on (trafikist.core.preview): a build
switched in at once, its reload client, and a failure shown on every page."""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from trafikist.core.cache import files_signature
from trafikist.core.preview import ERROR_TITLE, PREVIEW_STYLE, RELOAD_SCRIPT
from trafikist.zensical_adapter.preview import PreviewServer, watch


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def site(folder: Path, text: str) -> Path:
    (folder / "page").mkdir(parents=True)
    (folder / "index.html").write_text(f"<html><body>{text}</body></html>")
    (folder / "page" / "index.html").write_text(f"<html><body>page {text}</body></html>")
    (folder / "404.html").write_text("<html><body>not here</body></html>")
    (folder / "style.css").write_text("a{}")
    return folder


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PreviewServer]:
    preview = PreviewServer(("127.0.0.1", 0), tmp_path / "empty")
    preview.start()
    yield preview
    preview.close()


def test_pages_load_the_reload_client_and_a_new_build_replaces_the_old(
    server: PreviewServer, tmp_path: Path
) -> None:
    server.publish(site(tmp_path / "one", "first"))
    status, page = get(server.url + "page/")
    assert status == 200 and "page first" in page
    assert f'<script src="/{RELOAD_SCRIPT}" data-poll="/__trafikist/build?after=1"' in page
    assert page.index(RELOAD_SCRIPT) < page.index("</body>")
    assert get(server.url + "style.css") == (200, "a{}")  # other files as they are
    assert get(server.url + "nowhere/")[0] == 404
    status, client = get(server.url + RELOAD_SCRIPT)
    assert status == 200 and "location.reload()" in client
    # The error message's look: the preview's pages load it, the readers' stylesheet does not.
    assert f'<link rel="stylesheet" href="/{PREVIEW_STYLE}">' in page
    status, style = get(server.url + PREVIEW_STYLE)
    assert status == 200 and ".md-typeset .tk-build-error {" in style
    # The client's long poll answers as soon as a newer build is in place.
    answer: list[str] = []
    poll = threading.Thread(
        target=lambda: answer.append(get(server.url + "__trafikist/build?after=1")[1])
    )
    poll.start()
    time.sleep(0.2)
    old = server.publish(site(tmp_path / "two", "second"))
    poll.join(timeout=10)
    assert answer == ["2"] and old == tmp_path / "one"
    assert "page second" in get(server.url + "page/")[1]


def test_a_failed_build_shows_on_every_page_until_the_next_good_one(
    server: PreviewServer, tmp_path: Path
) -> None:
    server.publish(site(tmp_path / "one", "first"))
    message = "modules/x.md:3: unknown status 'bilt'. Fix: Use one of: built, planned."
    assert server.publish(None, message) is None  # the last good build stays on disk
    for path in ("", "page/", "no/such/page/"):
        status, page = get(server.url + path)
        assert status == 200 and ERROR_TITLE in page and message in page, path
        assert RELOAD_SCRIPT in page
    assert get(server.url + "style.css") == (200, "a{}")
    server.publish(site(tmp_path / "two", "fixed"))
    assert ERROR_TITLE not in get(server.url)[1]


def test_the_watch_sees_a_save_made_while_the_first_build_ran(tmp_path: Path) -> None:
    source = tmp_path / "modules" / "module.md"
    source.parent.mkdir()
    source.write_text("one")
    before = files_signature([source.parent])
    source.write_text("two, saved during the first build")
    calls: list[int] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=watch,
        args=(lambda: [source.parent], files_signature, lambda: calls.append(1), stop, before),
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not calls and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join()
    assert calls == [1]


def test_the_watch_builds_a_save_once_it_is_whole(tmp_path: Path) -> None:
    """An editor that writes a file in two steps gets one rebuild, of the whole file, even when
    a poll falls between the steps (the watch polls at 0, 0.5, 1.0 … s; the steps come at 0.4
    and 0.6 s)."""
    source = tmp_path / "module.md"
    source.write_text("before")
    seen: list[str] = []
    stop = threading.Event()
    before = files_signature([source])
    thread = threading.Thread(
        target=watch,
        args=(lambda: [source], files_signature, lambda: seen.append(source.read_text()), stop),
        kwargs={"last": before, "interval": 0.5},
    )
    thread.start()
    time.sleep(0.4)
    source.write_text("")  # truncated: what the poll at 0.5 s finds
    time.sleep(0.2)
    source.write_text("the whole file")
    time.sleep(2.5)  # room for a second, wrong rebuild
    stop.set()
    thread.join()
    assert seen == ["the whole file"]
