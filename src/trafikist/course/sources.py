"""Reading the author's files: YAML data and Markdown with front matter, with line numbers.

Every failure becomes a CourseError that names the file and the line, so an author never sees a
traceback from YAML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from trafikist.base.errors import CourseError

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
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise CourseError.at(
            path, None, f"is not UTF-8 text ({error.reason}).", "Save the file as UTF-8."
        ) from None


# libyaml when PyYAML has it (a fast build loop); the pure-Python loader reads the same YAML.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str, path: Path, first_line: int = 1) -> tuple[Any, dict[str, int]]:
    """Parse YAML; return the data and the line of each top-level mapping key."""
    data, node = load_yaml_node(text, path, first_line)
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            lines[str(key_node.value)] = first_line + key_node.start_mark.line
    return data, lines


def load_yaml_node(text: str, path: Path, first_line: int = 1) -> tuple[Any, yaml.Node | None]:
    """Parse YAML once; return the data and its node tree (which knows every value's line)."""
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = first_line + mark.line if mark else first_line
        # libyaml marks an unclosed value at the end of input, one line past the last.
        line = min(line, first_line + max(text.count("\n") - (not text.endswith("\n")), 0))
        problem = (error.problem or error.context or "is not valid YAML").strip()
        raise CourseError.at(
            path,
            line,
            f"malformed YAML: {problem}.",
            "Check the indentation and quote any value that holds ': ', '#' or starts "
            "with a special character.",
        ) from None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as error:
        # libyaml reports some errors (a bad byte, a too-deep document) without a mark.
        raise CourseError.at(
            path, first_line, f"malformed YAML: {error}.", "Check the YAML syntax."
        ) from None
    finally:
        loader.dispose()
    return data, node


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
    meta, meta_lines = load_yaml("".join(lines[1:index]), path, first_line=2)
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
    )


def require_fields(
    data: dict[str, Any],
    fields: tuple[str, ...],
    path: Path,
    line: int | None,
    what: str,
) -> None:
    for name in fields:
        value = data.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise CourseError.at(
                path,
                line,
                f"{what} is missing the required field '{name}'.",
                f"Add '{name}: …' (required: {', '.join(fields)}).",
            )
