"""Reading the author's files: YAML data and Markdown with front matter, with line numbers.

Every failure becomes a CourseError that names the file and the line, so an author never sees a
traceback from YAML.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from trafikist.base.characters import first_suspect, line_index
from trafikist.base.errors import CourseError
from trafikist.base.files import read_source_text

FENCE = "---"
# A source comment cites the seed sentence a sentence follows from: `<!-- seed: "…" -->` in
# Markdown, right after the sentence; `# seed: "…"` in YAML, right above the field. One comment
# may quote several sentences, each in double quotes.
SOURCE_COMMENT = re.compile(r"<!--\s*seed:(?P<body>.*?)-->", re.DOTALL)
YAML_SOURCE_COMMENT = re.compile(r"^\s*#\s*seed:(?P<body>.*)$", re.MULTILINE)
# The draft a scaffolded planned page carries (trafikist.course.scaffold), to its end marker: it
# stays in the source for its author, out of the published page and out of every check.
DRAFT = re.compile(r"^<!-- trafikist:draft\b.*?\btrafikist:draft -->[ \t]*\n?", re.M | re.S)
QUOTED = re.compile(r'"(?P<quote>(?:[^"\\]|\\.)+)"')


@dataclass
class FrontMatterDocument:
    meta: dict[str, Any]
    meta_lines: dict[str, int]  # top-level key -> line in the file
    body: str
    body_line: int  # line in the file where the body starts
    node: Any = None  # the front matter's YAML node tree: every field's line


@dataclass(frozen=True)
class SourceComment:
    start: int  # offset of the comment in the text scanned
    end: int
    quotes: tuple[str, ...]  # the seed sentences (or parts of them) it cites


def source_comments(text: str, yaml: bool = False) -> list[SourceComment]:
    """The source comments in Markdown (or, with `yaml`, in YAML text)."""
    pattern = YAML_SOURCE_COMMENT if yaml else SOURCE_COMMENT
    return [
        SourceComment(
            match.start(),
            match.end(),
            tuple(
                " ".join(re.sub(r"\\(.)", r"\1", q["quote"]).split())
                for q in QUOTED.finditer(match["body"])
            ),
        )
        for match in pattern.finditer(text)
    ]


def yaml_source_quotes(lines: list[str], line: int) -> tuple[str, ...]:
    """What the `# seed: "…"` comment lines right above line `line` (1-based) cite."""
    quotes: list[str] = []
    index = line - 2
    while index >= 0 and lines[index].lstrip().startswith("#"):
        for comment in source_comments(lines[index], yaml=True):
            quotes[:0] = comment.quotes
        index -= 1
    return tuple(quotes)


def read_text(path: Path) -> str:
    """A source's text (trafikist.base.files.read_source_text: UTF-8, a byte-order mark
    dropped; CourseError naming the file otherwise)."""
    return read_source_text(path)


# libyaml when PyYAML has it (a fast build loop); the pure-Python loader reads the same YAML.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str, path: Path, first_line: int = 1) -> tuple[Any, dict[str, int]]:
    """Parse YAML; return the data and the line of each top-level mapping key."""
    data, node = load_yaml_node(text, path, first_line)
    return data, _top_lines(node, first_line)


def _top_lines(node: yaml.Node | None, first_line: int) -> dict[str, int]:
    """The line of each top-level key of a mapping node."""
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            lines[str(key_node.value)] = first_line + key_node.start_mark.line
    return lines


def load_yaml_node(text: str, path: Path, first_line: int = 1) -> tuple[Any, yaml.Node | None]:
    """Parse YAML once; return the data and its node tree (which knows every value's line)."""
    _check_invisible(text, path, first_line)
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        # Before the values are built: the tree check is linear in the text (no aliases).
        _check_tree(node, path, first_line, text)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = first_line + mark.line if mark else first_line
        # libyaml marks an unclosed value at the end of input, one line past the last.
        line = min(line, first_line + max(text.count("\n") - (not text.endswith("\n")), 0))
        problem = " ".join((error.problem or error.context or "is not valid YAML").split())
        raise CourseError.at(
            path,
            line,
            f"malformed YAML: {problem}.",
            "Check the indentation and quote any value that holds ': ', '#' or starts "
            "with a special character.",
        ) from None
    except yaml.reader.ReaderError as error:
        # A character YAML does not allow (a control character): named by its line. libyaml
        # gives the offset in UTF-8 bytes, PyYAML in characters: the character tells.
        character = chr(error.character) if isinstance(error.character, int) else ""
        at = text.find(character) if character else -1
        if at == -1:
            at = len(text.encode("utf-8")[: max(error.position, 0)].decode("utf-8", "ignore"))
        line = first_line + text.count("\n", 0, at)
        raise CourseError.at(
            path,
            line,
            f"malformed YAML: the character U+{error.character:04X} is not allowed in YAML."
            if isinstance(error.character, int)
            else f"malformed YAML: the character {error.character!r} is not allowed in YAML.",
            'Delete it, or write it as an escape in a double-quoted string ("\\u0007").',
        ) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as error:
        # libyaml reports some errors (a bad byte, a too-deep document) without a mark.
        raise CourseError.at(
            path,
            first_line,
            f"malformed YAML: {' '.join(str(error).split())}.",
            "Check the YAML syntax.",
        ) from None
    finally:
        loader.dispose()
    return data, node


def _check_invisible(text: str, path: Path, first_line: int) -> None:
    """An invisible character, a look-alike letter or a word that mixes scripts
    (trafikist.base.characters), at its line: a byte-order mark past the file's start is valid
    YAML and invisible, and in a key it makes another key; a soft hyphen in a value is another
    word to every check. The file's text was checked as it was read; YAML from elsewhere (a
    question's body, a test's text) is checked here."""
    suspect = first_suspect(text)
    if suspect is not None:
        line = first_line + line_index(text, suspect.offset)
        raise CourseError.at(path, line, suspect.what, suspect.fix)


# Deeper than this, a value is a slip (or an attack), not a course's data.
MAX_YAML_DEPTH = 32


def _check_tree(node: yaml.Node | None, path: Path, first_line: int, text: str = "") -> None:
    """What YAML accepts and a course never means: a key given twice (YAML keeps the last
    silently), an alias (`*name`: the course's files are read without them, since ten levels of
    ten aliases make a few lines ten billion values), nesting past MAX_YAML_DEPTH, and a
    number that is not finite (`.nan`, `.inf`). Each node is visited once: a node reached
    twice is an alias's, and refused at the alias's line."""
    if node is None:
        return
    stack: list[tuple[yaml.Node, int, tuple[int, ...]]] = [(node, 1, ())]
    visited: set[int] = set()
    while stack:
        current, depth, ancestors = stack.pop()
        line = first_line + current.start_mark.line
        if id(current) in ancestors:
            raise CourseError.at(
                path, line, "a YAML alias refers to the value that holds it.", _NO_ALIAS_LOOP
            )
        if id(current) in visited:
            alias_line, name = _first_alias(text)
            raise CourseError.at(
                path,
                first_line + alias_line if alias_line is not None else line,
                f"the YAML alias '*{name}' repeats a value anchored elsewhere; the course's "
                "files are read without aliases (a few lines of them can stand for billions of "
                "values)",
                "Write the value out where it is needed, and drop the anchor (&name).",
            )
        visited.add(id(current))
        if depth > MAX_YAML_DEPTH:
            raise CourseError.at(
                path,
                line,
                f"the YAML nests deeper than {MAX_YAML_DEPTH} levels.",
                "Flatten the value: no field of the course nests this deep.",
            )
        inside = (*ancestors, id(current))
        if isinstance(current, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in current.value:
                if key.tag == "tag:yaml.org,2002:merge":
                    stack.append((value, depth + 1, inside))
                    continue
                name = str(key.value)
                key_line = first_line + key.start_mark.line
                if name in seen:
                    raise CourseError.at(
                        path,
                        key_line,
                        f"the key '{name}' is given twice (first at line {seen[name]}).",
                        "Keep one of them: YAML would keep the last and drop the first.",
                    )
                seen[name] = key_line
                stack.append((value, depth + 1, inside))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend((item, depth + 1, inside) for item in current.value)
        elif current.tag == "tag:yaml.org,2002:float" and _not_finite(current.value):
            raise CourseError.at(
                path,
                line,
                f"'{current.value}' is not a finite number.",
                "Write a number such as 1 or 0.5; quote it if it is text.",
            )


_NO_ALIAS_LOOP = "Write the value out: an alias (*name) may not stand inside its own anchor."


def _first_alias(text: str) -> tuple[int | None, str]:
    """The line (from 0) and name of the first alias in `text`, read from the parser's events
    (a node does not know the alias that reached it)."""
    with contextlib.suppress(yaml.YAMLError):
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent) and event.start_mark is not None:
                return event.start_mark.line, str(event.anchor)
    return None, "…"


def _not_finite(text: str) -> bool:
    """`.inf`, `.nan`, or a float too large to hold (`1e400`)."""
    if text.strip().lower().lstrip("+-") in (".inf", ".nan"):
        return True
    try:
        return not math.isfinite(float(text.replace("_", "")))
    except ValueError:
        return False  # a form float() does not read (sexagesimal): YAML's own


def line_of_path(node: yaml.Node | None, path: str, first_line: int = 1) -> int | None:
    """The line of a field path such as `processes[1].ops[0].op` in a YAML node tree.

    Walks as deep as the path exists and returns the line of the deepest node found, so a
    missing field points at its parent mapping.
    """
    if node is None:
        return None
    line = first_line + node.start_mark.line
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        child: yaml.Node | None = None
        if part.startswith("[") and isinstance(node, yaml.SequenceNode):
            index = int(part[1:-1])
            child = node.value[index] if index < len(node.value) else None
            if child is not None:
                line = first_line + child.start_mark.line  # the item's own line
        elif isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if str(key_node.value) == part:
                    child = value_node
                    line = first_line + key_node.start_mark.line
                    break
        if child is None:
            break
        node = child
        if not isinstance(node, yaml.MappingNode | yaml.SequenceNode):
            line = first_line + node.start_mark.line
    return line


def texts_in(node: yaml.Node | None, first_line: int = 1) -> list[tuple[int, str, str]]:
    """Every text value of a YAML node tree (not its keys), with the line it starts on and the
    key it is the value of (an item of a list, its list's key): what a check of the words an
    author wrote in YAML reads."""
    found: list[tuple[int, str, str]] = []
    stack: list[tuple[yaml.Node, str]] = [(node, "")] if node is not None else []
    seen: set[int] = set()
    while stack:
        current, key = stack.pop()
        if id(current) in seen:  # an alias: its value was read where it was anchored
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            stack.extend((value, str(name.value)) for name, value in reversed(current.value))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend((item, key) for item in reversed(current.value))
        elif current.tag == "tag:yaml.org,2002:str":
            found.append((first_line + current.start_mark.line, key, str(current.value)))
    return found


def read_front_matter(path: Path) -> FrontMatterDocument:
    text = read_text(path)
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        raise CourseError.at(
            path,
            1,
            "has no front matter.",
            "Start the file with a '---' line, the page's fields (id, title, summary, status), "
            "and a closing '---' line.",
        )
    for index in range(1, len(lines)):
        if lines[index].strip() == FENCE:
            break
    else:
        raise CourseError.at(
            path, 1, "front matter is never closed.", "Add a '---' line after the page's fields."
        )
    meta, node = load_yaml_node("".join(lines[1:index]), path, first_line=2)
    meta_lines = _top_lines(node, 2)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise CourseError.at(
            path, 2, "front matter is not a mapping of fields.", "Write it as 'field: value' lines."
        )
    return FrontMatterDocument(
        meta=meta,
        meta_lines=meta_lines,
        body="".join(lines[index + 1 :]),
        body_line=index + 2,
        node=node,
    )
