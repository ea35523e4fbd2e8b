"""Per-page caches that make a `mkdocs serve` rebuild after one module's edit fast.

MkDocs rebuilds every page on every save: it converts each page's Markdown to HTML and renders
each page through the theme's templates (with a navigation of every page). With the site
unchanged but for one module, the other pages' results are the same, so this keeps them:

- `html`: a page's Markdown -> HTML (mkdocs' `Page.render`), keyed by the Markdown, the
  Markdown extensions and their options, and the site's file list (relative links resolve
  against it). A render that logged a warning is never kept, so warnings show every time.
- `output`: a page's whole HTML file (what the theme's template renders), keyed by the page's
  Markdown key plus everything else the theme reads: the navigation (titles, addresses,
  statuses), the configuration and the theme's own files. A page whose key matches skips the
  theme: it renders a one-line template that returns the kept output.
- `bytecode`: the theme's compiled templates, so a rebuild does not recompile them; and the
  list of the theme's files, which MkDocs walks on every build (thousands of icons), kept
  while the theme's folders are the same (`theme_env`).
- `search`: each page's search-index entries, keyed by its HTML.

Every page still goes through every plugin event (search indexes it, its file is written), so
a cached rebuild writes the same site as a full one. The caches live in the plugin object,
which mkdocs keeps across rebuilds; `mkdocs build` (one build per process) does not use them,
but keeps the theme's compiled templates on disk (`compiled_templates_on_disk`).
The course's Markdown, which comes before all this, is kept by the core
(trafikist.core.cache), as under any engine.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import jinja2
import markupsafe
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from trafikist.core.cache import (
    DiskBytecodeCache,
    MemoryBytecodeCache,
    caches_enabled,
    digest,
    files_signature,
    put,
)

CACHED_TEMPLATE = "trafikist/cached-output.html"
CACHED_VARIABLE = "trafikist_cached_output"


@dataclass
class _Rendered:
    content: str
    toc: Any
    title: str | None
    anchors: set[str] | None
    links: dict[str, dict[str, str]] | None  # target src_uri -> {anchor: link}


class WarningCounter(logging.Handler):
    """Counts the warnings logged while it is attached."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def compiled_templates_on_disk(config: MkDocsConfig) -> None:
    """Every environment the theme makes in this build (the pages', and the search plugin's
    for its translations) keeps its compiled templates in the machine's cache, from one
    build to the next (trafikist.core.cache.DiskBytecodeCache)."""
    theme = config.theme
    real_get_env = theme.get_env
    cache = DiskBytecodeCache()

    def get_env() -> jinja2.Environment:
        env = real_get_env()
        env.bytecode_cache = cache
        return env

    theme.get_env = get_env  # type: ignore[method-assign]  # MkDocs has no hook for it


@dataclass
class RenderCache:
    html: dict[str, tuple[str, _Rendered]] = field(default_factory=dict)
    output: dict[str, tuple[str, str]] = field(default_factory=dict)
    bytecode: MemoryBytecodeCache = field(default_factory=MemoryBytecodeCache)
    search: dict[str, tuple[str, list[dict[str, Any]]]] = field(default_factory=dict)
    templates: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    finished: dict[str, tuple[str, str]] = field(default_factory=dict)  # output -> finished
    # This build's state.
    markdown_key: str = ""
    site_key: str = ""
    keys: dict[str, str] = field(default_factory=dict)  # src_uri -> output key to keep
    reused: dict[str, str] = field(default_factory=dict)  # src_uri -> kept output
    enabled: bool = True

    # -- per build ----------------------------------------------------------------------------

    def start(self, config: MkDocsConfig, files: Files, nav: Navigation, inputs: str) -> None:
        """Keys shared by every page of this build; `inputs` signs the files outside the
        Markdown that the pages read (theme overrides, widgets, registry, model)."""
        self.keys.clear()
        self.reused.clear()
        self.enabled = caches_enabled()
        file_list = [(file.src_uri, file.url) for file in files]
        self.markdown_key = digest(
            config.markdown_extensions,
            config.mdx_configs,
            config.use_directory_urls,
            config.validation,
            file_list,
        )
        self.site_key = digest(
            self.markdown_key,
            _nav_signature(nav.items),
            config.site_name,
            config.site_url,
            config.site_description,
            config.extra,
            [str(item) for item in config.extra_css],
            [f"{item}:{getattr(item, 'type', '')}" for item in config.extra_javascript],
            config.theme.name,
            config.theme,
            config.copyright,
            config.repo_url,
            config.edit_uri,
            inputs,
        )

    def theme_env(self, config: MkDocsConfig) -> None:
        """Every environment the theme makes in this build (the pages', and the search
        plugin's for its translations) keeps its compiled templates across rebuilds, and
        lists the theme's files once: MkDocs lists them on every build to find the theme's
        static files. The list is kept while the theme's folders and the files of its custom
        folder (overrides/, which an author may edit) are the same."""
        if not caches_enabled():
            return
        theme = config.theme
        real_get_env = theme.get_env
        custom = [Path(theme.custom_dir)] if theme.custom_dir else []
        key = digest(list(theme.dirs), files_signature(custom))

        def get_env() -> jinja2.Environment:
            env = real_get_env()
            env.bytecode_cache = self.bytecode
            loader = env.loader
            real_list = getattr(loader, "list_templates", None)
            if loader is None or real_list is None:
                return env

            def list_templates() -> list[str]:
                kept = self.templates.get("list")
                if kept is not None and kept[0] == key:
                    return list(kept[1])
                names = list(real_list())
                self.templates["list"] = (key, names)
                return list(names)

            loader.list_templates = list_templates  # type: ignore[method-assign]  # this env's
            return env

        theme.get_env = get_env  # type: ignore[method-assign]  # MkDocs has no hook for it

    def add_template(self, env: jinja2.Environment) -> None:
        """The one-line template a reused page renders, and the kept compiled templates."""
        loaders: list[jinja2.BaseLoader] = [
            jinja2.DictLoader({CACHED_TEMPLATE: f"{{{{ {CACHED_VARIABLE} }}}}"})
        ]
        env.loader = jinja2.ChoiceLoader([*loaders, *filter(None, [env.loader])])
        env.bytecode_cache = self.bytecode

    def share_search(self, config: MkDocsConfig) -> None:
        """Keep the search plugin's entries per page: parsing every page's HTML for the index
        is the largest cost of a rebuild once the pages themselves are kept."""
        if not self.enabled:
            return
        search = config.plugins.get("material/search") or config.plugins.get("search")
        index = getattr(search, "search_index", None)
        real = getattr(index, "add_entry_from_context", None)
        if index is None or real is None or not hasattr(index, "entries"):
            return

        def add_entry_from_context(page: Page) -> None:
            src_uri = page.file.src_uri
            key = digest(page.url, page.title, page.content, page.meta, str(page.toc))
            kept = self.search.get(src_uri)
            if kept is not None and kept[0] == key:
                index.entries.extend(copy.deepcopy(kept[1]))
                return
            before = len(index.entries)
            real(page)
            put(self.search, src_uri, key, copy.deepcopy(index.entries[before:]))

        index.add_entry_from_context = add_entry_from_context

    # -- per page -----------------------------------------------------------------------------

    def before_render(self, page: Page, markdown: str) -> None:
        """Reuse the page's HTML (and whole output) when their keys match this build's."""
        if not self.enabled:
            return
        src_uri = page.file.src_uri
        key = digest(self.markdown_key, src_uri, markdown)
        # The page's whole output also depends on its front matter and the site around it.
        self.keys[src_uri] = digest(self.site_key, key, page.title, page.meta)
        kept = self.html.get(src_uri)
        if kept is None or kept[0] != key:
            self._measure_render(page, src_uri, key)
            return
        rendered = kept[1]

        def render(config: MkDocsConfig, files: Files) -> None:
            page.content = rendered.content
            page.toc = rendered.toc
            page._title_from_render = rendered.title
            page.present_anchor_ids = rendered.anchors
            if rendered.links is not None:
                page.links_to_anchors = {
                    target: links
                    for uri, links in rendered.links.items()
                    if (target := files.get_file_from_path(uri)) is not None
                }

        page.render = render  # type: ignore[method-assign]  # this page's render, kept
        kept_output = self.output.get(src_uri)
        if kept_output is not None and kept_output[0] == self.keys[src_uri]:
            self.reused[src_uri] = kept_output[1]
            page.meta["template"] = CACHED_TEMPLATE

    def _measure_render(self, page: Page, src_uri: str, key: str) -> None:
        real_render = page.render

        def render(config: MkDocsConfig, files: Files) -> None:
            counter = WarningCounter()
            logger = logging.getLogger("mkdocs")
            logger.addHandler(counter)
            try:
                real_render(config, files)
            finally:
                logger.removeHandler(counter)
            if counter.count:
                self.html.pop(src_uri, None)
                self.keys.pop(src_uri, None)
                return  # kept renders must log nothing: warnings show on every build
            links = page.links_to_anchors
            put(
                self.html,
                src_uri,
                key,
                _Rendered(
                    content=page.content or "",
                    toc=page.toc,
                    title=page._title_from_render,
                    anchors=page.present_anchor_ids,
                    links=None
                    if links is None
                    else {target.src_uri: dict(value) for target, value in links.items()},
                ),
            )

        page.render = render  # type: ignore[method-assign]  # this page's render, kept

    def context(self, page: Page, context: TemplateContext) -> TemplateContext:
        kept = self.reused.get(page.file.src_uri)
        if kept is not None:
            # One variable more than MkDocs' TypedDict names: the one-line template's.
            cast("dict[str, object]", context)[CACHED_VARIABLE] = markupsafe.Markup(kept)
        return context

    def finish(self, page: Page, output: str, finish: Callable[[str], str]) -> str:
        """The page's output finished (the policy, the theme's fixes): the same for the same
        output, which a kept page's is."""
        if not self.enabled:
            return finish(output)
        src_uri = page.file.src_uri
        kept = self.finished.get(src_uri)
        if kept is not None and kept[0] == output:
            return kept[1]
        finished = finish(output)
        put(self.finished, src_uri, output, finished)
        return finished

    def after_render(self, page: Page, output: str) -> None:
        """Keep a freshly rendered page's output for the next build."""
        src_uri = page.file.src_uri
        key = self.keys.get(src_uri)
        if key is not None and src_uri not in self.reused:
            put(self.output, src_uri, key, output)


def _nav_signature(items: list[Any]) -> list[object]:
    signature: list[object] = []
    for item in items:
        if isinstance(item, Section):
            signature.append([item.title, _nav_signature(item.children)])
        else:
            signature.append([item.title, getattr(item, "url", ""), type(item).__name__])
    return signature
