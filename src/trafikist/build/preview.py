"""The authors' preview, whatever the engine: how a failed build shows, and a preview server.

A failed build must not stop the preview or leave the browser waiting: the author sees the
message on the page they are previewing, fixes the file, saves, and the page comes back.

`PreviewServer` serves a built site on 127.0.0.1 for an engine whose own server cannot serve
this site (Zensical's live-reload client is an inline script, which the site's
Content-Security-Policy blocks). Its reload client is a file of the same origin, which the
policy allows: every HTML page it serves loads `/__trafikist/reload.js`, which waits on
`/__trafikist/build` and reloads the page when a new build is in place. (The MkDocs adapter
gives `mkdocs serve` the same client, for the same reason.) While the last build
failed, every HTML address (and every unknown one) answers with the error page instead.
"""

from __future__ import annotations

import functools
import html
import re
import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ERROR_TITLE = "The course does not build"
ERROR_CLASS = "tk-build-error"
FIX_NOTE = "Fix the file named below and save it: this page reloads by itself."
RELOAD_SCRIPT = "__trafikist/reload.js"  # under the site's root, in both engines' previews
BUILD_ENDPOINT = "/__trafikist/build"
WAIT_SECONDS = 25  # one long poll; the client asks again at once
# Asks `data-poll` (which answers once a newer build is in place, or after a while) and reloads
# the page when the answer differs from the build it was served from (`data-build`).
RELOAD_CLIENT = (
    "const { poll, build } = document.currentScript.dataset;\n"
    "async function wait() {\n"
    "  for (;;) {\n"
    "    try {\n"
    '      const answer = await fetch(poll, { cache: "no-store" });\n'
    "      if ((await answer.text()).trim() !== build) return location.reload();\n"
    "    } catch {\n"
    "      await new Promise((resolve) => setTimeout(resolve, 1000));\n"
    "    }\n"
    "  }\n"
    "}\n"
    "wait();\n"
)


def with_reload(page: str, root: str, poll: str, build: str) -> str:
    """A page that loads the reload client (a file of the site's origin, which the page's
    policy allows, where an inline script would be blocked)."""
    tag = f'<script src="{root}{RELOAD_SCRIPT}" data-poll="{poll}" data-build="{build}"></script>'
    at = page.rfind("</body>")
    return page + tag if at < 0 else page[:at] + tag + page[at:]


def error_html(message: str) -> str:
    """The message as a block of HTML: one line per problem, as the terminal prints it."""
    lines = [line for line in message.splitlines() if line.strip()] or ["(no message)"]
    items = "\n".join(f"<li><code>{html.escape(line, quote=False)}</code></li>" for line in lines)
    return (
        f'<div class="{ERROR_CLASS}" role="alert" '
        'style="border:2px solid #c62828;border-radius:4px;padding:0.8em 1.2em;margin:1em 0;'
        'background:#fff5f5;color:#3b0a0a">\n'
        f'<p style="margin:0 0 .5em"><strong>{ERROR_TITLE}.</strong> {FIX_NOTE}</p>\n'
        f'<ul style="margin:0;padding-left:1.2em;white-space:pre-wrap">\n{items}\n</ul>\n</div>\n'
    )


def error_markdown(message: str) -> str:
    """A whole page for the site's theme: front matter, then the message as raw HTML."""
    return f'---\ntitle: "{ERROR_TITLE}"\n---\n\n# {ERROR_TITLE}\n\n{error_html(message)}'


def error_page(message: str) -> str:
    """A standalone page for when the theme itself cannot run."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{ERROR_TITLE}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1"></head>\n'
        '<body style="font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;'
        'padding:0 1em">\n'
        f"<h1>{ERROR_TITLE}</h1>\n{error_html(message)}</body></html>\n"
    )


def insert_after_body(page: str, block: str) -> str:
    """Put a block at the top of an HTML page (the theme's 404 page, for one)."""
    match = re.search(r"<body[^>]*>", page)
    if match is None:
        return block + page
    return page[: match.end()] + "\n" + block + page[match.end() :]


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
        self.http = ThreadingHTTPServer(address, handler)
        self.http.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}/"

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


class _Handler(SimpleHTTPRequestHandler):
    def __init__(self, preview: PreviewServer, *args: object, **kwargs: object) -> None:
        self.preview = preview
        super().__init__(*args, directory=str(preview.folder), **kwargs)  # type: ignore[arg-type]

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == f"/{RELOAD_SCRIPT}":
            return self._send(RELOAD_CLIENT.encode(), "text/javascript")
        if path == BUILD_ENDPOINT:
            after = self.path.partition("after=")[2]
            return self._send(str(self.preview.wait_for_build(after)).encode(), "text/plain")
        target = Path(self.translate_path(path))
        if target.is_dir():
            if not path.endswith("/"):
                return super().do_GET()  # the redirect to the folder's address
            target = target / "index.html"
        if self.preview.error is not None and (target.suffix == ".html" or not target.exists()):
            return self._page(error_page(self.preview.error), 200)
        if target.suffix == ".html" and target.is_file():
            return self._page(target.read_text(encoding="utf-8"), 200)
        if not target.exists() and (Path(self.directory) / "404.html").is_file():
            return self._page((Path(self.directory) / "404.html").read_text("utf-8"), 404)
        return super().do_GET()

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
