"""MkDocs adapter: config and lifecycle only. The course, its checks and its rendering live in
the core (`trafikist.site`); this file maps MkDocs events onto it.

- on_config: load and check the course (bad input ends the build with one clear message);
  derive the navigation; build into a temporary folder so a failed build leaves the last good
  site in place.
- on_files: add one generated page per course page, and the widget assets.
- on_page_content: resolve `id:` links and add status badges.
- on_post_build: swap the finished site into place.
- on_serve: watch the course sources and the widgets.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkDocsPage

from trafikist.errors import CourseError
from trafikist.mkdocs_plugin.config import TrafikistConfig
from trafikist.site import Site, load_site

log = logging.getLogger("mkdocs.plugins.trafikist")

WIDGET_SUFFIXES = {".css", ".js", ".mjs", ".svg", ".woff2", ".json", ".whl"}


class _WarningCounter(logging.Handler):
    """Counts warnings so a strict build that will abort does not replace the last good site."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


class TrafikistPlugin(BasePlugin[TrafikistConfig]):
    supports_multiple_instances = False

    def __init__(self) -> None:
        self.site: Site | None = None
        self.base_dir = Path.cwd()
        self.final_site_dir: str | None = None
        self.staging_dir: str | None = None
        self.warnings = _WarningCounter()
        self.serving = False

    # -- lifecycle ----------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.base_dir = Path(config.config_file_path or "mkdocs.yml").resolve().parent
        try:
            self.site = load_site(
                self._path(self.config.modules_dir),
                directory_urls=config.use_directory_urls,
            )
        except CourseError as error:
            raise PluginError(str(error)) from None
        config.nav = self.site.nav(config.use_directory_urls) + self._extra_nav(config)
        for stylesheet in self._assets(".css"):
            if stylesheet not in config.extra_css:
                config.extra_css.append(stylesheet)
        self._stage(config)
        return config

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        assert self.site is not None
        for page in self.site.pages():
            src_uri = page.src_uri(config.use_directory_urls)
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                raise PluginError(
                    f"{existing.abs_src_path}: the course generates '{src_uri}' already. "
                    "Fix: rename or remove that file from docs/."
                )
            files.append(
                File.generated(config, src_uri, content=self.site.renderer.page_markdown(page))
            )
        widgets = self._path(self.config.widgets_dir)
        for asset in sorted(widgets.rglob("*")):
            if asset.is_file() and asset.suffix in WIDGET_SUFFIXES:
                uri = f"{self.config.assets_path}/{asset.relative_to(widgets).as_posix()}"
                files.append(File.generated(config, uri, abs_src_path=str(asset)))
        return files

    def on_page_content(
        self, html: str, *, page: MkDocsPage, config: MkDocsConfig, files: Files
    ) -> str:
        assert self.site is not None
        course_id = page.meta.get("trafikist_id")
        course_page = self.site.course.pages.get(course_id) if course_id else None
        if course_page is None:
            return html
        return self.site.renderer.finalize_html(html, course_page)

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self._swap_in(config)

    def on_build_error(self, *, error: Exception) -> None:
        self._discard_staging()

    def on_serve(self, server: Any, *, config: MkDocsConfig, builder: Any) -> Any:
        for folder in (self.config.modules_dir, self.config.widgets_dir):
            path = self._path(folder)
            if path.exists():
                server.watch(str(path))
        return server

    # -- helpers ------------------------------------------------------------------------------

    def _path(self, value: str) -> Path:
        return (self.base_dir / value).resolve()

    def _assets(self, suffix: str) -> list[str]:
        widgets = self._path(self.config.widgets_dir)
        return [
            f"{self.config.assets_path}/{path.relative_to(widgets).as_posix()}"
            for path in sorted(widgets.rglob(f"*{suffix}"))
        ]

    def _extra_nav(self, config: MkDocsConfig) -> list[dict[str, object]]:
        """Hand-written pages in docs/ (the authors' and readers' guides), by file name."""
        docs = Path(config.docs_dir)
        entries = [
            {_title_of(path): path.relative_to(docs).as_posix()}
            for path in sorted(docs.glob("*.md"))
        ]
        return [{"About this site": entries}] if entries else []

    def _stage(self, config: MkDocsConfig) -> None:
        """Build into a fresh folder beside site_dir; it replaces site_dir only on success."""
        if self.serving:
            return
        final = Path(config.site_dir)
        final.parent.mkdir(parents=True, exist_ok=True)
        self.final_site_dir = str(final)
        self.staging_dir = tempfile.mkdtemp(prefix=f".{final.name}-building-", dir=final.parent)
        config.site_dir = self.staging_dir
        self.warnings.count = 0
        logging.getLogger("mkdocs").addHandler(self.warnings)

    def _swap_in(self, config: MkDocsConfig) -> None:
        if self.staging_dir is None or self.final_site_dir is None:
            return
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if config.strict and self.warnings.count:
            self._discard_staging()  # mkdocs aborts next; the last good site stays
            return
        final = Path(self.final_site_dir)
        previous = final.with_name(f".{final.name}-previous")
        if previous.exists():
            shutil.rmtree(previous)
        if final.exists():
            final.rename(previous)
        Path(self.staging_dir).rename(final)
        shutil.rmtree(previous, ignore_errors=True)
        config.site_dir = str(final)
        self.staging_dir = None

    def _discard_staging(self) -> None:
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if self.staging_dir:
            shutil.rmtree(self.staging_dir, ignore_errors=True)
            self.staging_dir = None


def _title_of(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("-", " ").capitalize()
