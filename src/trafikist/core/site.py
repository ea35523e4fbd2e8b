"""The site as the core sees it: course, registry checks and renderer, with no engine in it.

An engine adapter (MkDocs or Zensical, through trafikist.core) asks this module for the pages
to write, their Markdown, the navigation tree and the HTML finishing step.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import jinja2
from markdown import Extension

from trafikist.base.errors import CourseError, Problem
from trafikist.checks import Facts, check_site
from trafikist.checks.manifest import Manifest, load_manifest, resolve_manifest_path
from trafikist.checks.seed import load_seed, resolve_seed_path
from trafikist.core import evidence_store
from trafikist.course.evidence import CheckedSentence
from trafikist.course.how_we_know import how_we_know_pages
from trafikist.course.loader import load_course
from trafikist.course.markdown.registry_inline import RegistryInlineExtension
from trafikist.course.reference import reference_pages
from trafikist.course.render import Renderer
from trafikist.course.review import asks_questions, review_page
from trafikist.course.structure import PLANNED_HEADING, Course, Kind, Page
from trafikist.model.commands import install_command_table
from trafikist.registry import Registry, export_command_table, load_registry, resolve_registry_path
from trafikist.registry.valkey import load_valkey_docs, load_valkey_table, resolve_valkey_folder


@dataclass
class Site:
    course: Course
    renderer: Renderer
    registry: Registry
    manifest: Manifest

    def markdown_extension_configs(self) -> dict[str, dict[str, object]]:
        """Extensions that need the registry, by name, with their options (for an engine that
        reads them from its configuration file): claims render as their sentence, verbs link."""
        return {"trafikist.course.markdown.registry_inline": {"verbs": sorted(self.registry.rows)}}

    def markdown_extensions(self) -> list[Extension]:
        """The same extensions, as instances."""
        options = self.markdown_extension_configs()["trafikist.course.markdown.registry_inline"]
        return [RegistryInlineExtension(**options)]

    def pages(self) -> list[Page]:
        """Every page to write, home first, then course order."""
        return list(self.course.pages.values())

    def listed(self, page: Page) -> bool:
        """True when the navigation lists the page: every page but those of a book the course
        does not list (a module's "How we know": its book is not one of the course's)."""
        return page.book is None or any(page.book is book for book in self.course.books)

    def nav(self) -> list[dict[str, object]]:
        """The navigation tree, derived from the course (`Course.listings`): the home page, the
        written pages book by book, then the planned ones under one heading, where each page is
        marked planned. Titles keep the course's labels, as HTML text (neither engine's theme
        escapes a navigation title).

        Both themes make a section's first index page its heading (`navigation.indexes`): a
        written module is its section's index, so its heading opens it; every other page is a
        plain file (`Page.src_uri`), so no heading opens a planned page, and no page leaves
        the list for a heading. The engines' footers follow this order, so "Next" meets every
        written page before any planned one."""
        written, planned = self.course.listings()
        tree: list[dict[str, object]] = [{"Home": self.course.home.src_uri()}]
        for listing in written:
            entries: list[object] = []
            for entry in listing.entries:
                page = entry.page
                if page.kind is Kind.MODULE:
                    # A section even without dives: a bare index page would become the book's
                    # heading and leave the list.
                    children: list[object] = [page.src_uri()] if entry.opens else []
                    children += [{escape(dive.label()): dive.src_uri()} for dive in entry.dives]
                    entries.append({escape(page.label()): children})
                else:
                    entries.append({escape(page.label()): page.src_uri()})
            tree.append({escape(listing.title): entries})
        if planned:
            tree.append(
                {
                    PLANNED_HEADING: [
                        {
                            escape(listing.title): [
                                {escape(entry.page.label(with_module=True)): entry.page.src_uri()}
                                for entry in listing.entries
                            ]
                        }
                        for listing in planned
                    ]
                }
            )
        return tree


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def load_site(
    modules_dir: Path,
    *,
    base_dir: Path | None = None,
    registry: str | None = None,
    directory_urls: bool = True,
    strict: bool = True,
    warn: Callable[[Problem], None] | None = None,
    checks: bool = True,
    templates_cache: jinja2.BytecodeCache | None = None,
    checks_elsewhere: Callable[[], bool] | None = None,
) -> Site:
    """Load and check everything the site is built from; raise CourseError on bad input.

    `registry` is the configured registry location (the plugin's `registry` option); the
    environment variable TRAFIKIST_REGISTRY overrides it, and `base_dir/registry` is the default.
    A problem that fails strict builds only (an unsourced sentence, an unchecked fact) is an
    error when `strict`, and otherwise goes to `warn`.

    `checks=False` loads the same site without checking it (trafikist.checks.check_site): for a
    build that runs the checks at the same time elsewhere (the Zensical adapter) and fails on
    their problems before its site is swapped in; `checks_elsewhere` is true while they run
    (a page's evidence waits for the verdicts they keep: trafikist.core.evidence_store).
    `templates_cache` keeps the renderer's compiled templates (trafikist.course.render.Renderer).
    """
    base_dir = Path(base_dir) if base_dir is not None else Path(modules_dir).resolve().parent
    course = load_course(Path(modules_dir))
    registry_path = resolve_registry_path(registry, base_dir)
    loaded_registry = load_registry(registry_path)
    # The model runs the course's scenarios with the verbs' rows of the registry just loaded.
    install_command_table(export_command_table(loaded_registry))
    manifest_path = resolve_manifest_path(registry_path, base_dir)
    manifest = load_manifest(manifest_path)
    seed_path = resolve_seed_path(manifest_path)
    seed = load_seed(seed_path)
    # The page of the model's choices, which every choice marker links to: the registry's
    # reference pages mark the values the snapshot chose, and pages that run the model mark more.
    with_choices = _uses_the_model(course) or any(
        row.chosen_fields for row in loaded_registry.rows.values()
    )
    if asks_questions(course):
        # The review page asks every question again: its book comes before the reference.
        review = review_page()
        taken = course.pages.get(review.id)
        if taken is not None:
            raise CourseError.at(
                taken.source or "modules",
                taken.line_of("id") if taken.source else None,
                f"the page id '{review.id}' is the generated review page's (Check yourself).",
                "Give the page another `id:`.",
            )
        assert review.book is not None, "the review page has its own book"
        course.books.append(review.book)
        course.pages[review.id] = review
    pages = reference_pages(course, loaded_registry, with_choices=with_choices)
    if pages:
        assert pages[0].book is not None, "the reference pages have their own book"
        course.books.append(pages[0].book)
        for page in pages:
            course.pages[page.id] = page
    for page in how_we_know_pages(course):
        # Out of the navigation and the search: each module's pages link to theirs.
        course.pages[page.id] = page
    valkey_folder = resolve_valkey_folder(registry_path, base_dir)
    facts = Facts(
        loaded_registry,
        manifest,
        seed,
        load_valkey_table(valkey_folder),
        load_valkey_docs(valkey_folder),
    )
    renderer = Renderer(
        course, directory_urls=directory_urls, valkey=facts.valkey, bytecode_cache=templates_cache
    )
    signatures = facts.signatures()
    store = evidence_store.EvidenceStore(facts, signatures, elsewhere=checks_elsewhere)
    problems: list[Problem] = []
    if checks:
        # What an earlier build found of each unchanged page: its checks need not run again;
        # each page checked now is kept as soon as it is, for a build's process that renders
        # while this one checks (core.checks_child), and for the next build.
        store.recall_all(list(course.pages.values()))
        problems = check_site(course, renderer, facts, checked=store.keep)
        store.prune()
    # Each page shows what its checks proved: this build's verdicts, or (when the checks run
    # in a child) the child's, kept on disk, else the same checks run here as it is rendered.
    kept: dict[str, tuple[Page, list[CheckedSentence]]] = {}

    def evidence(page: Page) -> list[CheckedSentence]:
        # Once a page: its marks, its evidence file and its module's "How we know" page ask.
        known = kept.get(page.id)
        if known is None or known[0] is not page:
            known = kept[page.id] = (page, store.evidence(page))
        return known[1]

    renderer.evidence = evidence
    errors = [problem for problem in problems if strict or not problem.strict_only]
    if errors:
        raise CourseError(errors)
    for problem in problems:
        if warn is not None and problem.strict_only:
            warn(problem)
    site = Site(course=course, renderer=renderer, registry=loaded_registry, manifest=manifest)
    site.renderer.inline_extensions.extend(site.markdown_extensions())
    return site


def _uses_the_model(course: Course) -> bool:
    """True when some page runs or marks the model (duties, a worked example, a choice)."""
    return any(
        page.duties or "/// worked-example" in page.body or "{choice:" in page.body
        for page in course.pages.values()
    )
