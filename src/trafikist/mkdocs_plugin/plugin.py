"""MkDocs adapter: MkDocs' events mapped onto the core's steps (trafikist.core.session lists
them), and nothing else that is not about MkDocs: the generated `File`s, the staging of
`config.site_dir`, the strict mode's warning counter, MkDocs' own link validation in the course's
words (`validation`), and under `mkdocs serve` the error pages of a failed build (`preview`) and
the page caches that make a rebuild fast (`cache`).

A one-shot build (`mkdocs build`) checks the course on the second core while MkDocs renders
on the first (trafikist.core.checks_child), and takes the checks' verdict before the site is
swapped in; when anything stops the build, the checks' problems come first, as they would if
the checks had run before the pages. `mkdocs serve` checks in its own process, where each
rebuild re-checks only what changed.

The build guard: whatever else stops a build (an exception that is not a CourseError, in a
hook of this plugin, in a Markdown extension or in the theme) ends it with one line, the file
being read and what to do, through `on_build_error`; its traceback shows only under
`mkdocs build --verbose` or with TRAFIKIST_DEBUG=1.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import Abort, BuildError, PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page as MkDocsPage
from mkdocs.utils.templates import TemplateContext

from trafikist.base.errors import CourseError
from trafikist.base.reading import debug_requested, note_reading, unexpected
from trafikist.core import preview as errors
from trafikist.core.cache import MarkdownCache
from trafikist.core.checks_child import ChecksInChild
from trafikist.core.config import check_config, check_options, read_config
from trafikist.core.files import SiteFile, site_target
from trafikist.core.options import DEFAULTS, BuildOptions, check_assets_path
from trafikist.core.session import AUTHORS_FOLDER, CourseBuild
from trafikist.core.sitedir import (
    SiteDirChoice,
    check_site_dir,
    course_reads,
    remove_leftovers,
)
from trafikist.core.staging import SiteStaging, terminate_as_interrupt
from trafikist.core.theme import finish_page
from trafikist.course.structure import address
from trafikist.mkdocs_plugin import preview, search, validation
from trafikist.mkdocs_plugin.cache import RenderCache, WarningCounter, compiled_templates_on_disk
from trafikist.mkdocs_plugin.config import TrafikistConfig
from trafikist.registry import resolve_registry_path

if TYPE_CHECKING:  # `mkdocs build` never starts it: its import (watchdog, a web server) waits
    from mkdocs.livereload import LiveReloadServer

log = logging.getLogger("mkdocs.plugins.trafikist")
ABORTED = "Aborted with a BuildError!"  # MkDocs' own last line of a failed build


def _debug() -> bool:
    """Tracebacks wanted: `mkdocs build --verbose`, or TRAFIKIST_DEBUG=1."""
    return debug_requested() or logging.getLogger("mkdocs").getEffectiveLevel() <= logging.DEBUG


class _PageErrors(logging.Filter):
    """Drops MkDocs' "Error reading page 'x':" line, which it logs before any failure of a
    page: the failure's own line (the course's, or the guard's) names the author's file."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else ""
        return not message.startswith(("Error reading page '", "Error building page '"))


def _quiet_page_errors() -> None:
    logger = logging.getLogger("mkdocs.commands.build")
    if not any(isinstance(existing, _PageErrors) for existing in logger.filters):
        logger.addFilter(_PageErrors())


def _course[T](step: Callable[[], T]) -> T:
    """A core step; bad input becomes MkDocs' one-line build error."""
    try:
        return step()
    except CourseError as error:
        raise PluginError(str(error)) from None


def _drop_docs(files: Files, config: MkDocsConfig) -> None:
    """The pages of docs/ are the authors' and developers': never the readers' site as they
    are (`_authors_pages` serves them apart)."""
    docs_dir = Path(config.docs_dir).resolve()
    for file in list(files):
        if file.abs_src_path and Path(file.abs_src_path).resolve().is_relative_to(docs_dir):
            files.remove(file)


def _authors_pages(files: Files, config: MkDocsConfig, build: CourseBuild) -> dict[str, str]:
    """A preview (or a build that asks for them) serves the pages of docs/ under `authors/`,
    out of the navigation and the search index. Returns the author's file of each, by
    src_uri."""
    pages = build.authors_pages(Path(config.docs_dir))
    for page in pages:
        content = _course(functools.partial(build.authors_markdown, page, pages))
        files.append(
            File.generated(
                config, page.src_uri, content=content, inclusion=InclusionLevel.NOT_IN_NAV
            )
        )
    return {page.src_uri: str(page.source or config.docs_dir) for page in pages}


# MkDocs' BasePlugin.__init_subclass__ has no annotations: mypy calls it untyped.
class TrafikistPlugin(BasePlugin[TrafikistConfig]):  # type: ignore[no-untyped-call]
    supports_multiple_instances = False

    def __init__(self) -> None:
        self.build: CourseBuild | None = None
        self.staging: SiteStaging | None = None
        self.warnings = WarningCounter()  # a strict build that will abort keeps the last site
        self.serving = False
        # The preview loop (mkdocs keeps this object across serve rebuilds).
        self.preview_error: str | None = None  # the failed build's message, under serve
        self.good_nav: list[Any] | None = None  # the last good build's navigation
        self.good_routes: list[str] = []  # and its course pages (src_uri)
        self.good_unlisted: set[str] = set()  # those the navigation leaves out (How we know)
        self.directory_urls = True
        self.markdown = MarkdownCache()
        self.cache = RenderCache()
        self.config_file = Path("mkdocs.yml")  # what the guard names when nothing else is read
        self.sources: dict[str, str] = {}  # each page's author's file, by src_uri
        self.good_site_files: list[SiteFile] | None = None  # the site's own, for error pages
        self.checks: ChecksInChild | None = None  # `mkdocs build`'s checks, on the second core

    # -- lifecycle ----------------------------------------------------------------------------

    def load_config(
        self, options: dict[str, Any], config_file_path: str | None = None
    ) -> tuple[Any, Any]:
        """The plugin's options, checked first as the Zensical adapter checks them: an unknown
        option or a value of the wrong type is one `mkdocs.yml:LINE: what. Fix: how.` line
        (MkDocs' own message names no line and no fix)."""
        try:
            # Before MkDocs' own check of the top-level options, which names no line.
            check_options(read_config(Path(config_file_path or "mkdocs.yml")))
            BuildOptions.check_types(options or {}, Path(config_file_path or "mkdocs.yml"))
        except CourseError as error:
            logging.getLogger("mkdocs.plugins.trafikist").error(str(error))
            raise SystemExit(ABORTED) from None
        return super().load_config(options, config_file_path)

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.serving = command == "serve"
        if not self.serving:
            terminate_as_interrupt()  # SIGTERM cleans up as Ctrl-C does (on_shutdown)

    def on_shutdown(self) -> None:
        """The end of `mkdocs build`, however it ended: an interrupt (Ctrl-C, SIGTERM) skips
        on_build_error, so what the build made goes here."""
        if self.build is not None:
            self.build.cancel()
        self._cancel_checks()
        if self.staging is not None:
            self._discard_staging()
            print(
                "Interrupted: the build stopped; the last good site is unchanged.", file=sys.stderr
            )

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.preview_error = None
        self.config_file = Path(config.config_file_path or "mkdocs.yml").resolve()
        _quiet_page_errors()
        # Before the search plugin's on_config makes an environment of the theme.
        if self.serving:
            self.cache.theme_env(config)
        else:
            compiled_templates_on_disk(config)
        try:
            config = self._configure(config)
        except PluginError as error:
            if not self.serving:
                raise
            return self._fail_in_preview(config, str(error))
        except Exception as error:  # the guard (on_build_error ends a build; serve goes on)
            if not self.serving or _debug():
                raise
            return self._fail_in_preview(config, str(unexpected(error, self.config_file)))
        self.good_nav = config.nav
        return config

    def _configure(self, config: MkDocsConfig) -> MkDocsConfig:
        if self.build is not None:
            self.build.cancel()  # serve: a snapshot the last build never waited for
        # The theme's overrides read the assets path even from the pages of a failed preview.
        config.extra.update(CourseBuild(self.config_file.parent, DEFAULTS).theme_extra())
        _course(lambda: check_assets_path(self.config["assets_path"], self.config_file))
        _course(lambda: self._check_site_dir(config))  # before anything is touched
        options = self._options()
        self.build = CourseBuild(
            self.config_file.parent,
            options,
            directory_urls=config.use_directory_urls,
            preview=self.serving,
            strict=bool(config.strict),
            warn=lambda problem: log.warning(str(problem)),
            markdown=self.markdown,
            config_file=self.config_file,
        )
        # Before the course loads: a failed load under serve still renders the theme's pages,
        # with the site's stylesheet (the error's look).
        config.extra.update(self.build.theme_extra())
        config.extra_css += [uri for uri in self.build.stylesheets() if uri not in config.extra_css]
        build = self.build
        if self.serving:
            site = _course(build.load)
        else:
            self.checks = build.start_checks()
            site = _course(lambda: build.load(checks=False))
        docs_dir = Path(config.docs_dir)
        build = self.build
        validation.install(lambda src_uri: build.source_of(src_uri, docs_dir))
        # MkDocs takes Extension instances here too, where its type names only names.
        config.markdown_extensions.extend(site.markdown_extensions())  # type: ignore[arg-type]
        config.nav = self.build.nav()
        for script in self.build.module_scripts():
            if all(str(entry) != script for entry in config.extra_javascript):
                entry = ExtraScriptValue(script)
                entry.type = "module"
                config.extra_javascript.append(entry)
        self._stage(config)
        return config

    def _options(self) -> BuildOptions:
        return BuildOptions(
            **{option.name: self.config[option.name] for option in fields(BuildOptions)}
        )

    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        _drop_docs(files, config)
        if self.preview_error is not None:
            return self._error_files(files, config)
        build = self.build
        assert build is not None and build.site is not None
        pages = build.site.pages()
        routes = [page.src_uri() for page in pages]
        self.sources = {page.src_uri(): str(page.source) for page in pages if page.source}
        self.directory_urls = config.use_directory_urls
        authors = _authors_pages(files, config, build)
        self.sources.update(authors)
        self.good_routes = [*routes, *authors]
        for page, src_uri in zip(pages, routes, strict=True):
            existing = files.get_file_from_path(src_uri)
            if existing is not None:
                raise PluginError(
                    f"{existing.abs_src_path}: the course generates '{src_uri}' already. "
                    "Fix: rename or remove that file from docs/."
                )
            content = _course(functools.partial(build.page_markdown, page))
            # A page the navigation does not list (a module's "How we know") is out of it.
            listed = build.site.listed(page)
            inclusion = InclusionLevel.UNDEFINED if listed else InclusionLevel.NOT_IN_NAV
            files.append(File.generated(config, src_uri, content=content, inclusion=inclusion))
        self.good_unlisted = {
            src_uri
            for page, src_uri in zip(pages, routes, strict=True)
            if not build.site.listed(page)
        }
        site_files = _course(build.site_files)
        for site_file in site_files:  # each inside the site, before MkDocs is told of any
            _course(functools.partial(site_target, Path(config.site_dir), site_file.uri))
        self.good_site_files = site_files
        return self._site_files(files, config, site_files)

    def _site_files(self, files: Files, config: MkDocsConfig, site_files: list[SiteFile]) -> Files:
        """The site's own files, and under serve the reload client and the error message's
        look, which the pages' policy allows (on_serve)."""
        if self.serving:
            files.append(File.generated(config, errors.RELOAD_SCRIPT, content=errors.RELOAD_CLIENT))
            files.append(File.generated(config, errors.PREVIEW_STYLE, content=errors.PREVIEW_CSS))
        for site_file in site_files:
            if site_file.content is not None:
                files.append(File.generated(config, site_file.uri, content=site_file.content))
            else:
                source = str(site_file.source)
                files.append(File.generated(config, site_file.uri, abs_src_path=source))
        return files

    def on_pre_page(self, page: MkDocsPage, *, config: MkDocsConfig, files: Files) -> MkDocsPage:
        self._note(page)  # what the guard names if the page's Markdown fails to render
        return page

    def _note(self, page: MkDocsPage) -> None:
        source = self.sources.get(page.file.src_uri) or page.file.abs_src_path
        note_reading(source or page.file.src_uri)

    def on_page_content(
        self, html: str, *, page: MkDocsPage, config: MkDocsConfig, files: Files
    ) -> str:
        if self.preview_error is not None:
            return errors.error_html(self.preview_error)
        assert self.build is not None and self.build.site is not None
        course_id = page.meta.get("trafikist_id")
        course_page = self.build.site.course.pages.get(course_id) if course_id else None
        source = self.sources.get(page.file.src_uri) or page.file.abs_src_path
        source = source or page.file.src_path
        # Hand-written pages in docs/ may link by id too.
        build = self.build
        return _course(lambda: build.finalize_html(html, course_page or page.url, source))

    @event_priority(100)  # the theme's output, before any plugin changes it
    def on_post_page(self, output: str, *, page: MkDocsPage, config: MkDocsConfig) -> str:
        if self.serving and self.preview_error is None:
            self.cache.after_render(page, output)
            return self.cache.finish(page, output, finish_page)
        return finish_page(output)

    def on_post_template(
        self, output_content: str, *, template_name: str, config: MkDocsConfig
    ) -> str:
        if not template_name.endswith(".html"):
            return output_content
        if self.preview_error is not None and template_name == "404.html":
            output_content = errors.with_error(output_content, self.preview_error)
        return finish_page(output_content)

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        build = self.build
        if build is not None and self.preview_error is None:
            _course(self._verdict)
            _course(lambda: build.after_pages(Path(config.site_dir)))
        self._swap_in(config)

    @event_priority(-100)  # last: it may end the build with MkDocs' own Abort
    def on_build_error(self, *, error: Exception) -> None:
        problems = self._checks_problems()  # a build that checked first would stop on them
        if self.build is not None:
            self.build.cancel()
        self._discard_staging()
        if problems is not None:
            log.error(str(problems))
            raise Abort(ABORTED) from None
        if isinstance(error, BuildError | Abort):
            return  # MkDocs prints its one line (a CourseError became a PluginError)
        # The guard: anything else becomes one line naming the file being read.
        log.error(str(unexpected(error, self.config_file)))
        if _debug():
            return  # MkDocs raises the error on: its traceback
        raise Abort(ABORTED) from None

    # -- the checks' child (`mkdocs build`) -------------------------------------------------

    def _verdict(self) -> None:
        """The checks' verdict: their warnings are logged (a build that is not strict), their
        problems raised as CourseError."""
        checks, self.checks = self.checks, None
        if checks is not None:
            for problem in checks.verdict():
                log.warning(str(problem))

    def _checks_problems(self) -> CourseError | None:
        """What the checks' child found, once the build stopped for another reason."""
        checks, self.checks = self.checks, None
        if checks is None:
            return None
        try:
            checks.verdict()
        except CourseError as problems:
            return problems
        except Exception:  # the child's own failure: the build's error is the one to report
            checks.cancel()
        return None

    def _cancel_checks(self) -> None:
        if self.checks is not None:
            self.checks.cancel()
            self.checks = None

    def on_serve(
        self, server: LiveReloadServer, *, config: MkDocsConfig, builder: Callable[..., None]
    ) -> LiveReloadServer:
        for path in self.build.watched_paths() if self.build else []:
            if path.exists():
                server.watch(str(path))
        preview.wrap_builder(server, self._served_routes)
        preview.reload_from_a_file(server)
        return server

    # -- the authors' preview loop: serve-only caches and errors on the page -------------------

    def on_nav(self, nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
        if self.serving and self.preview_error is None and self.build is not None:
            folders = [Path(config.docs_dir)]
            if config.theme.custom_dir:
                folders.append(Path(config.theme.custom_dir))
            self.cache.start(config, files, nav, self.build.inputs_signature(folders))
        return nav

    def on_env(
        self, env: jinja2.Environment, *, config: MkDocsConfig, files: Files
    ) -> jinja2.Environment:
        search.index_without_traces(config)  # before share_search, which keeps what it gives
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
        self, context: TemplateContext, *, page: MkDocsPage, config: MkDocsConfig, nav: Navigation
    ) -> TemplateContext:
        self._note(page)  # the theme renders the page next
        return self.cache.context(page, context) if self.serving else context

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
            config.nav = [{errors.ERROR_TITLE: "index.md"}]
        return config

    def _error_files(self, files: Files, config: MkDocsConfig) -> Files:
        assert self.preview_error is not None
        content = errors.error_markdown(self.preview_error)
        for src_uri in self.good_routes or ["index.md"]:
            if files.get_file_from_path(src_uri) is None:
                # The authors' pages show it too, out of the navigation as they are.
                # (and a page the good build left out of it: its "not in nav" notice would
                # abort the strict build that shows the error).
                unlisted = src_uri.startswith(f"{AUTHORS_FOLDER}/") or src_uri in self.good_unlisted
                inclusion = InclusionLevel.NOT_IN_NAV if unlisted else InclusionLevel.UNDEFINED
                files.append(File.generated(config, src_uri, content=content, inclusion=inclusion))
        # The error pages load the theme's scripts, the stylesheet and the reload client as
        # the good pages do: the last good build's files, or widgets/ alone before any.
        site_files = self.good_site_files
        if site_files is None and self.build is not None:
            site_files = self.build.bare_site_files()
        return self._site_files(files, config, site_files or [])

    def _served_routes(self) -> list[Path]:
        """The last good build's HTML files, for the error pages of a failed rebuild."""
        return [Path(address(src_uri, self.directory_urls).file) for src_uri in self.good_routes]

    # -- the site folder and its staging ------------------------------------------------------

    def _check_site_dir(self, config: MkDocsConfig) -> None:
        """Refuse a site folder the build must not write (trafikist.core.sitedir): `-d DIR`
        or site_dir in mkdocs.yml. `mkdocs serve` builds into a folder of its own: there, only
        a site_dir that would destroy a source on the next build is refused."""
        settings = read_config(self.config_file)
        check_config(settings)
        named = settings.site_dir()
        given = named if self.serving else Path(os.path.abspath(config.site_dir))
        choice = SiteDirChoice(
            given,
            self.config_file,
            settings.line("site_dir"),
            from_command_line=given != named,
        )
        registry = None
        with contextlib.suppress(CourseError):  # a missing registry is the build's to report
            registry = resolve_registry_path(self.config["registry"], self.config_file.parent)
        reads = course_reads(
            self.config_file.parent,
            self._options(),
            config_file=self.config_file,
            docs_dir=config.docs_dir,
            custom_dir=config.theme.custom_dir,
            registry=registry,
        )
        assets = self.config["assets_path"]
        check_site_dir(choice, reads, assets_path=assets, writes=not self.serving)
        if not self.serving:
            remove_leftovers(given, assets)  # what killed builds left beside it

    def _stage(self, config: MkDocsConfig) -> None:
        """Build into a fresh folder beside site_dir; it replaces site_dir only on success."""
        if self.serving:
            return
        self.staging = SiteStaging(Path(config.site_dir), self.config["assets_path"])
        config.site_dir = str(self.staging.begin())
        self.warnings.count = 0
        logging.getLogger("mkdocs").addHandler(self.warnings)

    def _swap_in(self, config: MkDocsConfig) -> None:
        if self.staging is None:
            return
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if config.strict and self.warnings.count:
            self._discard_staging()  # mkdocs aborts next; the last good site stays
            return
        self.staging.commit()
        config.site_dir = str(self.staging.final)
        self.staging = None

    def _discard_staging(self) -> None:
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if self.staging is not None:
            self.staging.discard()
            self.staging = None
