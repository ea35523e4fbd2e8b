"""One build of the course, with no engine in it: what each engine adapter calls, in order.

    build = CourseBuild(base_dir, options, directory_urls=..., preview=...)
    site = build.load()                      # load and check the course; CourseError on bad input
    build.nav(docs_dir)                      # the navigation tree
    build.stylesheets(), build.module_scripts()
    build.page_markdown(page)                # each course page's Markdown
    build.site_files()                       # widgets/, the duty widget's parts, one stylesheet
    build.finalize_html(html, page_or_url)   # id: links and status badges, in a page's HTML
    theme.finish_page(html)                  # the policy and the theme's fixes, in a whole page
    build.after_pages(site_dir)              # what is written once the pages are (then the swap)

The MkDocs adapter maps these onto MkDocs' events; the Zensical adapter runs them before and
after a Zensical build. A `CourseBuild` kept across preview rebuilds keeps its caches.

Each step says which source it reads (trafikist.base.reading: a page's file, the course
folder, mkdocs.yml), and each file the loader opens refines it, so the adapters' build guard
can name the file being read when something that is not a CourseError stops the build.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trafikist.model
from trafikist.base.errors import CourseError, Problem
from trafikist.base.files import read_source_text
from trafikist.base.reading import reading
from trafikist.core import assets, offline
from trafikist.core.cache import DiskBytecodeCache, MarkdownCache, files_signature
from trafikist.core.checks_child import ChecksInChild
from trafikist.core.files import SiteFile, write_site_files
from trafikist.core.options import BuildOptions
from trafikist.core.site import Site, load_site
from trafikist.core.widget import DutyWidget
from trafikist.course.markdown.registry_inline import CHOICE_ANCHOR, CHOICES_PAGE_ID
from trafikist.course.questions import CHECKS_FOLDER, RUNS_FOLDER
from trafikist.course.review import REVIEW_PAGE_ID
from trafikist.course.structure import Page, relative_link
from trafikist.registry import resolve_registry_path

CHECKS_SCRIPT = f"{CHECKS_FOLDER}/checks.js"  # widgets/checks/checks.js, under the assets path
EVIDENCE_SCRIPT = "evidence/evidence.js"  # widgets/evidence/evidence.js: "How we know"
# Each page's evidence, as evidence.js loads it beside itself: evidence/pages/PAGE-ID.json.
EVIDENCE_DATA = "evidence/pages/{id}.json"


@dataclass
class CourseBuild:
    base_dir: Path
    options: BuildOptions
    directory_urls: bool = True
    # A live preview: keep each page's Markdown across rebuilds, and write an offline worker
    # that keeps nothing.
    preview: bool = False
    # A problem that fails strict builds only (an unsourced sentence, an unchecked fact) is an
    # error when `strict`, and otherwise goes to `warn`.
    strict: bool = True
    warn: Callable[[Problem], None] | None = None
    site: Site | None = None
    widget: DutyWidget | None = None
    markdown: MarkdownCache = field(default_factory=MarkdownCache)
    # The configuration the options come from: what a step that reads no one source names.
    config_file: Path | None = None
    # The checks this build started in a child (start_checks): its pages' evidence waits for
    # the verdicts the child keeps, rather than run the same checks here.
    checks_child: ChecksInChild | None = None

    def __post_init__(self) -> None:
        if self.config_file is None:
            self.config_file = Path(self.base_dir) / "mkdocs.yml"

    def _reading(self, source: Path | str | None = None) -> contextlib.AbstractContextManager[None]:
        return reading(source or self.config_file or "mkdocs.yml")

    def path(self, value: str) -> Path:
        return (Path(self.base_dir) / value).resolve()

    def load(self, checks: bool = True) -> Site:
        """Load and check the course, and prepare the duty widget; raises CourseError.

        `checks=False` loads the same site without checking its pages, for an adapter that
        runs the checks elsewhere meanwhile (`check`) and fails on their problems before its
        site is swapped in (the Zensical adapter runs them on the second core).
        """
        self.cancel()  # a snapshot the last build never waited for
        with self._reading(self.path(self.options.modules_dir)):
            self.site = self._load_site(checks=checks, warn=self.warn)
            self.widget = self._prepare_duty_widget(self.site)
        if self.preview:
            others = [
                path for path in self.watched_paths() if path != self.path(self.options.modules_dir)
            ]
            self.markdown.start(self.site.pages(), files_signature(others))
        return self.site

    def _load_site(self, checks: bool, warn: Callable[[Problem], None] | None = None) -> Site:
        child = self.checks_child
        return load_site(
            self.path(self.options.modules_dir),
            base_dir=self.base_dir,
            registry=self.options.registry,
            directory_urls=self.directory_urls,
            strict=self.strict,
            warn=warn,
            checks=checks,
            checks_elsewhere=child.checking if child is not None and not checks else None,
            # A preview keeps the compiled templates in memory; a build, on disk.
            templates_cache=self.markdown.bytecode if self.preview else DiskBytecodeCache(),
        )

    def check(self) -> list[Problem]:
        """Every check of the course, as `load` runs them: returns the warnings (what fails a
        strict build only), raises CourseError with the problems."""
        warnings: list[Problem] = []
        with self._reading(self.path(self.options.modules_dir)):
            self._load_site(checks=True, warn=warnings.append)
        return warnings

    def start_checks(self) -> ChecksInChild:
        """`check` in a child process, on the second core while this one builds
        (trafikist.core.checks_child): its `verdict()` returns the warnings, or raises
        CourseError with the problems."""
        self.checks_child = ChecksInChild.start(
            check_course,
            Path(self.base_dir),
            self.options,
            self.directory_urls,
            self.strict,
            self.config_file,
            config_file=str(self.config_file),
        )
        return self.checks_child

    def _prepare_duty_widget(self, site: Site) -> DutyWidget | None:
        """Bake each duty's default run, build the model's wheel, find Pyodide's runtime."""
        pages = [page for page in site.pages() if page.duties]
        if not pages:
            return None
        widget = DutyWidget(
            modules_dir=self.path(self.options.modules_dir),
            node_modules=self.path(self.options.node_modules),
            assets_path=self.options.assets_path,
            pyodide_url=self.options.pyodide_url,
            time_limit=self.options.run_time_limit,
            memory_snapshot=self.options.memory_snapshot,
            config_file=self.config_file,
            directory_urls=self.directory_urls,
        ).prepare(pages, registry=site.registry)
        if widget.live:
            widget.register(site.renderer)
        return widget

    # -- what the engine is told -------------------------------------------------------------

    def nav(self) -> list[dict[str, object]]:
        """The readers' navigation: the course's alone (the authors' pages are not in it)."""
        assert self.site is not None
        return self.site.nav()

    @property
    def serves_authors_pages(self) -> bool:
        """The authors' pages are part of a preview, and of a build that asks for them."""
        return self.preview or self.options.authors_pages

    def authors_pages(self, docs_dir: Path) -> list[AuthorsPage]:
        """The pages of docs/ under `authors/`, when this build serves them."""
        if not self.serves_authors_pages or not Path(docs_dir).is_dir():
            return []
        with self._reading(docs_dir):
            return authors_pages(Path(docs_dir))

    def authors_markdown(self, page: AuthorsPage, pages: list[AuthorsPage]) -> str:
        with self._reading(page.source):
            return authors_markdown(page, pages)

    def theme_extra(self) -> dict[str, object]:
        """What the theme's overrides read from the configuration's `extra` (overrides/: the
        theme's scripts load from the assets path, `config.extra.trafikist.assets_path`)."""
        return {"trafikist": {"assets_path": self.options.assets_path}}

    def stylesheets(self) -> list[str]:
        widgets = self.path(self.options.widgets_dir)
        return (
            [assets.stylesheet_uri(self.options.assets_path)] if any(widgets.rglob("*.css")) else []
        )

    def module_scripts(self) -> list[str]:
        """Scripts every page loads as modules (deferred): the offline worker's registration
        (trafikist.core.offline), the live duty widget's, and Check yourself's when the course
        asks questions (each module's progress shows on the home page too)."""
        scripts = [f"{self.options.assets_path}/{offline.REGISTER_SCRIPT}"]
        if self.widget is not None and self.widget.live:
            scripts.append(f"{self.options.assets_path}/duty/duty.js")
        if self.site is not None and REVIEW_PAGE_ID in self.site.course.pages:
            scripts.append(f"{self.options.assets_path}/{CHECKS_SCRIPT}")
        if self.site is not None:  # "How we know", on each page that has the switch
            scripts.append(f"{self.options.assets_path}/{EVIDENCE_SCRIPT}")
        return scripts

    def page_markdown(self, page: Page) -> str:
        """A course page's Markdown for the engine; under a preview, kept from the last build
        when nothing it reads changed."""
        assert self.site is not None
        render = self.site.renderer.page_markdown
        with self._reading(page.source):
            if not self.preview:
                return render(page)
            return self.markdown.page_markdown(page, self.site.pages(), lambda: render(page))

    def site_files(self) -> list[SiteFile]:
        with self._reading(self.path(self.options.modules_dir)):
            widget_files = self.widget.site_files() if self.widget else []
            widget_files += self._question_runs()
            widget_files += self._evidence_files()
        with self._reading(self.path(self.options.widgets_dir)):
            return assets.widget_assets(
                self.path(self.options.widgets_dir),
                self.options.assets_path,
                widget_files,
                node_modules=self.path(self.options.node_modules),
            )

    def bare_site_files(self) -> list[SiteFile]:
        """The site's own files without the course (widgets/: the theme's scripts, the
        stylesheet), for a preview's error pages when no build has succeeded yet; none if
        even these cannot be made (the error pages then stand without them)."""
        try:
            return assets.widget_assets(
                self.path(self.options.widgets_dir),
                self.options.assets_path,
                [],
                node_modules=self.path(self.options.node_modules),
            )
        except CourseError:
            return []

    def _question_runs(self) -> list[SiteFile]:
        """Each question's run, as "Show the run" fetches it (trafikist.course.questions)."""
        if self.site is None or REVIEW_PAGE_ID not in self.site.course.pages:
            return []
        folder = f"{self.options.assets_path}/{CHECKS_FOLDER}/{RUNS_FOLDER}"
        choices = self.site.course.pages.get(CHOICES_PAGE_ID)
        href = ""
        if choices is not None:
            # From the fragment's own address: the page's script resolves its links against it.
            href = relative_link(f"{folder}/run.html", choices.url(self.directory_urls))
            href += f"#{CHOICE_ANCHOR.format(id='')}"
        runs = self.site.renderer.question_runs(href)
        return [
            SiteFile(f"{folder}/{question_id}.html", content=markup.encode())
            for question_id, markup in runs.items()
        ]

    def _evidence_files(self) -> list[SiteFile]:
        """Each page's evidence, as "How we know" loads it on its first use
        (trafikist.course.shown_evidence)."""
        if self.site is None:
            return []
        renderer = self.site.renderer

        def text_of(page: Page) -> str | None:
            with self._reading(page.source):
                data = renderer.evidence_data(page)
            return (
                None
                if data is None
                else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            )

        files = []
        for page in self.site.pages():
            if self.preview:
                text = self.markdown.evidence_text(page, functools.partial(text_of, page))
            else:
                text = text_of(page)
            if text is not None:
                uri = f"{self.options.assets_path}/{EVIDENCE_DATA.format(id=page.id)}"
                files.append(SiteFile(uri, content=text.encode("utf-8")))
        return files

    def finalize_html(self, html: str, page: Page | str, source: Path | str) -> str:
        """Resolve id: links and add status badges; a hand-written page's unknown id is
        reported against its file (`source`)."""
        assert self.site is not None
        renderer = self.site.renderer
        try:
            with self._reading(source):
                if not self.preview:
                    return renderer.finalize_html(html, page)
                name = page.id if isinstance(page, Page) else page
                return self.markdown.finalized(
                    name, html, lambda: renderer.finalize_html(html, page)
                )
        except CourseError as error:
            problem = error.problems[0]
            raise CourseError.at(source, None, problem.what, problem.fix) from None

    def source_of(self, src_uri: str, docs_dir: Path) -> Path | None:
        """The author's file behind a page of the site: a course source, or a page of docs/
        (served as `authors/NAME.md`)."""
        if self.site is not None:
            for page in self.site.pages():
                if page.src_uri() == src_uri:
                    return page.source
        docs = Path(docs_dir) / src_uri.removeprefix(f"{AUTHORS_FOLDER}/")
        return docs if docs.is_file() else None

    # -- once the pages are written ----------------------------------------------------------

    def after_pages(self, site_dir: Path) -> None:
        """What is written after the pages, before the site is swapped in. Raises CourseError.

        - the duty widget's memory snapshot, which Node made while the pages rendered;
        - then the offline worker (trafikist.core.offline), which lists and hashes every file of
          the finished site; under a preview, a worker that keeps nothing.
        """
        with self._reading():
            if self.widget is not None:
                write_site_files(site_dir, self.widget.late_site_files())
            offline.write_offline_worker(
                site_dir,
                node_modules=self.path(self.options.node_modules),
                assets_path=self.options.assets_path,
                preview=self.preview,
            )

    def cancel(self) -> None:
        """The build failed or is being replaced: stop making the snapshot."""
        if self.widget is not None:
            self.widget.cancel()

    # -- the preview ----------------------------------------------------------------------------

    def watched_paths(self) -> list[Path]:
        """The course, the widgets, the registry and the model's sources (a change to the
        model rebuilds its wheel and the duties' baked runs)."""
        paths = [self.path(self.options.modules_dir), self.path(self.options.widgets_dir)]
        # A missing registry is reported by the build; there is nothing to watch there.
        with contextlib.suppress(CourseError):
            paths.append(resolve_registry_path(self.options.registry, self.base_dir))
        paths.append(Path(self.base_dir) / "registry")
        model = Path(trafikist.model.__file__).resolve().parent
        paths += [model, model.parent / "model_view"]
        return list(dict.fromkeys(paths))

    def inputs_signature(self, folders: list[Path]) -> str:
        """What every page's HTML reads besides its own Markdown: the files under the watched
        folders other than the course's and under `folders` (the theme's overrides, docs/),
        and each course page's title and status (the navigation shows them)."""
        modules = self.path(self.options.modules_dir)
        watched = [path for path in self.watched_paths() if path != modules]
        pages = [
            f"{page.id}:{page.title}:{page.status.value}:{page.path}"
            for page in (self.site.pages() if self.site else [])
        ]
        return files_signature([*watched, *folders]) + "\n" + "\n".join(pages)


# The authors' and developers' pages (docs/): outside the readers' site. The preview serves
# them under this folder, out of the navigation and the search index; a build writes them only
# with the option `authors_pages` (the tests' check of their links).
AUTHORS_FOLDER = "authors"
AUTHORS_TITLE = "For authors and developers"
# Both engines' search leaves out a page with this front matter (mkdocs-material's search
# plugin reads it from the page's meta, Zensical from the file).
NOT_SEARCHED = "search:\n  exclude: true\n"


@dataclass(frozen=True)
class AuthorsPage:
    """A page of the authors' guide: a file of docs/ served under `authors/`, or the guide's
    generated index (no `source`)."""

    src_uri: str  # among the site's files: "authors/authoring.md"
    title: str
    source: Path | None = None


def authors_pages(docs_dir: Path) -> list[AuthorsPage]:
    """The guide's index, then every Markdown file of docs/ by name."""
    pages = [
        AuthorsPage(
            f"{AUTHORS_FOLDER}/{path.relative_to(docs_dir).as_posix()}", _title_of(path), path
        )
        for path in sorted(Path(docs_dir).rglob("*.md"))
    ]
    index = AuthorsPage(f"{AUTHORS_FOLDER}/index.md", AUTHORS_TITLE)
    taken = next((page for page in pages if page.src_uri == index.src_uri), None)
    if taken is not None:
        raise CourseError.at(
            taken.source or docs_dir,
            None,
            "docs/index.md would be the authors' guide's index, which the build writes.",
            "Rename the file: the guide's index lists every page of docs/ by itself.",
        )
    return [index, *pages] if pages else []


def authors_markdown(page: AuthorsPage, pages: list[AuthorsPage]) -> str:
    """A page of the guide as the engine reads it: out of the search index, and for the index,
    the list of the guide's pages."""
    if page.source is not None:
        text = read_source_text(page.source)
        return f"---\n{NOT_SEARCHED}---\n\n{text}"
    listed = "\n".join(
        f"- [{other.title}]({other.src_uri.removeprefix(AUTHORS_FOLDER + '/')})"
        for other in pages
        if other.source is not None
    )
    return (
        f"---\ntitle: {AUTHORS_TITLE}\n{NOT_SEARCHED}---\n\n# {AUTHORS_TITLE}\n\n"
        "How the course is written, built, checked and measured. These pages are kept in "
        "`docs/` of the repository; the preview serves them here, and the readers' site "
        "leaves them out: its navigation and its search hold the course alone.\n\n"
        f"{listed}\n"
    )


def _title_of(path: Path) -> str:
    for line in read_source_text(path).splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem.replace("-", " ").capitalize()


def check_course(
    base_dir: Path, options: BuildOptions, directory_urls: bool, strict: bool, config_file: Path
) -> list[Problem]:
    """A build's `check`, made from plain data: what the checks' child runs."""
    build = CourseBuild(
        base_dir, options, directory_urls=directory_urls, strict=strict, config_file=config_file
    )
    return build.check()
