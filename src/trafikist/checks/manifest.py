"""The manifest of the EchoMQ surface the seed describes (`registry/library.yml`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from trafikist.base.errors import CourseError, Problem, display_path
from trafikist.base.files import require_file
from trafikist.checks.quantity import Quantity, parse_quantity
from trafikist.course.sources import load_yaml, read_text
from trafikist.course.structure import SLUG_TEXT

MANIFEST_FILE = "library.yml"
SECTIONS = ("modules", "functions", "scripts", "wires", "defaults")
MODULE_NAME = re.compile(r"^EchoMQ(\.[A-Z]\w*)+$")
FUNCTION_NAME = re.compile(r"^EchoMQ(\.[A-Z]\w*)+\.[a-z_]\w*[!?]?/\d+$")
SCRIPT_NAME = re.compile(r"^@[a-z_][a-z0-9_]*$")
WIRE_NAME = re.compile(r"^wire: \d+$")
PATTERNS = {
    "modules": MODULE_NAME,
    "functions": FUNCTION_NAME,
    "scripts": SCRIPT_NAME,
    "wires": WIRE_NAME,
    "defaults": SLUG_TEXT,
}


@dataclass(frozen=True)
class Entry:
    name: str
    seed: str  # the seed sentence that gives it, word for word
    line: int


@dataclass(frozen=True, kw_only=True)
class Default(Entry):
    value: Quantity
    text: str  # the value as the manifest writes it
    of: str = ""  # the module or function it belongs to


@dataclass
class Manifest:
    file: Path
    modules: dict[str, Entry] = field(default_factory=dict)
    functions: dict[str, Entry] = field(default_factory=dict)
    scripts: dict[str, Entry] = field(default_factory=dict)
    wires: dict[str, Entry] = field(default_factory=dict)  # "wire: 6"
    defaults: dict[str, Default] = field(default_factory=dict)

    def names(self) -> set[str]:
        return set(self.modules) | set(self.functions) | set(self.scripts)

    def location(self, entry: Entry) -> str:
        return f"{display_path(self.file)}:{entry.line}"


def entries(manifest: Manifest) -> list[Entry]:
    """Every entry, in the manifest's sections' order."""
    return [entry for section in SECTIONS for entry in getattr(manifest, section).values()]


def resolve_manifest_path(registry_path: Path, base_dir: Path) -> Path:
    """The manifest beside the registry; a real trafikey checkout has none (EchoMQ is another
    project), so the course's own `registry/library.yml` serves then."""
    beside = Path(registry_path) / MANIFEST_FILE
    return beside if beside.is_file() else Path(base_dir) / "registry" / MANIFEST_FILE


def load_manifest(path: Path) -> Manifest:
    """Read the manifest: `path` is the file, or the registry folder that holds library.yml."""
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_FILE
    require_file(
        path,
        "the library manifest is missing.",
        f"Create {MANIFEST_FILE} beside the registry's src/ (see docs/registry.md).",
    )
    text = read_text(path)
    data, _ = load_yaml(text, path)
    lines = _entry_lines(text)
    if not isinstance(data, dict):
        raise CourseError.at(path, 1, "is not a mapping.", f"Write {', '.join(SECTIONS)}.")
    manifest = Manifest(file=path)
    problems: list[Problem] = []
    for section in data:
        if section not in SECTIONS:
            problems.append(
                Problem(
                    path,
                    lines.get((section, None)),
                    f"unknown section '{section}'.",
                    f"Use {', '.join(SECTIONS)}.",
                )
            )
    for section in SECTIONS:
        raw = data.get(section) or {}
        if not isinstance(raw, dict):
            problems.append(
                Problem(path, lines.get((section, None)), f"'{section}' is not a mapping.", "")
            )
            continue
        for name, body in raw.items():
            line = lines.get((section, str(name)), 1)
            entry = _entry(section, str(name), body, path, line, problems)
            if entry is not None:
                getattr(manifest, section)[entry.name] = entry
    for default in manifest.defaults.values():
        if default.of and default.of not in manifest.modules | manifest.functions:
            problems.append(
                Problem(
                    path,
                    default.line,
                    f"the default '{default.name}' belongs to '{default.of}', which the "
                    "manifest does not list.",
                    "Name a module or function listed under 'modules' or 'functions'.",
                )
            )
    if problems:
        raise CourseError(problems)
    return manifest


def _entry(
    section: str, name: str, body: Any, path: Path, line: int, problems: list[Problem]
) -> Entry | None:
    if not PATTERNS[section].match(name):
        problems.append(
            Problem(
                path,
                line,
                f"'{name}' is not a name for '{section}'.",
                {
                    "modules": "Write a module as EchoMQ.Name.",
                    "functions": "Write a function as EchoMQ.Module.name/arity.",
                    "scripts": "Write a script as @name.",
                    "wires": "Write a wire as 'wire: 6'.",
                    "defaults": "Write a default's id as a lowercase slug, like consumer-beat.",
                }[section],
            )
        )
        return None
    seed = str(body.get("seed", "")).strip() if isinstance(body, dict) else ""
    if not seed:
        problems.append(
            Problem(
                path,
                line,
                f"'{name}' has no 'seed:' sentence.",
                "Quote the seed sentence that gives it; a name no seed sentence gives does not "
                "belong in the manifest.",
            )
        )
        return None
    if section != "defaults":
        return Entry(name=name, seed=seed, line=line)
    text = str(body.get("value", "")).strip()
    value = parse_quantity(text)
    if value is None:
        problems.append(
            Problem(
                path,
                line,
                f"the default '{name}' has no numeric 'value:'.",
                "Write it as a number with an optional unit, like '1 second' or '100'.",
            )
        )
        return None
    return Default(
        name=name, seed=seed, line=line, value=value, text=text, of=str(body.get("of", ""))
    )


def _entry_lines(text: str) -> dict[tuple[str, str | None], int]:
    """(section, name) -> line of the name, and (section, None) -> line of the section."""
    lines: dict[tuple[str, str | None], int] = {}
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(node, yaml.MappingNode):
        return lines
    for key, value in node.value:
        lines[(str(key.value), None)] = key.start_mark.line + 1
        if isinstance(value, yaml.MappingNode):
            for inner_key, _ in value.value:
                lines[(str(key.value), str(inner_key.value))] = inner_key.start_mark.line + 1
    return lines
