"""Read trafikey's Rust source with tree-sitter: table rows, the load gate's list, host calls.

The rows live inside a macro body, which tree-sitter returns as a flat token tree; this module
regroups its tokens into rows (`key => handler, Row { field: value, … };`). Comments, `c"…"`
literals, escapes, `Some(…)`/`None` and rows split over lines all come back as tokens, so no
regular expression ever reads the Rust.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tree_sitter_rust
from tree_sitter import Language, Node, Parser

from trafikist.registry.rows import ALL_FIELDS, FieldValue, Row

RUST = Language(tree_sitter_rust.language())
HOST_PREFIXES = ("ValkeyModule_", "RedisModule_")
COMMENTS = ("line_comment", "block_comment")
STRINGS = ("string_literal", "raw_string_literal")
# `// model's own choice: arity, flags` before a row (or the gate list) marks those fields.
CHOSEN_MARK = re.compile(r"model['’]s own choice\s*:\s*(?P<fields>.*)$", re.IGNORECASE)
ELISION = re.compile(r"^//\s*(…|\.\.\.)\s*$")
WRAPPER = "__excerpt__! {\n"


@dataclass(frozen=True)
class Issue:
    """Something in the Rust that is not a row where a row was expected."""

    line: int
    what: str


@dataclass
class ParsedRows:
    rows: list[Row] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)


@dataclass
class GateList:
    name: str
    functions: list[str]
    line: int
    chosen: bool


def parse(text: str) -> Node:
    return Parser(RUST).parse(text.encode("utf-8")).root_node


def rows_in_file(text: str, file: Path) -> ParsedRows:
    """Every row in every macro body of one source file."""
    result = ParsedRows()
    root = parse(text)
    for macro in _walk(root, "macro_invocation"):
        body = _child_of_type(macro, "token_tree")
        if body is not None and _contains_row(body):
            _rows_in_token_tree(body, file, line_base=1, result=result, strict=False)
    return result


def rows_in_fragment(text: str, file: Path, first_line: int) -> ParsedRows:
    """Rows in an excerpt: a run of table rows with comments and `// …` elisions between them.

    The fragment is wrapped in a macro body so it parses the way the table itself does; line
    numbers come back as lines of `file`, where the fragment starts at `first_line`.
    """
    result = ParsedRows()
    root = parse(WRAPPER + text + "\n}\n")
    line_base = first_line - 1  # the wrapper's first line shifts every row by one
    broken = _first_error(root)
    if broken is not None:
        result.issues.append(
            Issue(
                broken.start_point.row + line_base,
                "the excerpt does not parse as table rows (unbalanced braces, brackets or "
                "quotes, or a row cut in half).",
            )
        )
        return result
    macro = next(_walk(root, "macro_invocation"), None)
    body = _child_of_type(macro, "token_tree") if macro is not None else None
    if body is not None:
        _rows_in_token_tree(body, file, line_base=line_base, result=result, strict=True)
    return result


def first_error_line(text: str) -> int | None:
    """The line where a source stops parsing as Rust, or None when it parses.

    An unbalanced brace, bracket or quote inside a macro body makes tree-sitter mark the whole
    item (`pub static TABLE … };`) from its first line; then each row (from a `key =>` line to
    the next) is parsed on its own, and the first that does not parse names the line."""
    broken = _first_error(parse(text))
    if broken is None:
        return None
    if broken.end_point.row > broken.start_point.row:
        row_line = _first_broken_row(text)
        if row_line is not None:
            return row_line
    return broken.start_point.row + 1


ROW_START = re.compile(r"^\s+[A-Za-z_]\w*\s*=>")


def _first_broken_row(text: str) -> int | None:
    lines = text.split("\n")
    starts = [index for index, line in enumerate(lines) if ROW_START.match(line)]
    for start in starts:
        end = start + 1
        # A row runs to the next row, or to a line at the margin (the table's closing `};`).
        while end < len(lines) and not ROW_START.match(lines[end]) and not lines[end][:1].strip():
            end += 1
        broken = _first_error(parse(WRAPPER + "\n".join(lines[start:end]) + "\n}\n"))
        if broken is None:
            continue
        # The wrapper's line is row 0. A delimiter left open is found where the input ends,
        # or marks the whole row: the row's first line names it.
        row = broken.start_point.row
        spans = broken.end_point.row > row or broken.is_missing
        return start + 1 if spans or not 1 <= row <= end - start else start + row
    return None


def gate_lists(text: str) -> list[GateList]:
    """Constant arrays of host function names: the load gate's list of required functions."""
    found: list[GateList] = []
    root = parse(text)
    for item in _walk(root, "const_item", "static_item"):
        array = next(_walk(item, "array_expression"), None)
        name = _child_of_type(item, "identifier")
        if array is None or name is None:
            continue
        elements = [child for child in array.named_children if child.type not in COMMENTS]
        if not elements or any(child.type not in STRINGS for child in elements):
            continue
        functions = [string_value(child) for child in elements]
        if not all(function.startswith(HOST_PREFIXES) for function in functions):
            continue
        found.append(
            GateList(
                name=_text(name),
                functions=functions,
                line=item.start_point.row + 1,
                chosen=any(CHOSEN_MARK.search(_text(c)) for c in _comments_before(item)),
            )
        )
    return found


def host_calls(text: str) -> set[str]:
    """Names of the functions the source calls, and every host API name it mentions at all.

    A call's name is the last segment of its callee (`ctx.block_client()` -> `block_client`,
    `raw::ValkeyModule_CreateTimer.unwrap()(…)` -> `unwrap` and `ValkeyModule_CreateTimer`).
    Any identifier that names a host function counts too, since taking the pointer is enough to
    depend on it, inside macro bodies as well.
    """
    names: set[str] = set()
    root = parse(text)
    for call in _walk(root, "call_expression"):
        callee = call.child_by_field_name("function")
        if callee is None:
            continue
        leaves = [n for n in _leaves(callee) if n.type in ("identifier", "field_identifier")]
        if leaves:
            names.add(_text(leaves[-1]))
    for identifier in _walk(root, "identifier", "field_identifier"):
        name = _text(identifier)
        if name.startswith(HOST_PREFIXES):
            names.add(name)
    return names


# ---------------------------------------------------------------- regrouping the token tree


def _rows_in_token_tree(
    tree: Node, file: Path, *, line_base: int, result: ParsedRows, strict: bool
) -> None:
    for segment in _split(_inner(tree), ";"):
        tokens = [node for node in segment if node.type not in COMMENTS]
        if not tokens:
            continue
        row_at = _row_struct_index(tokens)
        if row_at is None:
            nested = [node for node in tokens if node.type == "token_tree" and _contains_row(node)]
            for inner in nested:
                _rows_in_token_tree(inner, file, line_base=line_base, result=result, strict=strict)
            if strict and not nested:
                result.issues.append(
                    Issue(
                        tokens[0].start_point.row + line_base,
                        f"'{_squash(_span(tokens))}' is not a table row.",
                    )
                )
            continue
        row = _row(segment, tokens, row_at, file, line_base, result, strict)
        if row is not None:
            result.rows.append(row)


def _row(
    segment: list[Node],
    tokens: list[Node],
    row_at: int,
    file: Path,
    line_base: int,
    result: ParsedRows,
    strict: bool,
) -> Row | None:
    first_line = tokens[0].start_point.row + line_base
    fields: dict[str, FieldValue] = {}
    head = tokens[:row_at]
    if head:
        # `key => handler ,` before `Row`
        arrow = next((i for i, node in enumerate(head) if node.type == "=>"), None)
        if arrow is None or arrow != 1 or head[0].type != "identifier":
            result.issues.append(
                Issue(first_line, f"'{_squash(_span(head))}' is not `key => handler,`.")
            )
            return None
        handler = [node for node in head[arrow + 1 :] if node.type != ","]
        fields["key"] = _field_value([head[0]], line_base)
        if handler:
            fields["handler"] = _field_value(handler, line_base)
    body = tokens[row_at + 1]
    after = tokens[row_at + 2 :]
    if after:
        # `Row { … }` followed by more than `;`: the `;` that ends the row is missing, and the
        # next row would be read as part of this one.
        result.issues.append(
            Issue(
                body.end_point.row + line_base,
                f"the row's closing '}}' is followed by '{_squash(_span(after))[:60]}', "
                "not by ';'.",
            )
        )
        return None
    chosen: set[str] = set()
    elided = False
    comments = [node for node in segment if node.type in COMMENTS]
    comments += [node for node in _inner(body) if node.type in COMMENTS]
    for comment in comments:
        # `// …` inside the row skips some of its fields; one before it skips other rows
        elided |= _is_elision(comment) and comment.start_byte > tokens[0].start_byte
        if not strict:  # an excerpt's comments mark nothing; its caption speaks for it
            _mark_chosen(comment, chosen, line_base, result)
    for part in _split(_inner(body), ","):
        part_tokens = _tokens(part)
        if not part_tokens:
            continue
        line = part_tokens[0].start_point.row + line_base
        if (
            len(part_tokens) < 3
            or part_tokens[0].type != "identifier"
            or part_tokens[1].type != ":"
        ):
            result.issues.append(
                Issue(line, f"'{_squash(_span(part_tokens))}' is not a `field: value` pair.")
            )
            continue
        name = _text(part_tokens[0])
        if name in fields:
            result.issues.append(Issue(line, f"the field '{name}' is written twice in one row."))
        fields[name] = _field_value(part_tokens[2:], line_base)
    name_field = fields.get("name")
    if name_field is None or not isinstance(name_field.value, str):
        result.issues.append(Issue(first_line, 'the row has no `name: c"…"` field.'))
        return None
    start = segment[0].start_byte
    end = segment[-1].end_byte
    return Row(
        name=name_field.value,
        fields=fields,
        chosen_fields=frozenset(chosen),
        file=file,
        line=first_line,
        text=" " * segment[0].start_point.column + _source_slice(segment[0], start, end),
        elided=elided,
    )


def _mark_chosen(comment: Node, chosen: set[str], line_base: int, result: ParsedRows) -> None:
    match = CHOSEN_MARK.search(_text(comment))
    if match is None:
        return
    for name in filter(None, re.split(r"[\s,]+", match["fields"].strip().rstrip("."))):
        if name in ALL_FIELDS:
            chosen.add(name)
        else:
            result.issues.append(
                Issue(
                    comment.start_point.row + line_base,
                    f"'{name}' in a model's-own-choice comment is not a row field "
                    f"({', '.join(ALL_FIELDS)}).",
                )
            )


def _field_value(nodes: list[Node], line_base: int) -> FieldValue:
    return FieldValue(
        text=_squash(_span(nodes)),
        tokens=tuple(_text(leaf) for node in nodes for leaf in _token_leaves(node)),
        value=_value(nodes),
        line=nodes[0].start_point.row + line_base,
    )


def _value(nodes: list[Node]) -> Any:
    """The Python value of a field: 6, "write", None, ["promote"], or a path as text."""
    nodes = [node for node in nodes if node.type not in COMMENTS]
    if len(nodes) == 1:
        node = nodes[0]
        if node.type == "integer_literal":
            return _integer(_text(node))
        if node.type in STRINGS:
            return string_value(node)
        if node.type == "identifier" and _text(node) == "None":
            return None
    if len(nodes) == 2 and nodes[0].type == "-" and nodes[1].type == "integer_literal":
        return -_integer(_text(nodes[1]))
    if len(nodes) == 2 and _text(nodes[0]) == "Some" and nodes[1].type == "token_tree":
        return _value(_inner(nodes[1]))
    if len(nodes) == 2 and nodes[0].type == "&" and nodes[1].type == "token_tree":
        return [_value(part) for part in _split(_inner(nodes[1]), ",") if _tokens(part)]
    if nodes and nodes[0].type == "&" and len(nodes) > 1:
        return _value(nodes[1:])
    return "".join(_text(leaf) for node in nodes for leaf in _token_leaves(node))


def string_value(node: Node) -> str:
    """The text a Rust string literal stands for, escapes resolved (`c"…"`, `r"…"` too)."""
    if node.type == "raw_string_literal":
        content = _child_of_type(node, "string_content")
        return _text(content) if content is not None else ""
    parts: list[str] = []
    for child in node.children:
        if child.type == "string_content":
            parts.append(_text(child))
        elif child.type == "escape_sequence":
            parts.append(_unescape(_text(child)))
    return "".join(parts)


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def _unescape(escape: str) -> str:
    kind = escape[1:2]
    if kind in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[kind]
    if kind == "x":
        return chr(int(escape[2:4], 16))
    if kind == "u":
        return chr(int(escape[3:-1].replace("_", ""), 16))
    return ""  # a line continuation: the newline and the indentation vanish


def _integer(text: str) -> int:
    digits = re.sub(r"(_|[iu](8|16|32|64|128|size))", "", text)
    return int(digits, 0)


# ---------------------------------------------------------------- tree helpers


def _walk(node: Node, *types: str) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in types:
            yield current
        stack.extend(reversed(current.children))


def _child_of_type(node: Node | None, kind: str) -> Node | None:
    if node is None:
        return None
    return next((child for child in node.children if child.type == kind), None)


def _inner(tree: Node) -> list[Node]:
    """The children of a token tree between its delimiters."""
    children = list(tree.children)
    if children and children[0].type in ("{", "(", "["):
        children = children[1:]
    if children and children[-1].type in ("}", ")", "]"):
        children = children[:-1]
    return children


def _split(nodes: list[Node], separator: str) -> list[list[Node]]:
    """Split a token list at top-level separators; comments stay with the part they precede."""
    parts: list[list[Node]] = [[]]
    for node in nodes:
        if node.type == separator:
            parts.append([])
        else:
            parts[-1].append(node)
    return parts


def _tokens(nodes: list[Node]) -> list[Node]:
    return [node for node in nodes if node.type not in COMMENTS]


def _row_struct_index(tokens: list[Node]) -> int | None:
    for index, node in enumerate(tokens[:-1]):
        following = tokens[index + 1]
        if (
            node.type == "identifier"
            and _text(node) == "Row"
            and following.type == "token_tree"
            and following.children
            and following.children[0].type == "{"
        ):
            return index
    return None


def _contains_row(tree: Node) -> bool:
    inner = _tokens(_inner(tree))
    if _row_struct_index(inner) is not None:
        return True
    return any(node.type == "token_tree" and _contains_row(node) for node in inner)


def _token_leaves(node: Node) -> Iterator[Node]:
    """The tokens of a value: a string literal is one token, comments are none."""
    if node.type in COMMENTS:
        return
    if node.type in STRINGS or node.child_count == 0:
        yield node
        return
    for child in node.children:
        yield from _token_leaves(child)


def _leaves(node: Node) -> Iterator[Node]:
    if node.child_count == 0:
        yield node
        return
    for child in node.children:
        yield from _leaves(child)


def _comments_before(node: Node) -> list[Node]:
    comments: list[Node] = []
    previous = node.prev_sibling
    while previous is not None and previous.type in COMMENTS:
        comments.append(previous)
        previous = previous.prev_sibling
    return comments


def _first_error(node: Node) -> Node | None:
    if node.type == "ERROR" or node.is_missing:
        return node
    if not node.has_error:
        return None
    for child in node.children:
        found = _first_error(child)
        if found is not None:
            return found
    return node


def _is_elision(comment: Node) -> bool:
    return bool(ELISION.match(_text(comment).strip()))


def _text(node: Node) -> str:
    return node.text.decode("utf-8") if node.text is not None else ""


def _span(nodes: list[Node]) -> str:
    if not nodes:
        return ""
    return _source_slice(nodes[0], nodes[0].start_byte, nodes[-1].end_byte)


def _source_slice(any_node: Node, start: int, end: int) -> str:
    root = any_node
    while root.parent is not None:
        root = root.parent
    return root.text[start:end].decode("utf-8") if root.text is not None else ""


def _squash(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", text).strip()
