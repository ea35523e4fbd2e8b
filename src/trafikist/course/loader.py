"""Load the course from `modules/`: books, modules, dives, duties, their order and their links.

The layout is the structure; nothing keeps a separate nav list:

    modules/course.yml                         the course and its books, in order
    modules/NN-slug/module.md                  module NN of the numbered book
    modules/NN-slug/dives/NN-slug.md           its dives, numbered 01, 02 … in order
    modules/NN-slug/duties.yml                 the "pick a duty" data of the module
    modules/NN-slug/scenarios/NAME.yml         scenarios that duties and dives run
    modules/books/BOOK/NN-slug.md              pages of a companion book, in file order
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from trafikist.base.errors import CourseError, display_path
from trafikist.base.files import require_file
from trafikist.base.memo import BoundedCache
from trafikist.base.reading import reading
from trafikist.course.schemas import CourseFile, DutiesFile, DutyEntry, PageFront, validate
from trafikist.course.sources import (
    line_of_path,
    load_yaml_node,
    read_front_matter,
    read_text,
    yaml_source_quotes,
)
from trafikist.course.structure import (
    SCENARIOS_FOLDER,
    SLUG_PATTERN,
    Book,
    Course,
    Duty,
    Kind,
    Page,
    Status,
    scenario_file,
)
from trafikist.course.syntax import strip_claims
from trafikist.model import Scenario, ScenarioError

COURSE_FILE = "course.yml"
MODULE_FILE = "module.md"
DUTIES_FILE = "duties.yml"
NUMBERED_NAME = re.compile(rf"^(?P<number>\d{{2}})-(?P<slug>{SLUG_PATTERN})$")
# An internal link is written by id: [text](id:page-id) or [text](id:page-id#fragment).
ID_LINK = re.compile(r"\]\(id:(?P<id>[^)#\s]*)(?:#[^)\s]*)?\)")


def load_course(root: Path) -> Course:
    """Read every source under `root` and return the course, or raise CourseError.

    Links are checked with the rest of the course (trafikist.checks), once generated pages have
    joined it.
    """
    root = Path(root)
    course_file = root / COURSE_FILE
    require_file(
        course_file,
        "the course file is missing.",
        f"Create {COURSE_FILE} with the course title and its books, or point the "
        "'modules_dir' option at the folder that holds it.",
    )
    data, node = load_yaml_node(read_text(course_file), course_file)
    course = validate(
        CourseFile,
        data,
        course_file,
        node,
        what="the course file",
        guide='docs/authoring.md, "The course file"',
    )
    lines = {name: line_of_path(node, name) or 1 for name in data}
    books = _load_books(course, course_file, node)
    pages: dict[str, Page] = {}
    home = Page(
        id="home",
        kind=Kind.HOME,
        title=course.title,
        summary=course.summary,
        status=Status.BUILT,
        book=None,
        source=course_file,
        meta=data,
        meta_lines=lines,
    )
    _add(pages, home)
    numbered = next(book for book in books if book.numbered)
    reading_order = _load_modules(root, numbered, pages)
    for book in books:
        if not book.numbered:
            _load_book_pages(root / "books" / book.id, book, pages)
    _check_book_folders(root / "books", books, course_file, node)
    return Course(root=root, books=books, pages=pages, reading_order=reading_order)


def _load_books(course: CourseFile, path: Path, node: Any) -> list[Book]:
    _refuse_repeated_ids([entry.id for entry in course.books], "books", "book", path, node)
    books = [
        Book(
            id=entry.id,
            title=entry.title,
            summary=entry.summary,
            folder=entry.folder or entry.id,
            numbered=entry.numbered,
        )
        for entry in course.books
    ]
    if sum(book.numbered for book in books) != 1:
        raise CourseError.at(
            path,
            line_of_path(node, "books") or 1,
            "exactly one book must hold the numbered modules.",
            "Mark that book with 'numbered: true'.",
        )
    return books


def _refuse_repeated_ids(ids: list[str], field: str, noun: str, path: Path, node: Any) -> None:
    """Each entry of the list `field` (books, duties) has its own id; a repeat is named at its
    own line, not the first entry's."""
    seen: set[str] = set()
    for index, entry_id in enumerate(ids):
        if entry_id in seen:
            raise CourseError.at(
                path,
                line_of_path(node, f"{field}[{index}].id") or 1,
                f"the {noun} id '{entry_id}' is used twice.",
                f"Give each {noun} its own id.",
            )
        seen.add(entry_id)


def _check_book_folders(folder: Path, books: list[Book], course_file: Path, node: Any) -> None:
    """Every folder of modules/books/ is a book course.yml lists: one it does not list would
    never be published, and no one would be told."""
    listed = {book.id for book in books if not book.numbered}
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        if entry.is_dir() and not entry.name.startswith((".", "_")) and entry.name not in listed:
            close = difflib.get_close_matches(entry.name, sorted(listed), n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise CourseError.at(
                course_file,
                line_of_path(node, "books") or 1,
                f"the book folder 'books/{entry.name}' is not a book of the course.{hint}",
                f"Add a book with 'id: {entry.name}' to 'books:', or move the folder out of "
                "modules/books/.",
            )


def _numbered_entries(folder: Path, *, dirs: bool) -> list[tuple[int, str, Path]]:
    entries = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else []:
        if dirs != entry.is_dir() or entry.name.startswith((".", "_")):
            continue
        name = entry.name if dirs else entry.stem
        if not dirs and entry.suffix != ".md":
            continue
        match = NUMBERED_NAME.match(name)
        if match is None:
            if dirs and entry.name == "books":
                continue
            raise CourseError.at(
                entry,
                None,
                f"'{entry.name}' does not follow the NN-slug naming.",
                "Name it with a two-digit number and a lowercase slug, like '04-the-bus"
                + ("'." if dirs else ".md'."),
            )
        entries.append((int(match["number"]), match["slug"], entry))
    return entries


def _load_modules(root: Path, book: Book, pages: dict[str, Page]) -> list[Page]:
    order: list[Page] = []
    numbers: dict[int, Path] = {}
    for number, slug, folder in _numbered_entries(root, dirs=True):
        if number in numbers:
            raise CourseError.at(
                folder,
                None,
                f"module {number:02d} is also '{numbers[number].name}': two modules share a "
                "number.",
                "Renumber one of the folders: each module has a number of its own.",
            )
        numbers[number] = folder
        module_file = folder / MODULE_FILE
        require_file(
            module_file,
            "the module folder has no module.md.",
            "Create it with 'trafikist new module' or move the folder out of modules/.",
        )
        module = _page_from_file(
            module_file, Kind.MODULE, book, f"{book.folder}/{number:02d}-{slug}"
        )
        module.number = number
        _add(pages, module)
        book.pages.append(module)
        order.append(module)
        dives = _numbered_entries(folder / "dives", dirs=False)
        for expected, (dive_number, dive_slug, dive_file) in enumerate(dives, start=1):
            if dive_number != expected:
                raise CourseError.at(
                    dive_file,
                    None,
                    f"dive numbered {dive_number:02d} out of sequence: module {number:02d} "
                    f"expects dive {expected:02d} here.",
                    f"Rename it to '{expected:02d}-{dive_slug}.md' (dives count 01, 02, … "
                    "with no gap or repeat).",
                )
            dive = _page_from_file(
                dive_file, Kind.DIVE, book, f"{module.path}/{dive_number:02d}-{dive_slug}"
            )
            dive.number = dive_number
            dive.parent = module
            module.dives.append(dive)
            _add(pages, dive)
            order.append(dive)
        module.duties = _load_duties(folder)
    return order


def _load_book_pages(folder: Path, book: Book, pages: dict[str, Page]) -> None:
    for number, slug, page_file in _numbered_entries(folder, dirs=False):
        page = _page_from_file(page_file, Kind.BOOK_PAGE, book, f"{book.folder}/{slug}")
        page.number = number
        book.pages.append(page)
        _add(pages, page)


def _page_from_file(path: Path, kind: Kind, book: Book, site_path: str) -> Page:
    document = read_front_matter(path)
    meta = document.meta
    front = validate(
        PageFront,
        meta,
        path,
        document.node,
        first_line=2,
        what=f"the {kind.value.replace('-', ' ')}'s front matter",
        guide='docs/authoring.md, "Front matter"',
    )
    status = Status(front.status)
    return Page(
        id=front.id,
        kind=kind,
        # The title shows as text: a marked span shows its words (its claim is checked from
        # the front matter, `meta`, and its evidence shown at the title's end).
        title=strip_claims(front.title),
        summary=front.summary,
        status=status,
        book=book,
        source=path,
        body=document.body,
        body_line=document.body_line,
        meta=meta,
        meta_lines=document.meta_lines,
        path=site_path,
        published_status=_published_status(meta, document.meta_lines, status, path),
    )


def _published_status(
    meta: dict[str, Any], lines: dict[str, int], status: Status, path: Path
) -> Status | None:
    """`published_status:`, the status the published course gives a lesson this site has not
    written: only a planned page has one, and it is built."""
    value = meta.get("published_status")
    if value is None:
        return None
    if status is not Status.PLANNED or value != Status.BUILT.value:
        raise CourseError.at(
            path,
            lines.get("published_status"),
            f"'published_status: {value}' is for a planned page that the published course "
            "shows as built.",
            "Write 'published_status: built' on a planned page, or remove the field.",
        )
    return Status.BUILT


def _add(pages: dict[str, Page], page: Page) -> None:
    if page.id in pages:
        first = pages[page.id]
        raise CourseError.at(
            page.source or "modules",
            page.line_of("id"),
            f"the id '{page.id}' is already used by {display_path(first.source or 'modules')}.",
            "Give this page an id of its own; ids are unique across the course.",
        )
    pages[page.id] = page


def _load_duties(folder: Path) -> list[Duty]:
    path = folder / DUTIES_FILE
    if not path.is_file():
        return []
    text = read_text(path)
    text_lines = text.splitlines()
    data, node = load_yaml_node(text, path)
    schema = validate(
        DutiesFile,
        data,
        path,
        node,
        what="duties.yml",
        guide='docs/authoring.md, "The duties"',
    )
    _refuse_repeated_ids([entry.id for entry in schema.duties], "duties", "duty", path, node)
    duties: list[Duty] = []
    for index, entry in enumerate(schema.duties):
        line = line_of_path(node, f"duties[{index}].id") or 1
        for number, name in enumerate(entry.scenarios):
            scenario = scenario_file(folder, name)
            if not scenario.is_file():
                raise CourseError.at(
                    path,
                    line_of_path(node, f"duties[{index}].scenarios[{number}]") or line,
                    f"the duty '{entry.id}' names an unknown scenario '{name}'.",
                    f"Create scenarios/{name}.yml beside duties.yml, or name an existing one"
                    + _known_scenarios(folder),
                )
            check_scenario(scenario)
        _check_processes(entry, list(entry.scenarios), folder, path, line)
        lines = {
            name: line_of_path(node, f"duties[{index}].{name}") or line for name in Duty.TEXT_FIELDS
        }
        duties.append(
            Duty(
                id=entry.id,
                label=entry.label,
                kind=entry.kind,
                library=entry.library,
                trafikey=entry.trafikey,
                between_calls=entry.between_calls,
                scenarios=list(entry.scenarios),
                source=path,
                line=line,
                lines=lines,
                sources={
                    name: yaml_source_quotes(text_lines, field_line)
                    for name, field_line in lines.items()
                },
            )
        )
    return duties


def _known_scenarios(folder: Path) -> str:
    names = sorted(path.stem for path in (folder / SCENARIOS_FOLDER).glob("*.yml"))
    return f" ({', '.join(names)})." if names else "."


def _check_processes(
    entry: DutyEntry, scenarios: list[str], folder: Path, path: Path, line: int
) -> None:
    """A duty's `process` (or `processes`) names the processes the widget follows; each must
    be a process, by name or by kind, of one of the scenarios the duty runs."""
    duty_id = entry.id
    if entry.process is None and entry.processes is None:
        return
    wanted = [entry.process] if entry.process is not None else list(entry.processes or [])
    known: dict[str, None] = {}
    for name in scenarios:
        for process in check_scenario(scenario_file(folder, name)).processes:
            known[process.name] = None
            known[process.kind] = None
    for name in wanted:
        if name not in known:
            where = ", ".join(f"scenarios/{scenario}.yml" for scenario in scenarios)
            raise CourseError.at(
                path,
                line,
                f"the duty '{duty_id}' names an unknown process '{name}'"
                + (
                    f": no scenario it runs ({where}) has a process of that name or kind."
                    if scenarios
                    else ": the duty runs no scenario."
                ),
                f"Use one of: {', '.join(known)}."
                if known
                else "Add 'scenarios:' to the duty, with the scenario whose process it follows.",
            )


# Scenario files checked during this process's life: (path, content) -> the checked scenario.
# A serve rebuild re-checks only the files whose text changed.
SCENARIOS: BoundedCache[tuple[Path, str], Scenario] = BoundedCache(512)


def check_scenario(path: Path) -> Scenario:
    """Read a scenario file and check it against the model's schema; raise CourseError naming
    the file, the line of the bad field, what is wrong and the fix. The guard names the
    scenario while it is read, and the file that named it again after (a duty, a question)."""
    with reading(path):
        return _check_scenario(path)


def _check_scenario(path: Path) -> Scenario:
    text = read_text(path)
    cached = SCENARIOS.get((path, text))
    if cached is not None:
        return cached
    data, node = load_yaml_node(text, path)
    try:
        scenario = Scenario.from_dict(data, source=str(path))
    except ScenarioError as error:
        field = f"'{error.path}' " if error.path else ""
        raise CourseError.at(
            path,
            line_of_path(node, error.path),
            f"the scenario breaks its schema: {field}{error.what}",
            f"{error.fix} (docs/scenarios.md lists every field.)",
        ) from None
    return SCENARIOS.put((path, text), scenario)


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings_in(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings_in(item)]
    return []
