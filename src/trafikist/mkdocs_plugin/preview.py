"""The authors' preview under `mkdocs serve`: how a failed build shows (the error pages
themselves are the core's, trafikist.core.preview).

- A course error (bad YAML, a missing field, an unknown id …) is caught by the plugin at
  on_config: the build goes on with one error page per route of the last good build, themed
  like the site, so every open tab reloads onto the message. This works for the first build too.
- Any other failure (a strict-mode warning, an error in a later build step) is caught around
  mkdocs' builder (`wrap_builder`): it puts the message in place of the content of every page
  the build wrote (a plain error page where it wrote none) and returns, so mkdocs' live
  reload moves on instead of holding every request until a good build.
- mkdocs' live reload is an inline script in every page, which the pages' policy blocks: the
  page would never reload. `reload_from_a_file` makes the server load the core's reload client
  from a file of the site instead, polling mkdocs' own reload endpoint.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from trafikist.base.errors import CourseError
from trafikist.core.files import site_target
from trafikist.core.preview import error_page, with_error, with_reload

if TYPE_CHECKING:
    from mkdocs.livereload import LiveReloadServer

log = logging.getLogger("mkdocs.plugins.trafikist")


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


def wrap_builder(server: LiveReloadServer, routes: Callable[[], list[Path]]) -> None:
    """Replace the live-reload server's builder with one that never fails.

    `routes` gives the pages of the last good build (relative paths of .html files); a failed
    build writes the error over each of them and over 404.html, which mkdocs serves for any
    unknown address, so whatever page the author has open shows it.
    """
    # MkDocs calls it with no argument, or with the config (mkdocs 1.6's serve: both).
    original: Callable[..., None] = server.builder
    if getattr(original, "trafikist_wrapped", False):
        return

    def builder(config: object = None) -> None:
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
        for route in {*routes(), Path("index.html"), Path("404.html")}:
            try:
                target = site_target(site_dir, route.as_posix())
            except CourseError:
                continue  # no page of the site: nothing to write over
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_error_over(target, message), encoding="utf-8")
        log.error(
            "The preview shows this error on every page; the next save that fixes it reloads them."
        )

    builder.trafikist_wrapped = True  # type: ignore[attr-defined]  # a mark: wrapped once
    server.builder = builder


def _error_over(target: Path, message: str) -> str:
    """The page the failed build wrote there, its content replaced by the message (the theme's
    look and scripts stay), or the standalone error page where it wrote none."""
    try:
        written = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        written = ""
    return with_error(written, message) if "<article" in written else error_page(message)


def reload_from_a_file(server: LiveReloadServer) -> None:
    """Inject `<script src=…/__trafikist/reload.js>` where mkdocs injects its inline script
    (`LiveReloadServer._inject_js_into_html`, mkdocs 1.6)."""
    counter = iter(range(1, 1 << 62))

    def inject(content: bytes, epoch: int) -> bytes:
        poll = f"/livereload/{epoch}/{next(counter)}"
        page = with_reload(content.decode("utf-8"), server.mount_path, poll, str(epoch))
        return page.encode("utf-8")

    server._inject_js_into_html = inject  # type: ignore[method-assign]  # MkDocs has no hook for it
