"""Create a new module or dive from a template, numbered and placed so the course links it.

The loader derives the course's structure from folders, so writing the file under the right
number in the right folder IS the linking: the home page, the navigation, the module's dive
cards and the reading order all pick it up on the next build.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import jinja2

from trafikist.base.errors import CourseError
from trafikist.course.loader import (
    MODULE_FILE,
    load_course,
)
from trafikist.course.structure import SLUG_TEXT, Course, Kind, Page, Status, slugify

MAX_NUMBER = 99  # two-digit numbers: NN-slug


MAX_TEXT = 200  # characters of a title or a summary: one line of a card, not a paragraph
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Created:
    path: Path
    kind: Kind
    number: int
    page_id: str
    status: Status
    # What the scaffold made, the file first, then each folder it had to make (innermost
    # first): `undo` removes exactly these.
    made: tuple[Path, ...] = ()

    def undo(self) -> None:
        """Remove what the scaffold made (the course refused the new page): the command then
        changed nothing."""
        for path in self.made:
            if path.is_file() and not path.is_symlink():
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


@dataclass(frozen=True)
class NewPage:
    """What an author gives for a new page; the scaffold finds its number and folder."""

    title: str
    summary: str | None = None
    status: Status = Status.PLANNED
    page_id: str | None = None  # default: a slug of the title

    def check(self, modules_dir: Path) -> None:
        """The title and the summary are one line of text each, with something in it; the
        page needs a slug (from the title, or --id). CourseError before anything is written."""
        for name, text in (("title", self.title), ("summary", self.summary)):
            if text is None and name == "summary":
                continue
            why = None
            if not (text or "").strip():
                why = "is empty"
            elif CONTROL.search(text or ""):
                why = "holds a line break or another control character"
            elif len(text or "") > MAX_TEXT:
                why = f"is {len(text or '')} characters long, more than {MAX_TEXT}"
            if why is not None:
                raise CourseError.at(
                    modules_dir,
                    None,
                    f"the new page's {name} {why}; nothing was written",
                    f"Give a {name} of one line, up to {MAX_TEXT} characters, in quotes: "
                    'trafikist new module "Timers in the server" --summary "…".',
                )
        if not self.slug():
            raise CourseError.at(
                modules_dir,
                None,
                f"the title {self.title!r} has no ASCII letter or digit to name the page's "
                "file and id from; nothing was written",
                "Pass --id with a slug (lowercase letters, digits and dashes), such as "
                "--id timers-in-the-server.",
            )

    def slug(self) -> str:
        """The slug of the page's file or folder: the title's, else the id's."""
        return slugify(self.title) or slugify(self.page_id or "")


def new_module(modules_dir: Path, new: NewPage) -> Created:
    """Write modules/NN-slug/module.md with the next module number after the last one."""
    new.check(modules_dir)
    course = _load(modules_dir)
    numbers = [page.number for page in course.reading_order if page.kind is Kind.MODULE]
    number = max((n for n in numbers if n is not None), default=0) + 1
    if number > MAX_NUMBER:
        raise CourseError.at(
            modules_dir, None, "the course already has module 99.", "Merge or renumber modules."
        )
    path = Path(modules_dir) / f"{number:02d}-{new.slug()}" / MODULE_FILE
    return _create(course, modules_dir, new, Kind.MODULE, number, path)


def new_dive(modules_dir: Path, module: str, new: NewPage) -> Created:
    """Write modules/NN-slug/dives/NN-slug.md as the module's next dive."""
    new.check(modules_dir)
    course = _load(modules_dir)
    parent = _find_module(course, module, modules_dir)
    assert parent.source is not None
    number = len(parent.dives) + 1  # the loader holds dives to 01, 02 … with no gap
    if number > MAX_NUMBER:
        raise CourseError.at(
            parent.source, None, "the module already has 99 dives.", "Split the module."
        )
    path = parent.source.parent / "dives" / f"{number:02d}-{new.slug()}.md"
    return _create(course, modules_dir, new, Kind.DIVE, number, path)


def _create(
    course: Course, modules_dir: Path, new: NewPage, kind: Kind, number: int, path: Path
) -> Created:
    page_id = _free_id(course, new.page_id or new.slug(), modules_dir)
    made = _write(path, f"scaffold/{kind.value}.md.j2", page_id, new.title, new.summary, new.status)
    return Created(path, kind, number, page_id, new.status, made)


def _load(modules_dir: Path) -> Course:
    # The course must load before anything is added, so a new page never hides an old error
    # (the command line checks its links too: trafikist.cli).
    return load_course(Path(modules_dir))


def _find_module(course: Course, wanted: str, modules_dir: Path) -> Page:
    modules = [page for page in course.reading_order if page.kind is Kind.MODULE]
    for page in modules:
        folder = page.source.parent.name if page.source else ""
        if wanted in (page.id, folder) or (wanted.isdigit() and int(wanted) == page.number):
            return page
    known = ", ".join(f"{page.number_label} ({page.id})" for page in modules) or "none yet"
    raise CourseError.at(
        modules_dir,
        None,
        f"no module is numbered or named '{wanted}'.",
        f"Give the module's number or id; the course has: {known}.",
    )


def _free_id(course: Course, page_id: str, modules_dir: Path) -> str:
    if not SLUG_TEXT.match(page_id):
        raise CourseError.at(
            modules_dir,
            None,
            f"the id '{page_id}' is not a lowercase slug.",
            "Pass --id with lowercase letters, digits and dashes, like 'the-consumer-loop'.",
        )
    if page_id in course.pages:
        raise CourseError.at(
            course.pages[page_id].source or modules_dir,
            course.pages[page_id].line_of("id"),
            f"the id '{page_id}' is already used by this page.",
            "Pass --id with an id of its own, or pick another title.",
        )
    return page_id


def _write(
    path: Path, template: str, page_id: str, title: str, summary: str | None, status: Status
) -> tuple[Path, ...]:
    """Write the page; returns what was made (the file, then the folders it needed)."""
    if path.exists():
        raise CourseError.at(path, None, "already exists.", "Pick another title.")
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("trafikist.course", "templates"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    # JSON strings are valid YAML double-quoted scalars: any title survives the round trip.
    environment.filters["yaml"] = lambda text: json.dumps(text, ensure_ascii=False)
    text = environment.get_template(template).render(
        id=page_id,
        title=title,
        summary=summary or f"{title}: one sentence that says what the page teaches.",
        status=status.value,
        draft=status is Status.PLANNED,
    )
    folders = [folder for folder in path.parents if not folder.exists()]
    path.parent.mkdir(parents=True, exist_ok=True)
    made = (path, *folders)
    try:
        path.write_text(text, encoding="utf-8")
    except BaseException:
        Created(path, Kind.MODULE, 0, page_id, status, made).undo()
        raise
    return made
