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
    ID_PATTERN,
    MODULE_FILE,
    load_course,
)
from trafikist.course.structure import Course, Kind, Page, Status

MAX_NUMBER = 99  # two-digit numbers: NN-slug


@dataclass(frozen=True)
class Created:
    path: Path
    kind: Kind
    number: int
    page_id: str
    status: Status


def slugify(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return slug or "untitled"


@dataclass(frozen=True)
class NewPage:
    """What an author gives for a new page; the scaffold finds its number and folder."""

    title: str
    summary: str | None = None
    status: Status = Status.PLANNED
    page_id: str | None = None  # default: a slug of the title


def new_module(modules_dir: Path, new: NewPage) -> Created:
    """Write modules/NN-slug/module.md with the next module number after the last one."""
    course = _load(modules_dir)
    numbers = [page.number for page in course.reading_order if page.kind is Kind.MODULE]
    number = max((n for n in numbers if n is not None), default=0) + 1
    if number > MAX_NUMBER:
        raise CourseError.at(
            modules_dir, None, "the course already has module 99.", "Merge or renumber modules."
        )
    slug = slugify(new.title)
    path = Path(modules_dir) / f"{number:02d}-{slug}" / MODULE_FILE
    return _create(course, modules_dir, new, Kind.MODULE, number, path)


def new_dive(modules_dir: Path, module: str, new: NewPage) -> Created:
    """Write modules/NN-slug/dives/NN-slug.md as the module's next dive."""
    course = _load(modules_dir)
    parent = _find_module(course, module, modules_dir)
    assert parent.source is not None
    number = len(parent.dives) + 1  # the loader holds dives to 01, 02 … with no gap
    if number > MAX_NUMBER:
        raise CourseError.at(
            parent.source, None, "the module already has 99 dives.", "Split the module."
        )
    path = parent.source.parent / "dives" / f"{number:02d}-{slugify(new.title)}.md"
    return _create(course, modules_dir, new, Kind.DIVE, number, path)


def _create(
    course: Course, modules_dir: Path, new: NewPage, kind: Kind, number: int, path: Path
) -> Created:
    page_id = _free_id(course, new.page_id or slugify(new.title), modules_dir)
    _write(path, f"scaffold/{kind.value}.md.j2", page_id, new.title, new.summary, new.status)
    return Created(path, kind, number, page_id, new.status)


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
    if not ID_PATTERN.match(page_id):
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
) -> None:
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
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
