"""MkDocs adapter: config and lifecycle only. The course, its checks and its rendering live in
the core (`trafikist.site`); this file maps MkDocs events onto it.

- on_config: load and check the course (bad input ends the build with one clear message);
  derive the navigation; build into a temporary folder so a failed build leaves the last good
  site in place.
- on_files: add one generated page per course page, and the widget assets.
- on_page_content: resolve `id:` links and add status badges.
- on_post_build: write the offline worker (trafikist.offline), swap the finished site into
  place.
- on_serve: watch the course sources, the widgets, the registry and the model.
- Under `mkdocs serve` (the authors' preview loop): a failed build shows its message on every
  page and the server keeps running (`preview`), and unchanged pages reuse their last render
  (`cache`).
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page as MkDocsPage

from trafikist.course.examples import example_path
from trafikist.course.structure import Page as CoursePage
from trafikist.course.structure import Status
from trafikist.errors import CourseError
from trafikist.minify import minify_css
from trafikist.mkdocs_plugin import preview, validation
from trafikist.mkdocs_plugin.cache import RenderCache, digest, files_signature
from trafikist.mkdocs_plugin.config import TrafikistConfig
from trafikist.offline import write_offline_worker
from trafikist.site import Site, load_site

if TYPE_CHECKING:
    from trafikist.widget import DutyWidget

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
        self.docs_dir = self.base_dir / "docs"
        self.final_site_dir: str | None = None
        self.staging_dir: str | None = None
        self.warnings = _WarningCounter()
        self.serving = False
        self.widget: DutyWidget | None = None
        # The preview loop (mkdocs keeps this object across serve rebuilds).
        self.preview_error: str | None = None  # the failed build's message, under serve
        self.good_nav: list[Any] | None = None  # the last good build's navigation
        self.good_routes: list[str] = []  # and its course pages (src_uri)
        self.cache = RenderCache()

    # -- lifecycle ----------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.preview_error = None
        self.course_key: str | None = None
        try:
            config = self._configure(config)
        except PluginError as error:
            if not self.serving:
                raise
            return self._fail_in_preview(config, str(error))
        self.good_nav = config.nav
        return config

    def _configure(self, config: MkDocsConfig) -> MkDocsConfig:
        self.base_dir = Path(config.config_file_path or "mkdocs.yml").resolve().parent
        self.docs_dir = Path(config.docs_dir)
        try:
            self.site = load_site(
                self._path(self.config.modules_dir),
                base_dir=self.base_dir,
                registry=self.config.registry,
                directory_urls=config.use_directory_urls,
                strict=bool(config.strict),
                warn=lambda problem: log.warning(str(problem)),
            )
        except CourseError as error:
            raise PluginError(str(error)) from None
        self._prepare_duty_widget(config)
        validation.install(self._source_of)
        config.markdown_extensions.extend(self.site.markdown_extensions())
        config.nav = self.site.nav(config.use_directory_urls) + self._extra_nav(config)
        # One stylesheet for all of widgets/: one render-blocking request instead of several.
        if self._assets(".css") and self._stylesheet_uri() not in config.extra_css:
            config.extra_css.append(self._stylesheet_uri())
        self._stage(config)
        return config

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        if self.preview_error is not None:
            return self._error_files(files, config)
        assert self.site is not None
        self.good_routes = [page.src_uri(config.use_directory_urls) for page in self.site.pages()]
        for page in self.site.pages():
            src_uri = page.src_uri(config.use_directory_urls)
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                raise PluginError(
                    f"{existing.abs_src_path}: the course generates '{src_uri}' already. "
                    "Fix: rename or remove that file from docs/."
                )
            try:
                content = self._page_markdown(page)
            except CourseError as error:  # e.g. a worked example whose scenario cannot run
                raise PluginError(str(error)) from None
            files.append(File.generated(config, src_uri, content=content))
        # The duty widget: Pyodide's runtime, the model's wheel and lock, the scenarios as JSON,
        # and its page-load files made lighter (those replace the copies of widgets/ below).
        widget_files = self.widget.site_files() if self.widget else []
        provided = {site_file.uri for site_file in widget_files}
        widgets = self._path(self.config.widgets_dir)
        for asset in sorted(widgets.rglob("*")):
            if asset.is_file() and asset.suffix in WIDGET_SUFFIXES:
                uri = f"{self.config.assets_path}/{asset.relative_to(widgets).as_posix()}"
                if uri not in provided:
                    files.append(File.generated(config, uri, abs_src_path=str(asset)))
        for site_file in widget_files:
            source = str(site_file.source) if site_file.source else None
            files.append(
                File.generated(
                    config, site_file.uri, content=site_file.content, abs_src_path=source
                )
            )
        files.append(
            File.generated(config, self._stylesheet_uri(), content=self._stylesheet(widget_files))
        )
        return files

    def _stylesheet_uri(self) -> str:
        return f"{self.config.assets_path}/trafikist.css"

    def _stylesheet(self, widget_files: list[Any]) -> str:
        """widgets/**/*.css in path order, each as the widget serves it (lightened or as is)."""
        served = {f.uri: f.content for f in widget_files if f.content is not None}
        widgets = self._path(self.config.widgets_dir)
        parts = []
        for uri in self._assets(".css"):
            content = served.get(uri)
            if content is None:
                path = widgets / uri.removeprefix(f"{self.config.assets_path}/")
                content = path.read_bytes()
            parts.append(minify_css(content.decode("utf-8")))
        return "\n".join(parts)

    def on_page_content(
        self, html: str, *, page: MkDocsPage, config: MkDocsConfig, files: Files
    ) -> str:
        if self.preview_error is not None:
            return preview.error_html(self.preview_error)
        assert self.site is not None
        course_id = page.meta.get("trafikist_id")
        course_page = self.site.course.pages.get(course_id) if course_id else None
        try:
            # Hand-written pages in docs/ may link by id too.
            return self.site.renderer.finalize_html(html, course_page or page.url)
        except CourseError as error:
            problem = error.problems[0]
            raise PluginError(
                f"{page.file.abs_src_path or page.file.src_path}: {problem.what} Fix: {problem.fix}"
            ) from None

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self._write_late_widget_files(config)
        try:  # the offline worker; under serve, one that caches nothing
            write_offline_worker(
                Path(config.site_dir),
                node_modules=self._path(self.config.node_modules),
                assets_path=self.config.assets_path,
                preview=self.serving,
            )
        except CourseError as error:
            raise PluginError(str(error)) from None
        self._swap_in(config)

    def on_build_error(self, *, error: Exception) -> None:
        if self.widget is not None:
            self.widget.cancel()
        self._discard_staging()

    def on_serve(self, server: Any, *, config: MkDocsConfig, builder: Any) -> Any:
        for path in self._watched_paths():
            if path.exists():
                server.watch(str(path))
        preview.wrap_builder(server, self._served_routes)
        return server

    # -- the authors' preview loop: serve-only caches and errors on the page -------------------

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        if self.serving and self.preview_error is None:
            self.cache.start(config, files, nav, self._inputs_signature(config))
        return nav

    def on_env(
        self, env: jinja2.Environment, *, config: MkDocsConfig, files: Files
    ) -> jinja2.Environment:
        if self.serving:
            self.cache.add_template(env)
            if self.preview_error is None:
                self.cache.share_search(config)
        return env

    @event_priority(-100)  # after every other plugin's changes to the Markdown
    def on_page_markdown(
        self, markdown: str, *, page: MkDocsPage, config: MkDocsConfig, files: Files
    ) -> str:
        if self.serving and self.preview_error is None:
            self.cache.before_render(page, markdown)
        return markdown

    def on_page_context(
        self, context: dict[str, Any], *, page: MkDocsPage, config: MkDocsConfig, nav: Navigation
    ) -> dict[str, Any]:
        return self.cache.context(page, context) if self.serving else context

    @event_priority(100)  # the theme's output, before any plugin changes it
    def on_post_page(self, output: str, *, page: MkDocsPage, config: MkDocsConfig) -> str:
        if self.serving and self.preview_error is None:
            self.cache.after_render(page, output)
        return output

    def on_post_template(
        self, output_content: str, *, template_name: str, config: MkDocsConfig
    ) -> str:
        if self.preview_error is not None and template_name == "404.html":
            return preview.insert_after_body(output_content, preview.error_html(self.preview_error))
        return output_content

    def _page_markdown(self, page: CoursePage) -> str:
        """The page's Markdown; under serve, kept from the last build when nothing it reads
        changed: its own text, the course's titles, summaries and statuses (headers, cards,
        "Up next", the home page), the registry, model and widgets (generated parts), and for
        a planned page the other pages' text (its "Linked from" list)."""
        assert self.site is not None
        renderer = self.site.renderer
        if not self.serving or page.source is None:
            return renderer.page_markdown(page)
        renderer.templates.bytecode_cache = self.cache.bytecode
        pages = list(self.site.course.pages.values())
        if self.course_key is None:
            others = [path for path in self._watched_paths()
                      if path != self._path(self.config.modules_dir)]  # fmt: skip
            self.course_key = digest(
                [(p.id, p.kind, p.title, p.summary, p.status, p.path, p.number,
                  p.parent.id if p.parent else "", p.meta.get("up_next")) for p in pages],
                files_signature(others),
            )  # fmt: skip
        parts: list[object] = [self.course_key, page.id, page.body, page.meta, repr(page.duties)]
        if page.duties:
            parts.append(files_signature([page.source.parent / "scenarios"]))
        example = example_path(page)
        if example is not None and example.is_file():
            parts.append(example.read_bytes())
        if page.status is Status.PLANNED:
            parts.append([p.body for p in pages])
        key = digest(*parts)
        return self.cache.page_markdown(page.id, key, lambda: renderer.page_markdown(page))

    def _fail_in_preview(self, config: MkDocsConfig, message: str) -> MkDocsConfig:
        """Under serve, a course error becomes the content of every page of the last good
        build (or of the home page), so the author reads it where they look."""
        self.preview_error = message
        # Why print and not log: a logged error would count as a warning of a strict build,
        # and abort the very build that shows it.
        print(f"ERROR    -  {message}", file=sys.stderr)
        print(
            "INFO     -  The preview shows this error on every page; the next save that fixes "
            "it brings the pages back.",
            file=sys.stderr,
        )
        if self.good_nav is not None:
            config.nav = self.good_nav
        else:
            config.nav = [{preview.ERROR_TITLE: "index.md"}, *self._extra_nav(config)]
        return config

    def _error_files(self, files: Files, config: MkDocsConfig) -> Files:
        assert self.preview_error is not None
        content = preview.error_markdown(self.preview_error)
        for src_uri in self.good_routes or ["index.md"]:
            if files.get_file_from_path(src_uri) is None:
                files.append(File.generated(config, src_uri, content=content))
        return files

    def _served_routes(self) -> list[Path]:
        """The last good build's HTML files, for the error pages of a failed rebuild."""
        routes = []
        for src_uri in self.good_routes:
            stem = src_uri[: -len(".md")]
            if stem == "index" or stem.endswith("/index"):
                routes.append(Path(f"{stem}.html"))
            else:
                routes.append(Path(stem) / "index.html")
        return routes

    def _watched_paths(self) -> list[Path]:
        """The course, the widgets, the registry and the model's sources (a change to the
        model rebuilds its wheel and the duties' baked runs)."""
        import trafikist.model

        paths = [self._path(self.config.modules_dir), self._path(self.config.widgets_dir)]
        try:
            from trafikist.registry import resolve_registry_path

            paths.append(resolve_registry_path(self.config.registry, self.base_dir))
        except CourseError:
            pass  # a missing registry is reported by the build; nothing to watch there
        paths.append(self.base_dir / "registry")
        model = Path(trafikist.model.__file__).resolve().parent
        paths += [model, model.parent / "model_view"]
        return list(dict.fromkeys(paths))

    def _inputs_signature(self, config: MkDocsConfig) -> str:
        """What every page's HTML reads besides its own Markdown: the files under the watched
        folders other than the course's, the theme's overrides, docs/, and each course page's
        title and status (the navigation shows them)."""
        folders = [
            path for path in self._watched_paths() if path != self._path(self.config.modules_dir)
        ]
        if config.theme.custom_dir:
            folders.append(Path(config.theme.custom_dir))
        folders.append(Path(config.docs_dir))
        pages = [
            f"{page.id}:{page.title}:{page.status.value}:{page.path}"
            for page in (self.site.pages() if self.site else [])
        ]
        return files_signature(folders) + "\n" + "\n".join(pages)

    # -- the live duty widget (trafikist.widget) -----------------------------------------------

    def _prepare_duty_widget(self, config: MkDocsConfig) -> None:
        """Bake each duty's default run, build the model's wheel, find Pyodide's runtime, and
        load duty.js (a module) on the pages; the widget's files are added in on_files."""
        assert self.site is not None
        if self.widget is not None:  # serve: a snapshot the last build never waited for
            self.widget.cancel()
        pages = [page for page in self.site.pages() if page.duties]
        if not pages:
            self.widget = None
            return
        # Imported here: the widget brings the model, about 0.1 s a build that has no duties
        # need not pay.
        from trafikist.widget import DutyWidget

        try:
            self.widget = DutyWidget(
                modules_dir=self._path(self.config.modules_dir),
                node_modules=self._path(self.config.node_modules),
                widgets_dir=self._path(self.config.widgets_dir),
                assets_path=self.config.assets_path,
                pyodide_url=self.config.pyodide_url,
                time_limit=self.config.run_time_limit,
                memory_snapshot=self.config.memory_snapshot,
            ).prepare(pages, registry=self.site.registry)
        except CourseError as error:
            raise PluginError(str(error)) from None
        if not self.widget.live:
            return
        self.widget.register(self.site.renderer)
        script = f"{self.config.assets_path}/duty/duty.js"
        if all(str(entry) != script for entry in config.extra_javascript):
            entry = ExtraScriptValue(script)
            entry.type = "module"
            config.extra_javascript.append(entry)

    def _write_late_widget_files(self, config: MkDocsConfig) -> None:
        """The memory snapshot, which Node made while the pages rendered."""
        if self.widget is None or self.preview_error is not None:
            return
        try:
            late = self.widget.late_site_files()
        except CourseError as error:
            raise PluginError(str(error)) from None
        for site_file in late:
            target = Path(config.site_dir, site_file.uri)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(site_file.content or b"")

    # -- helpers ------------------------------------------------------------------------------

    def _source_of(self, src_uri: str) -> Path | None:
        """The author's file behind a page: a course source, or a page of docs/."""
        if self.site is not None:
            for page in self.site.pages():
                if page.src_uri() == src_uri:
                    return page.source
        docs = self.docs_dir / src_uri
        return docs if docs.is_file() else None

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
