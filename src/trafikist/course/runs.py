"""The model's runs of the course's scenarios, made once per build and shared.

The duty widget bakes each duty's default scenario, a dive's worked example draws its scenario,
and the expectations of the sentences about those runs check the same traces. Each run is made
once per scenario file, overrides, model code and command table, and every reader gets the trace
after the same JSON round trip the page's copy goes through (tuples become lists, and so on).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import trafikist.model
from trafikist.base.errors import CourseError, Problem
from trafikist.base.files import file_signature
from trafikist.base.memo import BoundedCache
from trafikist.course.sources import line_of_path, load_yaml_node, read_text
from trafikist.model import ScenarioError, Simulation
from trafikist.model.commands import table_signature
from trafikist.model.trace import Trace
from trafikist.model_view.live import canonical_json

# Traces are the largest values the build keeps: a few hundred cover every scenario, override
# and fault the course's expectations ask for.
RUNS: BoundedCache[tuple[str, ...], Trace] = BoundedCache(256)
MODEL_FOLDER = Path(trafikist.model.__file__).resolve().parent


def load_scenario(path: Path) -> dict[str, Any]:
    """The scenario file, parsed; CourseError naming the file and line when it cannot be
    read (trafikist.course.sources: not UTF-8, malformed YAML, a key given twice, `.nan`)."""
    data, _ = load_yaml_node(read_text(path), path)
    if not isinstance(data, dict):
        raise CourseError.at(path, 1, "is not a scenario mapping.", "See docs/scenarios.md.")
    return data


class RunChangeError(CourseError):
    """The changes a sentence or a question makes to a run (a `given …` fault, a question's
    `with:`) do not fit the scenario: the sentence's or the question's line is to blame, not
    the scenario file's."""

    def __init__(self, path: Path, what: str, fix: str):
        self.what, self.fix = what, fix
        super().__init__(Problem(path, None, what, fix))


def scenario_trace(path: Path, overrides: dict[str, Any] | None = None) -> Trace:
    """The model's trace of the scenario at `path`, with a reader's `overrides` if any."""
    # By the file's bytes, not its place: copies of a course (a preview's, the tests') share runs.
    try:
        content = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        content = ""  # the run reports the unreadable file; nothing is kept
    key = (
        content,
        json.dumps(overrides, sort_keys=True),
        model_signature(),
        table_signature(),
    )
    return RUNS.get_or_make(key, lambda: _run(path, overrides))


def _run(path: Path, overrides: dict[str, Any] | None) -> Trace:
    data = load_scenario(path)
    try:
        raw = Simulation(data, overrides, source=str(path)).run()
    except ScenarioError as error:
        what = f"'{error.path}': {error.what}" if error.path else error.what
        if error.source == "overrides":
            raise RunChangeError(path, what, error.fix) from None
        _, node = load_yaml_node(read_text(path), path)
        raise CourseError.at(
            path, line_of_path(node, error.path) if error.path else None, what, error.fix
        ) from None
    trace: Trace = json.loads(canonical_json(raw))  # the same keys, JSON's lists for tuples
    return trace


def model_signature() -> str:
    """The model's source files: a change there makes new runs."""
    return file_signature([MODEL_FOLDER], "*.py")
