"""The course's domain objects: books, pages and their statuses.

These are plain data. The loader builds them from `modules/`; the renderer and every adapter
read them. Nothing here knows about MkDocs.
"""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

# A slug names a page (its id, the NN-slug of its file or folder), a book's folder, a scenario, a
# question, a transcript and a library default: lowercase ASCII letters, digits and hyphens, a
# letter or digit first. SLUG_PATTERN goes into a larger pattern; SLUG_TEXT is a whole slug.
SLUG_PATTERN = r"[a-z0-9][a-z0-9-]*"
SLUG_TEXT = re.compile(rf"^{SLUG_PATTERN}$")
SLUG_MAX_LENGTH = 80  # characters of an id the author writes: a page's, a question's


def slugify(words: str) -> str:
    """The slug of a title or a question's prompt: lowercase ASCII letters and digits, runs of
    anything else as one dash; "" when the words have none."""
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")


class Status(StrEnum):
    BUILT = "built"
    PLANNED = "planned"


class Kind(StrEnum):
    HOME = "home"
    MODULE = "module"
    DIVE = "dive"
    BOOK_PAGE = "book-page"
    REFERENCE = "reference"
    REVIEW = "review"  # Check yourself: every question of the course (trafikist.course.review)


# A module's scenarios, beside its module.md and duties.yml: scenarios/NAME.yml.
SCENARIOS_FOLDER = "scenarios"


def scenario_file(module_folder: Path, name: str) -> Path:
    """The scenario NAME of the module whose folder is `module_folder`."""
    return module_folder / SCENARIOS_FOLDER / f"{name}.yml"


STATUS_LEGEND = {
    Status.BUILT: "page ready to read",
    Status.PLANNED: "page not written yet",
}

# Where the navigation and the home page list the pages that are not written yet, after every
# written one.
PLANNED_HEADING = "Not written yet"
PLANNED_SUMMARY = (
    "Pages the course plans: each stands with its title, its summary and the pages that link "
    "to it, under a planned badge."
)


@dataclass
class Book:
    """One book of the course: Trafikist itself (numbered modules) or a companion book."""

    id: str
    title: str
    summary: str
    folder: str  # URL folder of its pages, e.g. "queue"
    numbered: bool  # True for the book of modules (module 03, 04 …)
    pages: list[Page] = field(default_factory=list)


@dataclass
class Page:
    """One page of the site, as the course describes it."""

    id: str
    kind: Kind
    title: str
    summary: str
    status: Status
    book: Book | None
    source: Path | None  # the author's file, or None for a generated page
    body: str = ""  # Markdown after the front matter
    body_line: int = 1  # line of `source` where `body` starts
    meta: dict[str, Any] = field(default_factory=dict)
    number: int | None = None
    parent: Page | None = None
    dives: list[Page] = field(default_factory=list)
    path: str = ""  # folder of the page in the site, "" for the home page
    duties: list[Duty] = field(default_factory=list)
    meta_lines: dict[str, int] = field(default_factory=dict)  # front matter key -> line
    # The status the published course (the seed) shows for a lesson this site has not written:
    # a card that points to it keeps the published badge and says the site lacks it.
    published_status: Status | None = None

    @property
    def module_folder(self) -> Path | None:
        """The folder of the module the page belongs to (its duties.yml, scenarios/ and
        transcripts/): a module's own, a dive's module's; None for any other page."""
        if self.kind is Kind.DIVE and self.parent is not None:
            return self.parent.module_folder
        if self.kind is Kind.MODULE and self.source is not None:
            return self.source.parent
        return None

    @property
    def scenarios_folder(self) -> Path | None:
        """Its module's scenarios/, or None for a page of no module."""
        module = self.module_folder
        return module / SCENARIOS_FOLDER if module is not None else None

    @property
    def number_label(self) -> str:
        return f"{self.number:02d}" if self.number is not None else ""

    @property
    def kicker(self) -> str:
        """The label above the title, parts separated by middle dots."""
        if self.kind is Kind.MODULE and self.book is not None:
            return f"{self.book.title} · module {self.number_label}"
        if self.kind is Kind.DIVE and self.parent is not None:
            return f"{self.parent.kicker} · dive {self.number_label}"
        if self.book is not None:
            return self.book.title
        return ""

    @property
    def written(self) -> bool:
        return self.status is Status.BUILT

    def src_uri(self) -> str:
        """Where the generated Markdown lives among the site's files.

        A written module is the index page of its section (its dives sit under it), so the
        section's heading in the navigation opens it. Every other page is a plain file: the
        theme makes a section's first index page its heading, and a heading must never open a
        page that is not written (nor take that page out of the list below it). Either way the
        page's address is the same folder under directory URLs.
        """
        if not self.path:
            return "index.md"
        if self.kind is Kind.MODULE and self.written:
            return f"{self.path}/index.md"
        return f"{self.path}.md"

    def label(self, *, with_module: bool = False) -> str:
        """The page's label in the navigation: "04 · Title" for a module, "01 · Title" for a
        dive ("04 · 01 · Title" `with_module`, where the module is not above it), the title
        for any other page."""
        if self.kind is Kind.MODULE:
            return f"{self.number_label} · {self.title}"
        if self.kind is Kind.DIVE:
            prefix = f"{self.parent.number_label} · " if with_module and self.parent else ""
            return f"{prefix}{self.number_label} · {self.title}"
        return self.title

    def url(self, directory_urls: bool = True) -> str:
        return address(self.src_uri(), directory_urls).url

    def line_of(self, key: str) -> int | None:
        return self.meta_lines.get(key)


@dataclass
class Duty:
    """One duty of the "pick a duty" widget: who carries it today, and how to run it."""

    id: str
    label: str
    kind: str  # waiting, time or broadcast
    library: str
    trafikey: str
    between_calls: str
    scenarios: list[str]
    source: Path
    line: int
    lines: dict[str, int] = field(default_factory=dict)  # field -> its line in duties.yml
    # field -> the seed sentences its source comments (`# seed: "…"` above it) cite
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)

    TEXT_FIELDS = ("label", "library", "trafikey", "between_calls")

    def text(self, name: str) -> str:
        return str(getattr(self, name))

    def line_of(self, name: str) -> int:
        return self.lines.get(name, self.line)

    @property
    def default_scenario(self) -> Path | None:
        """The scenario the duty runs by default (its first): the widget's baked run, the run
        its sentences and a question's `run: duty ID` are about; None for a duty without one."""
        if not self.scenarios:
            return None
        return scenario_file(self.source.parent, self.scenarios[0])  # beside duties.yml


@dataclass
class Course:
    """The course's books and pages. Its title, summary and course file's fields are its home
    page's (`home`: title, summary, meta), read from course.yml once."""

    root: Path
    books: list[Book]
    pages: dict[str, Page]
    reading_order: list[Page]  # the numbered book's modules and dives, in order

    def page(self, page_id: str) -> Page:
        return self.pages[page_id]

    def neighbours(self, page: Page) -> tuple[Page | None, Page | None]:
        """The previous page in reading order (the lesson this one assumes, written or not), and
        the next written one: a "Next" never leads a reader into a page that is not written
        while a written one remains. After the last written page, it is the next lesson in
        reading order, which its badge marks as planned (the seed's own pointer onwards)."""
        order = self.reading_order
        # By id, unique in a course: a Page's own == compares every field, page by page.
        index = next((at for at, step in enumerate(order) if step.id == page.id), None)
        if index is None:
            return None, None
        previous = order[index - 1] if index > 0 else None
        later = order[index + 1 :]
        following = next((step for step in later if step.written), later[0] if later else None)
        return previous, following

    def listings(self) -> tuple[list[BookListing], list[BookListing]]:
        """The books as the navigation and the home page list them: first every written page,
        book by book in course order, then every planned page, book by book. A reader who
        follows "Next" from the home page meets every written page before any planned one."""
        written: list[BookListing] = []
        planned: list[BookListing] = []
        for book in self.books:
            entries: list[ListedPage] = []
            waiting: list[ListedPage] = []
            for page in book.pages:
                dives = tuple(dive for dive in page.dives if dive.written)
                if page.written or dives:
                    entries.append(ListedPage(page, dives))
                if not page.written:
                    waiting.append(ListedPage(page))
                waiting += [ListedPage(dive) for dive in page.dives if not dive.written]
            if entries:
                written.append(BookListing(book, tuple(entries)))
            if waiting:
                planned.append(BookListing(book, tuple(waiting), planned=True))
        return written, planned

    def site_order(self) -> list[Page]:
        """Every page in the order the navigation lists them (each engine's footer follows
        it): the home page, the written pages, then the planned ones."""
        written, planned = self.listings()
        order = [self.home]
        for listing in [*written, *planned]:
            for entry in listing.entries:
                if entry.opens:
                    order.append(entry.page)
                order += entry.dives
        return order

    @property
    def home(self) -> Page:
        return self.pages["home"]

    @property
    def title(self) -> str:
        return self.home.title

    @property
    def summary(self) -> str:
        return self.home.summary


@dataclass(frozen=True)
class ListedPage:
    """A page as a listing shows it. Under a written module, its written dives; a module that
    is not written but has written dives heads them without opening itself (it is listed again
    with the planned pages)."""

    page: Page
    dives: tuple[Page, ...] = ()

    @property
    def opens(self) -> bool:
        return self.page.written or not self.dives


@dataclass(frozen=True)
class BookListing:
    book: Book
    entries: tuple[ListedPage, ...]
    planned: bool = False  # the book's pages that are not written yet

    @property
    def title(self) -> str:
        """The numbered book is listed as "Modules" (its title is the course's own, which the
        site's name and the home page's heading already show), and its planned pages as "More
        modules": each list of the navigation is a landmark, whose name must be its own."""
        if not self.book.numbered:
            return self.book.title
        return "More modules" if self.planned else "Modules"


@dataclass(frozen=True)
class Address:
    url: str  # relative to the site's root: "", "a/b/" or "a/b.html"
    file: str  # the HTML file the engine writes, relative to the site: "a/b/index.html"


def address(src_uri: str, directory_urls: bool = True) -> Address:
    """Where a Markdown file of the site's docs (`a/b.md`, `a/index.md`) is served and written,
    as MkDocs and Zensical both place it: `a/b/` in `a/b/index.html` with directory URLs,
    `a/b.html` without; an index page is its folder's page either way."""
    stem = src_uri.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        folder = stem.removesuffix("index")
        return Address(folder if directory_urls else f"{folder}index.html", f"{folder}index.html")
    if directory_urls:
        return Address(f"{stem}/", f"{stem}/index.html")
    return Address(f"{stem}.html", f"{stem}.html")


@functools.lru_cache(maxsize=8192)  # a page links to the same few pages many times
def relative_link(source: str, target: str) -> str:
    """A relative link between two site URLs ("a/b/", "a/b/index.html" or "" for the home)."""
    here = source.rstrip("/") if source.endswith("/") else posixpath.dirname(source)
    if not target or target.endswith("/"):
        rel = posixpath.relpath(target or ".", here or ".")
        return "./" if rel == "." else rel + "/"
    return posixpath.relpath(target, here or ".")
