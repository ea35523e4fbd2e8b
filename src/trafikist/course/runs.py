"""The model's runs of the course's scenarios, made once per build and shared.

The duty widget bakes each duty's default scenario, a dive's worked example draws its scenario,
and the expectations of the sentences about those runs check the same traces. Each run is made
once per scenario file, overrides and model code, and every reader gets the trace after the same
JSON round trip the page's copy goes through (tuples become lists, and so on).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trafikist.base.errors import CourseError
from trafikist.model.commands import table_signature

_RUNS: dict[tuple[str, ...], dict[str, Any]] = {}
_MAX_RUNS = 256


def load_scenario(path: Path) -> dict[str, Any]:
    """The scenario file, parsed; CourseError naming the file when it cannot be read."""
    import yaml

    try:
        # libyaml's loader when the wheel of PyYAML has it: the same data, several times faster.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except OSError as error:
        raise CourseError.at(path, None, f"cannot be read ({error}).", "Check the file.") from None
    except yaml.YAMLError as error:
        raise CourseError.at(path, None, f"malformed YAML: {error}.", "Fix the YAML.") from None
    if not isinstance(data, dict):
        raise CourseError.at(path, 1, "is not a scenario mapping.", "See docs/scenarios.md.")
    return data


def scenario_trace(path: Path, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The model's trace of the scenario at `path`, with a reader's `overrides` if any."""
    from trafikist.model import ScenarioError, Simulation
    from trafikist.model_view.live import canonical_json

    stat = path.stat()
    key = (
        str(path),
        str(stat.st_size),
        str(stat.st_mtime_ns),
        json.dumps(overrides, sort_keys=True),
        model_signature(),
        table_signature(),
    )
    trace = _RUNS.get(key)
    if trace is None:
        data = load_scenario(path)
        try:
            raw = Simulation(data, overrides, source=str(path)).run()
        except ScenarioError as error:
            raise CourseError.at(path, None, str(error), "See docs/scenarios.md.") from None
        trace = json.loads(canonical_json(raw))
        if len(_RUNS) >= _MAX_RUNS:
            _RUNS.clear()
        _RUNS[key] = trace
    return trace


def model_signature() -> str:
    """Sizes and times of the model's source files: a change there makes new runs."""
    import trafikist.model

    folder = Path(trafikist.model.__file__).resolve().parent
    return ";".join(
        f"{path.name}:{path.stat().st_size}:{path.stat().st_mtime_ns}"
        for path in sorted(folder.glob("*.py"))
    )
