"""The schemas of the course's YAML: a page's front matter, course.yml and duties.yml.

Each is a frozen dataclass whose fields say how they are read (`Rule`s): unknown keys are
refused and types are strict (text is text, a flag is true or false, an id is a slug).
`validate` reads data against one and turns every error into a Problem at the line of the
field it names, with "did you mean" for a misspelt key, so an author's slip is one
`FILE:LINE: what. Fix: how.` line, never a silently ignored field or Python's form of a value
in the page. The YAML itself (duplicate keys, alias loops, `.nan`) is checked where it is read
(trafikist.course.sources).

The rules are written here, with the standard library. pydantic read them before (these keep
its errors: their kinds, places and order), but its import and its schema building cost every
build about 0.2 s of CPU, more than loading the course itself.

The scenarios' schema is the model's own (trafikist.model.scenario, stdlib only: it runs in
the page through Pyodide too); docs/authoring.md and docs/scenarios.md list every field.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import yaml

from trafikist.base.errors import CourseError, Problem
from trafikist.course.sources import line_of_path
from trafikist.course.structure import SLUG_MAX_LENGTH, SLUG_TEXT
from trafikist.model.scenario import describe_value

# An error, as the Problem it becomes reads it: its kind, its place (keys and indexes), the
# value, and the kind's details (a limit, the values expected).
Error = dict[str, Any]
Location = tuple[str | int, ...]


# -- the rules a field is read by --------------------------------------------------------------


class Rule:
    """How one value is read: `read` returns it as the model keeps it, or appends errors."""

    def read(self, value: Any, loc: Location, errors: list[Error]) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Text(Rule):
    """Text: a str (nothing else is turned into one), trimmed if `strip`, within its lengths
    and its pattern; the first of these that fails is the error."""

    min_length: int = 0
    max_length: int | None = None
    pattern: str | None = None
    strip: bool = False

    def read(self, value: Any, loc: Location, errors: list[Error]) -> Any:
        if not isinstance(value, str):
            errors.append(_error("string_type", loc, value))
            return None
        text = value.strip(WHITE_SPACE) if self.strip else value
        if len(text) < self.min_length:
            errors.append(_error("string_too_short", loc, value, min_length=self.min_length))
        elif self.max_length is not None and len(text) > self.max_length:
            errors.append(_error("string_too_long", loc, value, max_length=self.max_length))
        elif self.pattern is not None and re.search(self.pattern, text) is None:
            errors.append(_error("string_pattern_mismatch", loc, value, pattern=self.pattern))
        else:
            return text
        return None


@dataclass(frozen=True)
class Flag(Rule):
    def read(self, value: Any, loc: Location, errors: list[Error]) -> Any:
        if not isinstance(value, bool):
            errors.append(_error("bool_type", loc, value))
        return value


@dataclass(frozen=True)
class OneOf(Rule):
    """One of a few words."""

    values: tuple[str, ...]

    def read(self, value: Any, loc: Location, errors: list[Error]) -> Any:
        if not isinstance(value, str) or value not in self.values:
            quoted = [f"'{each}'" for each in self.values]
            expected = " or ".join(quoted) if len(quoted) < 3 else None
            expected = expected or f"{', '.join(quoted[:-1])} or {quoted[-1]}"
            errors.append(_error("literal_error", loc, value, expected=expected))
        return value


@dataclass(frozen=True)
class ListOf(Rule):
    item: Rule
    min_length: int = 0

    def read(self, value: Any, loc: Location, errors: list[Error]) -> Any:
        if not isinstance(value, list):
            errors.append(_error("list_type", loc, value))
            return None
        if len(value) < self.min_length:
            errors.append(_error("too_short", loc, value, min_length=self.min_length))
            return None
        return [self.item.read(each, (*loc, index), errors) for index, each in enumerate(value)]


@dataclass(frozen=True)
class Mapping(Rule):
    """A mapping of fields, read into `schema` (a Strict dataclass)."""

    schema: type[Strict]

    def read(self, value: Any, loc: Location, errors: list[Error]) -> Any:
        return _read(self.schema, value, loc, errors)


@dataclass(frozen=True)
class Optional(Rule):
    """Nothing (YAML's null, or the key left out), or what `rule` reads."""

    rule: Rule

    def read(self, value: Any, loc: Location, errors: list[Error]) -> Any:
        return None if value is None else self.rule.read(value, loc, errors)


# Unicode's White_Space characters, which a trimmed text loses at either end (str.strip() would
# take the separators U+001C to U+001F too; pydantic kept them, and so does this).
WHITE_SPACE = "\t\n\v\f\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B)))
WHITE_SPACE += "\u2028\u2029\u202f\u205f\u3000"


def _error(kind: str, loc: Location, value: Any, **ctx: Any) -> Error:
    return {"type": kind, "loc": loc, "input": value, "ctx": ctx, "msg": kind.replace("_", " ")}


# A page's id, a book's folder, a scenario's name: a lowercase slug.
SLUG = Text(max_length=SLUG_MAX_LENGTH, pattern=SLUG_TEXT.pattern)
# A title or a label: one line the theme shows in the navigation, a tab and a header.
TITLE = Text(min_length=1, max_length=200, strip=True)
# A summary or a sentence of the page: Markdown, a paragraph at most.
TEXT = Text(min_length=1, max_length=4000, strip=True)
STATUS = OneOf(("built", "planned"))
NAME = Text(min_length=1, max_length=80)  # a process of a scenario


class Strict:
    """A frozen dataclass of fields read by `RULES`, with no key beside them; a field with a
    default may be left out."""

    RULES: ClassVar[dict[str, Rule]]


@dataclass(frozen=True)
class UpNext(Strict):
    """A module's "Up next" texts: the next page's, the previous one's, and what comes after."""

    RULES: ClassVar[dict[str, Rule]] = {
        "next": Optional(TEXT),
        "previous": Optional(TEXT),
        "after": Optional(TEXT),
    }
    next: str | None = None
    previous: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class PageFront(Strict):
    """A page's front matter (module.md, a dive, a book's page)."""

    RULES: ClassVar[dict[str, Rule]] = {
        "id": SLUG,
        "title": TITLE,
        "summary": TEXT,
        "status": STATUS,
        # The status the published course gives a lesson this site has not written (a planned
        # page that the published course shows as built).
        "published_status": Optional(OneOf(("built",))),
        "up_next": Optional(Mapping(UpNext)),
    }
    id: str
    title: str
    summary: str
    status: str
    published_status: str | None = None
    up_next: UpNext | None = None


@dataclass(frozen=True)
class BookEntry(Strict):
    RULES: ClassVar[dict[str, Rule]] = {
        "id": SLUG,
        "title": TITLE,
        "summary": TEXT,
        "numbered": Flag(),
        "folder": Optional(SLUG),  # the book's folder in the site; its id by default
    }
    id: str
    title: str
    summary: str
    numbered: bool = False
    folder: str | None = None


@dataclass(frozen=True)
class CourseFile(Strict):
    """modules/course.yml: the course and its books, in reading order."""

    RULES: ClassVar[dict[str, Rule]] = {
        "title": TITLE,
        "summary": TEXT,
        "books": ListOf(Mapping(BookEntry), min_length=1),
    }
    title: str
    summary: str
    books: list[BookEntry]


@dataclass(frozen=True)
class DutyEntry(Strict):
    RULES: ClassVar[dict[str, Rule]] = {
        "id": SLUG,
        "label": TITLE,
        "kind": OneOf(("waiting", "time", "broadcast")),
        "library": TEXT,
        "trafikey": TEXT,
        "between_calls": TEXT,
        "scenarios": ListOf(SLUG),
        # The processes the widget follows: one name, or several.
        "process": Optional(NAME),
        "processes": Optional(ListOf(NAME)),
    }
    id: str
    label: str
    kind: str
    library: str
    trafikey: str
    between_calls: str
    scenarios: list[str] = dataclasses.field(default_factory=list)
    process: str | None = None
    processes: list[str] | None = None


@dataclass(frozen=True)
class DutiesFile(Strict):
    """A module's duties.yml: the "pick a duty" widget's rows."""

    RULES: ClassVar[dict[str, Rule]] = {"duties": ListOf(Mapping(DutyEntry), min_length=1)}
    duties: list[DutyEntry]


def _required(schema: type[Strict]) -> set[str]:
    return {
        field.name
        for field in dataclasses.fields(schema)  # type: ignore[arg-type]  # each Strict is one
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
    }


def _read[Model: Strict](
    schema: type[Model], data: Any, loc: Location, errors: list[Error]
) -> Model | None:
    """`data` read into `schema`: each field in order, then each key that is no field."""
    if not isinstance(data, dict):
        errors.append(_error("model_type", loc, data, class_name=schema.__name__))
        return None
    before = len(errors)
    required = _required(schema)
    values: dict[str, Any] = {}
    for name, rule in schema.RULES.items():
        if name in data:
            values[name] = rule.read(data[name], (*loc, name), errors)
        elif name in required:
            errors.append(_error("missing", (*loc, name), data))
    for key in data:
        if key not in schema.RULES:
            errors.append(_error("extra_forbidden", (*loc, key), data[key]))
    return schema(**values) if len(errors) == before else None


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
    errors: list[Error] = []
    found = _read(schema, data, (), errors)
    if found is not None:
        return found
    entries = _one_slip_once(schema, errors)
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
            f"{name} must be text, not {describe_value(value)}.",
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
            path,
            line,
            f"{name} must be true or false, not {describe_value(value)}.",
            "Write true or false.",
        )
    if kind == "list_type":
        return Problem(
            path,
            line,
            f"{name} must be a list, not {describe_value(value)}.",
            "Write one item a line, each starting with '- ', or [a, b].",
        )
    if kind == "too_short":
        return Problem(path, line, f"{name} is empty.", f"List at least one ({guide}).")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        where = name if field else what
        return Problem(
            path,
            line,
            f"{where} must be a mapping of fields, not {describe_value(value)}.",
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
    """A location as line_of_path reads it: `books[1].title`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _fields_at(schema: type[Strict], loc: tuple[Any, ...]) -> list[str]:
    """The fields of the mapping at `loc` (the parent of an unknown key)."""
    model: type[Strict] | None = schema
    for part in loc:
        if isinstance(part, int):
            continue
        assert model is not None
        model = _mapping_in(model.RULES[part])
        if model is None:
            return []
    assert model is not None
    return list(model.RULES)


def _mapping_in(rule: Rule) -> type[Strict] | None:
    """The schema a field's rule reads its mappings into, through lists and nothings."""
    if isinstance(rule, Mapping):
        return rule.schema
    if isinstance(rule, Optional | ListOf):
        return _mapping_in(rule.rule if isinstance(rule, Optional) else rule.item)
    return None


def _owner(what: str, loc: tuple[Any, ...]) -> str:
    """The mapping a field belongs to, as the author knows it."""
    if what.startswith("'"):
        return what  # already the entry's own name (`_named`)
    parents = [part for part in loc[:-1] if not isinstance(part, int)]
    return f"'{_dotted(loc[:-1])}'" if parents else what
