"""The schemas of the course's YAML: a page's front matter, course.yml and duties.yml.

Each is a pydantic model that forbids unknown keys and checks types strictly (text is text, a
flag is true or false, an id is a slug). `validate` reads data against one and turns every
error into a Problem at the line of the field it names, with "did you mean" for a misspelt
key, so an author's slip is one `FILE:LINE: what. Fix: how.` line, never a silently ignored
field or Python's form of a value in the page. The YAML itself (duplicate keys, alias loops,
`.nan`) is checked where it is read (trafikist.course.sources).

The scenarios' schema is the model's own (trafikist.model.scenario, stdlib only: it runs in
the page through Pyodide too); docs/authoring.md and docs/scenarios.md list every field.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from trafikist.base.errors import CourseError, Problem
from trafikist.course.sources import line_of_path

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN, max_length=80)]
# A title or a label: one line the theme shows in the navigation, a tab and a header.
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
# A summary or a sentence of the page: Markdown, a paragraph at most.
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)]
Status = Literal["built", "planned"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class UpNext(Strict):
    """A module's "Up next" texts: the next page's, the previous one's, and what comes after."""

    next: Text | None = None
    previous: Text | None = None
    after: Text | None = None


class PageFront(Strict):
    """A page's front matter (module.md, a dive, a book's page)."""

    id: Slug
    title: Title
    summary: Text
    status: Status
    # The status the published course gives a lesson this site has not written (a planned
    # page that the published course shows as built).
    published_status: Literal["built"] | None = None
    up_next: UpNext | None = None


class BookEntry(Strict):
    id: Slug
    title: Title
    summary: Text
    numbered: bool = False
    folder: Slug | None = None  # the book's folder in the site; its id by default


class CourseFile(Strict):
    """modules/course.yml: the course and its books, in reading order."""

    title: Title
    summary: Text
    books: Annotated[list[BookEntry], Field(min_length=1)]


class DutyEntry(Strict):
    id: Slug
    label: Title
    kind: Literal["waiting", "time", "broadcast"]
    library: Text
    trafikey: Text
    between_calls: Text
    scenarios: list[Slug] = []
    # The processes the widget follows: one name, or several.
    process: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None
    processes: list[Annotated[str, StringConstraints(min_length=1, max_length=80)]] | None = None


class DutiesFile(Strict):
    """A module's duties.yml: the "pick a duty" widget's rows."""

    duties: Annotated[list[DutyEntry], Field(min_length=1)]


Model = TypeVar("Model", bound=Strict)


def validate[Model: Strict](
    schema: type[Model],
    data: Any,
    path: Path,
    node: yaml.Node | None,
    *,
    first_line: int = 1,
    what: str,
    guide: str,
) -> Model:
    """`data` read against `schema`, or CourseError with one problem per error, each at the
    line of the field it names. `what` names the whole ("a page's front matter"), `guide` the
    section of the docs that lists the fields."""
    try:
        return schema.model_validate(data)
    except ValidationError as error:
        entries = _one_slip_once(schema, error.errors(include_url=False))
        problems = [
            _problem(schema, entry, path, node, first_line, _named(what, data, entry), guide)
            for entry in entries
        ]
    problems.sort(key=lambda problem: problem.line or 0)
    merged = _merge_missing(problems)
    # One line per line of the file: a value that fails each member of a union (text or
    # nothing) is one slip.
    unique = {problem.line: problem for problem in reversed(merged)}
    raise CourseError(sorted(unique.values(), key=lambda problem: problem.line or 0))


def _one_slip_once(schema: type[Strict], entries: list[Any]) -> list[Any]:
    """A misspelt key is one slip, not two: the unknown key is named (with "did you mean"),
    and the field it was meant to be is not also reported missing."""
    meant = set()
    for entry in entries:
        if entry["type"] == "extra_forbidden":
            loc = tuple(entry["loc"])
            close = difflib.get_close_matches(str(loc[-1]), _fields_at(schema, loc[:-1]), n=1)
            meant |= {(*loc[:-1], close[0])} if close else set()
    return [
        entry
        for entry in entries
        if not (entry["type"] == "missing" and tuple(entry["loc"]) in meant)
    ]


MISSING = " is missing the required field "


def _merge_missing(problems: list[Problem]) -> list[Problem]:
    """The fields one mapping lacks, in one line: one slip (an entry cut short) is one line."""
    merged: list[Problem] = []
    for problem in problems:
        last = merged[-1] if merged else None
        if (
            last is not None
            and MISSING in problem.what
            and last.line == problem.line
            and (MISSING in last.what or " is missing the required fields " in last.what)
            and last.what.split(" is missing")[0] == problem.what.split(" is missing")[0]
        ):
            owner, names = last.what.split(" is missing the required field", 1)
            names = names.removeprefix("s").strip().rstrip(".")
            name = problem.what.split(MISSING, 1)[1].rstrip(".")
            fix = last.fix.split(" (", 1)
            fields = f"{names}, {name}"
            merged[-1] = Problem(
                problem.file,
                problem.line,
                f"{owner} is missing the required fields {fields}.",
                f"Add {', '.join(f'{n.strip()}:' for n in fields.replace(chr(39), '').split(','))}"
                + (f" ({fix[1]}" if len(fix) > 1 else "."),
            )
            continue
        merged.append(problem)
    return merged


def _problem(
    schema: type[Strict],
    entry: Any,
    path: Path,
    node: yaml.Node | None,
    first_line: int,
    what: str,
    guide: str,
) -> Problem:
    loc = tuple(entry["loc"])
    field = _dotted(loc)
    line = line_of_path(node, field, first_line) if node is not None else first_line
    kind = entry["type"]
    value = entry.get("input")
    name = f"'{field}'"
    if kind == "extra_forbidden":
        known = _fields_at(schema, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), known, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        return Problem(
            path,
            line,
            f"{name} is not a field of {_owner(what, loc)}.{hint}",
            f"Use one of: {', '.join(known)} ({guide}).",
        )
    if kind == "missing":
        return Problem(
            path,
            line,
            f"{_owner(what, loc)} is missing the required field '{loc[-1]}'.",
            f"Add '{loc[-1]}:' ({guide}).",
        )
    if kind in ("string_type", "string_sub_type"):
        return Problem(
            path,
            line,
            f"{name} must be text, not {_kind(value)}.",
            "Write it as text: quote it if YAML reads it as a number, a date, a list or a mapping.",
        )
    if kind == "string_pattern_mismatch":
        return Problem(
            path,
            line,
            f"{name} is '{value}', which is not a lowercase slug.",
            "Use lowercase letters, digits and dashes, like 'the-consumer-loop'.",
        )
    if kind == "string_too_short":
        return Problem(path, line, f"{name} is empty.", f"Write it ({guide}).")
    if kind == "string_too_long":
        limit = entry.get("ctx", {}).get("max_length")
        return Problem(path, line, f"{name} is longer than {limit} characters.", "Shorten it.")
    if kind == "literal_error":
        expected = entry.get("ctx", {}).get("expected", "")
        return Problem(
            path, line, f"{name} is '{value}', not one of {expected}.", f"Write one of {expected}."
        )
    if kind == "bool_type":
        return Problem(
            path, line, f"{name} must be true or false, not {_kind(value)}.", "Write true or false."
        )
    if kind == "list_type":
        return Problem(
            path,
            line,
            f"{name} must be a list, not {_kind(value)}.",
            "Write one item a line, each starting with '- ', or [a, b].",
        )
    if kind == "too_short":
        return Problem(path, line, f"{name} is empty.", f"List at least one ({guide}).")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        where = name if field else what
        return Problem(
            path,
            line,
            f"{where} must be a mapping of fields, not {_kind(value)}.",
            f"Write it as 'field: value' lines ({guide}).",
        )
    return Problem(path, line, f"{name or what}: {entry['msg']}.", f"See {guide}.")


def _named(what: str, data: Any, entry: Any) -> str:
    """`what`, or the entry a field belongs to when it has an id: "the duty 'promote'"."""
    loc = tuple(entry["loc"])
    value = data
    for part in loc[:-1]:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            return what
    if isinstance(value, dict) and isinstance(value.get("id"), str) and len(loc) > 1:
        return f"'{_dotted(loc[:-1])}' (id '{value['id']}')"
    return what


def _dotted(loc: tuple[Any, ...]) -> str:
    """A pydantic location as line_of_path reads it: `books[1].title`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _fields_at(schema: type[Strict], loc: tuple[Any, ...]) -> list[str]:
    """The fields of the model at `loc` (the parent of an unknown key)."""
    model: Any = schema
    for part in loc:
        if isinstance(part, int):
            continue
        annotation = model.model_fields[part].annotation
        model = _model_in(annotation)
        if model is None:
            return []
    return list(model.model_fields)


def _model_in(annotation: Any) -> type[Strict] | None:
    if isinstance(annotation, type) and issubclass(annotation, Strict):
        return annotation
    for argument in getattr(annotation, "__args__", ()):
        found = _model_in(argument)
        if found is not None:
            return found
    return None


def _owner(what: str, loc: tuple[Any, ...]) -> str:
    """The mapping a field belongs to, as the author knows it."""
    if what.startswith("'"):
        return what  # already the entry's own name (`_named`)
    parents = [part for part in loc[:-1] if not isinstance(part, int)]
    return f"'{_dotted(loc[:-1])}'" if parents else what


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (a flag)"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "nothing"
    return f"a {type(value).__name__}"
