"""The widget's controls: their defaults for a scenario, and the model overrides they make.

The page sends the controls as the reader left them; only the ones that differ from the
scenario's own values become overrides. So an untouched form runs the scenario exactly as the
build did (no overrides at all), and the live trace equals the baked one.
"""

from __future__ import annotations

from typing import Any

from trafikist.model.scenario import SWEEP_KINDS, Scenario

# Process kinds whose options a control sets, first one found wins for the default shown.
BEAT_KINDS = ("Consumer", "Metronome")
BATCH_KINDS = ("Consumer", "Metronome", "Pump")
LIMIT_KINDS = ("Consumer", "Metronome", "Stalled")
CONTROL_KEYS = ("send", "wire", "reaper", "beat", "batch", "limit", "crash")


def _first_option(scenario: Scenario, kinds: tuple[str, ...], name: str, default: Any) -> Any:
    for process in scenario.processes:
        if process.kind in kinds and name in process.options:
            return process.options[name]
    return default


def _default_options(kind: str) -> dict[str, Any]:
    """A kind's options as the model fills them in when the scenario leaves them out."""
    probe = Scenario.from_dict(
        {"name": "probe", "duration": 1, "processes": [{"kind": kind, "name": "probe"}]}
    )
    return dict(probe.processes[0].options)


def controls_of(data: dict[str, Any]) -> dict[str, Any]:
    """The controls' values for a scenario, as the page's form shows them before any change."""
    scenario = Scenario.from_dict(data, source=str(data.get("name", "scenario")))
    consumer = _default_options("Consumer")
    kinds = {process.kind for process in scenario.processes}
    first_fault = scenario.faults[0] if scenario.faults else None
    clients = []
    for process in scenario.processes:
        clients.append({"name": process.name, "kind": process.kind})
        if process.kind == "Metronome":
            clients += [
                {"name": f"{process.name}.{n}", "kind": "Metronome"}
                for n in range(1, process.options["pool"] + 1)
            ]
    return {
        "send": [kind for kind in SWEEP_KINDS if kind in kinds],
        "wire": scenario.processes[0].wire if scenario.processes else 4,
        "reaper": _first_option(scenario, BEAT_KINDS, "reaper", consumer["reaper"]),
        "beat": _first_option(scenario, BEAT_KINDS, "beat", consumer["beat"]),
        "batch": _first_option(scenario, BATCH_KINDS, "batch", consumer["batch"]),
        "limit": _first_option(scenario, LIMIT_KINDS, "limit", consumer["limit"]),
        "crash": (
            {"client": first_fault.client, "after": first_fault.after} if first_fault else None
        ),
        "clients": clients,
    }


def overrides_from_controls(
    data: dict[str, Any], controls: dict[str, Any], defaults: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The model overrides for the controls that differ from the scenario's own values
    (`defaults`: `controls_of(data)`, when the caller has it already)."""
    defaults = defaults if defaults is not None else controls_of(data)
    overrides: dict[str, Any] = {}
    for key in CONTROL_KEYS:
        if key not in controls or _same(controls[key], defaults[key]):
            continue
        value = controls[key]
        if key == "send":
            overrides["processes"] = list(value)
        elif key == "crash":
            overrides["faults"] = [dict(value)] if value else []
        else:
            overrides[key] = value
    return overrides


def _same(value: Any, default: Any) -> bool:
    if isinstance(default, list) and isinstance(value, list):
        return sorted(map(str, value)) == sorted(map(str, default))
    if isinstance(default, bool) or isinstance(value, bool):
        return value is default
    if isinstance(default, int | float) and isinstance(value, int | float):
        return float(value) == float(default)
    return value == default
