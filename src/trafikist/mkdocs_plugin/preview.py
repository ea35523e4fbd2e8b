"""The authors' preview under `mkdocs serve`: what to watch, and how a failed build shows.

A failed build must not stop the server or leave the browser waiting: the author sees the
message on the page they are previewing, fixes the file, saves, and the page comes back.

- A course error (bad YAML, a missing field, an unknown id …) is caught by the plugin at
  on_config: the build goes on with one error page per route of the last good build, themed
  like the site, so every open tab reloads onto the message. This works for the first build too.
- Any other failure (a strict-mode warning, an error in a later build step) is caught around
  mkdocs' builder (`wrap_builder`): it writes a plain error page over every route and returns,
  so mkdocs' live reload moves on instead of holding every request until a good build.
"""

from __future__ import annotations

import html
import logging
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.plugins.trafikist")

ERROR_TITLE = "The course does not build"
ERROR_CLASS = "tk-build-error"
FIX_NOTE = "Fix the file named below and save it: this page reloads by itself."


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


def routes_of(site_dir: Path) -> list[Path]:
    """Every HTML page in a built site, relative to it."""
    found = []
    for folder, _, names in os.walk(site_dir):
        for name in names:
            if name.endswith(".html"):
                found.append(Path(folder, name).relative_to(site_dir))
    return found


class _Collect(logging.Handler):
    """Keeps the warnings and errors mkdocs logs during one build, for the error page."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def collected() -> Iterator[_Collect]:
    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def wrap_builder(server: Any, routes: Callable[[], list[Path]]) -> None:
    """Replace the live-reload server's builder with one that never fails.

    `routes` gives the pages of the last good build (relative paths of .html files); a failed
    build writes the error over each of them and over 404.html, which mkdocs serves for any
    unknown address, so whatever page the author has open shows it.
    """
    original = server.builder
    if getattr(original, "trafikist_wrapped", False):
        return

    def builder(config: Any = None) -> None:
        with collected() as logged:
            try:
                original() if config is None else original(config)
                return
            except (Exception, SystemExit) as error:  # mkdocs' Abort is a SystemExit
                failure = error
        # Why no traceback: the author's mistake is in the logged messages; the exception
        # only says that the build stopped.
        message = "\n".join([*logged.messages, str(failure)])
        site_dir = Path(server.root)
        page = error_page(message)
        for route in {*routes(), Path("index.html"), Path("404.html")}:
            target = site_dir / route
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(page, encoding="utf-8")
        log.error(
            "The preview shows this error on every page; the next save that fixes it reloads them."
        )

    builder.trafikist_wrapped = True  # type: ignore[attr-defined]
    server.builder = builder
