"""The Zensical adapter's preview server: a built site on 127.0.0.1, with reload.

Zensical's own server cannot serve this site: its live-reload client is an inline script, which
the site's Content-Security-Policy blocks. `PreviewServer` serves each new build from its folder
and answers the core's reload client (trafikist.core.preview): every HTML page it serves loads
`/__trafikist/reload.js`, which waits on `/__trafikist/build` and reloads the page when a new
build is in place. While the last build failed, every HTML address (and every unknown one)
answers with the last good page there, the message in place of its content.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from trafikist.core.preview import (
    PREVIEW_CSS,
    PREVIEW_STYLE,
    RELOAD_CLIENT,
    RELOAD_SCRIPT,
    error_page,
    with_error,
    with_reload,
)

BUILD_ENDPOINT = "/__trafikist/build"
WAIT_SECONDS = 25  # one long poll; the client asks again at once


class PreviewServer:
    """A built site served with reload; `publish` puts a new build (or a failure) in place."""

    def __init__(self, address: tuple[str, int], empty: Path) -> None:
        """`empty`: an empty folder, served until a first build is in place."""
        empty.mkdir(parents=True, exist_ok=True)
        self.folder = empty
        self.error: str | None = None
        self.build = 0
        self.changed = threading.Condition()
        handler = functools.partial(_Handler, self)
        self.http = _Server(address, handler)

    @property
    def url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> None:
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def publish(self, folder: Path | None, error: str | None = None) -> Path | None:
        """Serve `folder` (a new good build), or keep the last one and show `error`. Returns
        the folder served before, which the caller may now delete."""
        with self.changed:
            previous = None
            if folder is not None:
                previous, self.folder = self.folder, folder
            self.error = error
            self.build += 1
            self.changed.notify_all()
        return previous

    def wait_for_build(self, after: str) -> int:
        with self.changed:
            self.changed.wait_for(lambda: str(self.build) != after, timeout=WAIT_SECONDS)
            return self.build

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


# A browser that leaves a page (or reloads it) drops the page's pending reload poll: the
# answer then meets a closed connection. That is the poll's normal end, not an error.
GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exception(), GONE):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]  # typeshed: private


class _Handler(SimpleHTTPRequestHandler):
    def __init__(self, preview: PreviewServer, *args: object, **kwargs: object) -> None:
        self.preview = preview
        # The server's own arguments, passed through as it gave them.
        super().__init__(*args, directory=str(preview.folder), **kwargs)  # type: ignore[arg-type]

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == f"/{RELOAD_SCRIPT}":
            return self._send(RELOAD_CLIENT.encode(), "text/javascript")
        if path == f"/{PREVIEW_STYLE}":
            return self._send(PREVIEW_CSS.encode(), "text/css")
        if path == BUILD_ENDPOINT:
            after = self.path.partition("after=")[2]
            return self._send(str(self.preview.wait_for_build(after)).encode(), "text/plain")
        target = Path(self.translate_path(path))
        if target.is_dir():
            if not path.endswith("/"):
                return super().do_GET()  # the redirect to the folder's address
            target = target / "index.html"
        if self.preview.error is not None and (target.suffix == ".html" or not target.exists()):
            return self._page(self._error_page(target), 200)
        if target.suffix == ".html" and target.is_file():
            return self._page(target.read_text(encoding="utf-8"), 200)
        if not target.exists() and (Path(self.directory) / "404.html").is_file():
            return self._page((Path(self.directory) / "404.html").read_text("utf-8"), 404)
        return super().do_GET()

    def _error_page(self, target: Path) -> str:
        """The last good build's page at that address (or its 404 page), its content replaced
        by the message: the theme's look, navigation and scripts stay. The standalone page
        before any build has succeeded."""
        assert self.preview.error is not None
        for page in (target, Path(self.directory) / "404.html"):
            if page.suffix == ".html" and page.is_file():
                return with_error(page.read_text(encoding="utf-8"), self.preview.error)
        return error_page(self.preview.error)

    def _page(self, page: str, status: int) -> None:
        build = str(self.preview.build)
        page = with_reload(page, "/", f"{BUILD_ENDPOINT}?after={build}", build)
        self._send(page.encode("utf-8"), "text/html; charset=utf-8", status)

    def _send(self, body: bytes, kind: str, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


def watch(
    paths: Callable[[], list[Path]],
    signature: Callable[[list[Path]], str],
    on_change: Callable[[], None],
    stop: threading.Event,
    last: str,
    interval: float = 0.1,
) -> None:
    """Call `on_change` each time the files under `paths` differ from the signature `last`,
    until `stop` is set (`last` is taken before the build it follows, so a save during that
    build is not missed). A change is built once the files have stood still for `interval`:
    an editor that truncates a file, then writes it, is not caught half-way."""
    while not stop.wait(interval):
        now = signature(paths())
        if now == last:
            continue
        while not stop.wait(interval):
            settled = signature(paths())
            if settled == now:
                break
            now = settled
        last = now
        on_change()
