"""What the page's worker calls in Pyodide: run a scenario, draw it, answer console lines.

Arguments and results are JSON text, so nothing but strings crosses between JavaScript and
Python. The last run's Simulation is kept: the console talks to its server.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from trafikist.model import MODEL_CHOICES, ScenarioError, Simulation
from trafikist.model.console import execute_line
from trafikist.model.trace import Trace
from trafikist.model_view.controls import controls_of, overrides_from_controls
from trafikist.model_view.draw import render_result_html, summarize

_last: Simulation | None = None
_last_trace = ""
CHOICE_IDS = tuple(choice.id for choice in MODEL_CHOICES)


def canonical_json(trace: Trace) -> str:
    """The one text form of a trace, for the build and the page alike (sorted keys)."""
    return json.dumps(trace, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def result_of(trace: Trace) -> dict[str, str]:
    return {
        "trace": canonical_json(trace),
        "markup": render_result_html(trace, CHOICE_IDS),
        "summary": summarize(trace),
    }


@functools.lru_cache(maxsize=16)  # the page's few scenario files (the model has no base layer)
def _scenario(scenario_file: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scenario of a site file and its controls' defaults, parsed once per file: a warm
    run should spend its milliseconds on the model, not on reading the same JSON again."""
    data = json.loads(scenario_file)["scenario"]
    return data, controls_of(data)


def run(scenario_file: str, controls_json: str = "") -> str:
    """Run a scenario with the reader's controls; JSON text of {markup, summary} or {error}.
    A model error becomes a message for the widget, never an uncaught exception.

    `scenario_file` is the text of the site's scenarios/NAME.json: {"scenario": …, "trace": …}
    (the trace is the build's, for comparison; it is not used here). The run's trace, as the
    one canonical text, is `last_trace()`: a string of its own, not JSON inside JSON.
    """
    global _last, _last_trace
    try:
        data, defaults = _scenario(scenario_file)
        controls = json.loads(controls_json) if controls_json else {}
        overrides = overrides_from_controls(data, controls, defaults) if controls else {}
        simulation = Simulation(data, overrides or None, source=f"scenario {data.get('name')}")
        trace = simulation.run()
        _last, _last_trace = simulation, canonical_json(trace)
        return json.dumps(
            {"markup": render_result_html(trace, CHOICE_IDS), "summary": summarize(trace)}
        )
    except ScenarioError as error:
        return json.dumps({"error": str(error)})
    except Exception as error:  # a bug in the model: the reader sees it in the widget
        return json.dumps({"error": f"the model failed: {type(error).__name__}: {error}"})


def rehearse(scenario_file: str) -> None:
    """Run a scenario and draw it, keeping nothing (the console's server stays the reader's).

    Why: restored from the build's memory snapshot, Pyodide has run almost no Python in this
    page, so the browser's WebAssembly engine still runs CPython's hot paths with its baseline
    compiler; it optimises a function only after it has run a while. The worker rehearses the
    reader's scenario after the first result is drawn, so the next Run is fast.
    """
    data, _ = _scenario(scenario_file)
    trace = Simulation(data, None, source=f"scenario {data.get('name')}").run()
    render_result_html(trace, CHOICE_IDS)
    summarize(trace)
    canonical_json(trace)


def last_trace() -> str:
    """The last run's trace, as canonical JSON text (the baked file's trace, byte for byte,
    when the run was the default one)."""
    return _last_trace


def console(line: str) -> str:
    """One console line against the last run's server, replied as valkey-cli prints it."""
    if _last is None:
        return "(error) Run the scenario first; the console talks to the run's server."
    try:
        return execute_line(_last.server, line)
    except Exception as error:  # the console never takes the worker down
        return f"(error) the model failed: {type(error).__name__}: {error}"
