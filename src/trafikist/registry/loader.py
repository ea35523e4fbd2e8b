"""Find and load the registry: the snapshot in `registry/`, or a real trafikey checkout."""

from __future__ import annotations

import os
from pathlib import Path

from trafikist.base.errors import CourseError, Problem
from trafikist.base.files import read_source_text
from trafikist.registry import hostapi, rust
from trafikist.registry.rows import Registry, Row

ENV_VAR = "TRAFIKIST_REGISTRY"
OPTION = "registry"
PLUGIN = "trafikist"
DEFAULT_FOLDER = "registry"


def resolve_registry_path(configured: str | None, base_dir: Path) -> Path:
    """Where the registry is: the env var wins over the mkdocs.yml option, which wins over
    `base_dir/registry`. A relative path is read from `base_dir` (the folder of mkdocs.yml)."""
    from_env = os.environ.get(ENV_VAR, "").strip()
    if from_env:
        path, origin = Path(from_env), f"the environment variable {ENV_VAR}"
        fix = f"Point {ENV_VAR} at a trafikey checkout or a snapshot folder, or unset it."
    elif configured:
        path, origin = Path(configured), f"the option '{OPTION}' of plugin '{PLUGIN}'"
        fix = (
            f"Set '{OPTION}:' under '- {PLUGIN}:' in mkdocs.yml to a trafikey checkout or a "
            f"snapshot folder, or remove it to use ./{DEFAULT_FOLDER}."
        )
    else:
        path, origin = Path(DEFAULT_FOLDER), "the default"
        fix = (
            f"Restore ./{DEFAULT_FOLDER} (the snapshot), or set '{OPTION}:' of plugin "
            f"'{PLUGIN}' in mkdocs.yml or {ENV_VAR} to a trafikey checkout."
        )
    if not path.is_absolute():
        path = Path(base_dir) / path
    if not path.is_dir():
        raise CourseError.at(
            ENV_VAR if from_env else Path(base_dir) / "mkdocs.yml",
            None,
            f"the registry folder {path} (from {origin}) does not exist.",
            fix,
        )
    return path


def load_registry(path: Path) -> Registry:
    """Read every `.rs` file under `path/src`: the table rows, the gate list and, for a real
    checkout (it has a Cargo.toml), the host calls the crate makes."""
    path = Path(path)
    source_dir = path / "src"
    if not source_dir.is_dir():
        raise CourseError.at(
            path,
            None,
            "the registry folder has no src/ folder.",
            "Point the registry at a trafikey checkout (its src/ holds registry.rs) or at a "
            "snapshot folder laid out the same way.",
        )
    is_snapshot = not (path / "Cargo.toml").is_file()
    rows: dict[str, Row] = {}
    problems: list[Problem] = []
    gate: rust.GateList | None = None
    gate_file: Path | None = None
    calls: set[str] | None = None if is_snapshot else set()
    files = sorted(source_dir.rglob("*.rs"))
    for file in files:
        text = read_source_text(file)
        parsed = rust.rows_in_file(text, file)
        problems.extend(
            Problem(file, issue.line, issue.what, _fix_row()) for issue in parsed.issues
        )
        if "Row {" in text and not parsed.issues:
            # A table whose Rust breaks loses the rows past the break, without a word.
            problems.extend(_syntax_problem(file, text))
        for row in parsed.rows:
            if row.name in rows:
                problems.append(
                    Problem(
                        file,
                        row.line,
                        f"the command {row.name} is registered twice (first at "
                        f"{rows[row.name].location}).",
                        "Keep one row per command name.",
                    )
                )
                continue
            rows[row.name] = row
        for found in rust.gate_lists(text):
            if gate is None or len(found.functions) > len(gate.functions):
                gate, gate_file = found, file
        if calls is not None:
            # host functions by name, and the Rust wrappers that stand for one (create_timer)
            calls |= {
                name
                for name in rust.host_calls(text)
                if name.startswith(rust.HOST_PREFIXES) or hostapi.kind_of(name)
            }
    problems += [problem for row in rows.values() for problem in _field_types(row)]
    if not rows and not problems:
        # A table that does not parse yields no rows: name where the Rust breaks.
        for file in files:
            problems.extend(_syntax_problem(file, read_source_text(file)))
    if not rows and not problems:
        problems.append(
            Problem(
                source_dir,
                None,
                "no registry::TABLE rows were found in any .rs file.",
                "Point the registry at a folder whose src/ holds the table "
                '(`key => handler, Row { name: c"…", … };` rows inside a macro body).',
            )
        )
    if problems:
        raise CourseError(problems)
    return Registry(
        root=path,
        rows=rows,
        gate_functions=list(gate.functions) if gate else [],
        source_calls=calls,
        gate_file=gate_file,
        gate_line=gate.line if gate else None,
        gate_chosen=gate.chosen if gate else False,
        is_snapshot=is_snapshot,
        files=files,
    )


# The type of each field a check or the model reads, as the table writes it.
FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "arity": (int,),
    "flags": (str,),
    "acl": (str,),
    "summary": (str, type(None)),
    "complexity": (str, type(None)),
    "since": (str, type(None)),
    "caps": (list,),
}
TYPE_WORDS = {int: "a whole number", str: "a string", list: "a list (&[…])"}


def _field_types(row: Row) -> list[Problem]:
    problems = []
    for name, types in FIELD_TYPES.items():
        field = row.fields.get(name)
        if field is None or (isinstance(field.value, types) and not isinstance(field.value, bool)):
            continue
        expected = " or ".join(TYPE_WORDS.get(kind, "None") for kind in types)
        problems.append(
            Problem(
                row.file,
                field.line,
                f"the row {row.name}: '{name}' is `{field.text}`, not {expected}.",
                f"Write {name} as {expected}, as the other rows do.",
            )
        )
    return problems


def _syntax_problem(file: Path, text: str) -> list[Problem]:
    line = rust.first_error_line(text)
    if line is None:
        return []
    return [
        Problem(
            file,
            line,
            "the Rust does not parse here, so the registry::TABLE rows cannot be read.",
            "Fix the syntax at this line (an unbalanced brace, bracket or quote, or a stray "
            "character).",
        )
    ]


def _fix_row() -> str:
    return (
        'Write each row as `key => path::to::handler, Row { name: c"EMQ.X", field: value, … };` '
        "and mark chosen values with a `// model's own choice: field, field` line before the row."
    )
