"""The widget's controls, defined once: the form the template renders, the data the page's
script reads, their defaults for a scenario, and the model overrides they make.

`CONTROL_GROUPS` is the one definition. The Jinja template (duties.html.j2) renders the form
from it; `page_spec()` is the part the page's script needs (each control's key, kind, options
and wording), which the page carries as a JSON data block, so widgets/duty/controls.mjs
hard-codes no name, range or sentence. Stdlib only: this module is in the model's wheel and
runs in Pyodide too (`controls_of`, `overrides_from_controls`).

The page sends the controls as the reader left them; only the ones that differ from the
scenario's own values become overrides. So an untouched form runs the scenario exactly as the
build did (no overrides at all), and the live trace equals the baked one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from trafikist.model.scenario import SWEEP_KINDS, Scenario

# The kinds of control, as the template and widgets/duty/controls.mjs know them:
SET = "set"  # checkboxes, one per option; the value is the list of the ticked options
CHOICE = "choice"  # radios, one per option; the value is the chosen option
SWITCH = "switch"  # one checkbox; the value is true or false
NUMBER = "number"  # a number field
FAULT = "fault"  # a client to crash (the scenario's clients) and after which command: {client,
# after}, or null for no crash

# Process kinds whose options a control sets; the first one found gives the default shown.
BEAT_KINDS = ("Consumer", "Metronome")
BATCH_KINDS = ("Consumer", "Metronome", "Pump")
LIMIT_KINDS = ("Consumer", "Metronome", "Stalled")


@dataclass(frozen=True)
class Range:
    """A number field's bounds and step, as its HTML attributes say them."""

    low: int | float
    high: int | float
    step: int | float


@dataclass(frozen=True)
class Control:
    """One value of the controls, and the form's fields for it.

    `key` names the value (the controls' JSON the page sends), the field (a fault's two fields
    are `key-client` and `key-after`) and the shared URL's key. `label` and the options' labels
    are HTML. `wording` is how the note under the form says a changed value ("Changed from the
    default: …"): `{}` stands for the value, and a fault's `{client}` and `{after}` for its
    parts; a set's `none` and a fault's `none` say the empty value, a set's `and` joins its
    options, a switch says `on` or `off`. What the run note says of a shared URL's wrong value
    uses the rest: `what` names what an option (or a fault's client) is ("'pump' is not a
    process kind"), a number's `value` says a bare value or its range ("0.1–60 s"), a fault's
    `after` its command number.
    """

    key: str
    kind: str
    wording: dict[str, str]
    label: str = ""
    options: tuple[tuple[int | str, str], ...] = ()  # (value, HTML label), a set's or a choice's
    range: Range | None = None  # a number field's, or a fault's command number
    required: bool = False
    # Where the default comes from: an option of the first process of one of these kinds
    # (`key` is the option's name), else what the model gives a Consumer. Empty: a default of
    # its own (`controls_of` says which).
    kinds: tuple[str, ...] = ()
    override: str = ""  # the model override it becomes, when not `key`
    # A fault's: the select's option for no crash, the command number field's label and the
    # number it shows when there is no crash.
    none: str = ""
    after_label: str = ""
    after_start: int = 1

    @property
    def fields(self) -> tuple[str, ...]:
        """The names of its form fields."""
        return (f"{self.key}-client", f"{self.key}-after") if self.kind == FAULT else (self.key,)


@dataclass(frozen=True)
class Group:
    """A fieldset of the form: its legend, its controls and the hint under them (HTML)."""

    legend: str
    controls: tuple[Control, ...]
    hint: str


def _number(
    key: str, label: str, bounds: Range, kinds: tuple[str, ...], word: str, value: str = "{}"
) -> Control:
    """A required number field whose default is an option of the first process of `kinds`.
    `word` says a changed value ("beat {} s"), `value` a bare one or a range ("{} s")."""
    return Control(
        key,
        NUMBER,
        label=label,
        range=bounds,
        required=True,
        kinds=kinds,
        wording={"some": word, "value": value},
    )


CONTROL_GROUPS = (
    Group(
        "Processes that send",
        (
            Control(
                "send",
                SET,
                options=tuple((kind, f"<code>EchoMQ.{kind}</code>") for kind in SWEEP_KINDS),
                override="processes",
                wording={
                    "some": "processes {}",
                    "and": " and ",
                    "none": "no process sends",
                    "what": "a process kind",
                },
            ),
        ),
        "None ticked: no process sends; the scenario's own clients still do.",
    ),
    Group(
        "Connection",
        (
            Control(
                "wire",
                CHOICE,
                options=(
                    (4, "<code>wire: 4</code>, the library's default"),
                    (6, "<code>wire: 6</code>"),
                ),
                wording={"some": "wire: {}", "what": "a wire the model speaks"},
            ),
        ),
        "On <code>wire: 6</code> the two sweeps are sent as EMQ.PROMOTE and EMQ.STALLED.CHECK,"
        " the reaper and the lane claim are refused, and the bus sends Valkey built-ins as on"
        " <code>wire: 4</code>.",
    ),
    Group(
        "Sweeps",
        (
            Control(
                "reaper",
                SWITCH,
                label="reaper on each beat",
                kinds=BEAT_KINDS,
                wording={"on": "reaper on", "off": "reaper off"},
            ),
            _number("beat", "beat, seconds", Range(0.1, 60, 0.1), BEAT_KINDS, "beat {} s", "{} s"),
            _number("batch", "batch", Range(1, 1000, 1), BATCH_KINDS, "batch {}"),
            _number("limit", "limit", Range(1, 1000, 1), LIMIT_KINDS, "limit {}"),
        ),
        "Defaults: a one-second beat and a batch of 100 are the library's; a limit of 100 is"
        ' <span class="tk-choice" data-choice="intervals">the model\'s own<span'
        ' class="tk-visually-hidden">, </span><a class="tk-choice__mark"'
        ' href="id:model-choices#choice-intervals" data-no-badge>model\'s choice</a></span>.',
    ),
    Group(
        "Faults",
        (
            Control(
                "crash",
                FAULT,
                label="crash the client",
                none="no crash",
                after_label="after its command number",
                range=Range(0, 1000, 1),
                override="faults",
                wording={
                    "some": "{client} crashes after command {after}",
                    "none": "no crash",
                    "what": "a client of this duty",
                    "after": "command {}",
                },
            ),
        ),
        "The client stops between that command and its next one, and never sends again.",
    ),
)
CONTROLS = tuple(control for group in CONTROL_GROUPS for control in group.controls)
CONTROL_KEYS = tuple(control.key for control in CONTROLS)


def page_spec() -> list[dict[str, Any]]:
    """What the page's script needs of each control, in the form's order (controls.mjs): a
    set's and a choice's options, a number's and a fault's command number's range (the shared
    URL's values are checked against them), and the wording."""
    spec = []
    for control in CONTROLS:
        entry: dict[str, Any] = {"key": control.key, "kind": control.kind}
        if control.kind in (SET, CHOICE):
            entry["options"] = [value for value, _ in control.options]
        if control.range is not None:
            bounds = control.range
            entry["range"] = {"low": bounds.low, "high": bounds.high, "step": bounds.step}
        if control.kind == FAULT:
            entry |= {"fields": list(control.fields), "none": control.none}
            entry["start"] = control.after_start
        entry["wording"] = control.wording
        spec.append(entry)
    return spec


def page_spec_json() -> str:
    """`page_spec()` as the text of a JSON data block in HTML: compact, and with no `<`, `>` or
    `&`, so no text in it can end the block."""
    text = json.dumps(page_spec(), ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def query_value(control: Control, value: Any) -> str:
    """A control's value as the widget's shared URL writes it (widgets/duty/controls.mjs,
    toQuery: the Node tests hold the two to the same text): a set's options joined by commas
    or `none`, a switch `on` or `off`, a fault `CLIENT@AFTER` or `none`, a number or a choice
    as itself."""
    if control.kind == SET:
        return ",".join(map(str, value)) if value else "none"
    if control.kind == SWITCH:
        return "on" if value else "off"
    if control.kind == FAULT:
        return f"{value['client']}@{value['after']}" if value else "none"
    return str(value)


def shared_query(duty: str, overrides: dict[str, Any]) -> dict[str, str] | None:
    """The query of the widget's shared URL that runs `duty` with the controls set as
    `overrides` sets the model (`?duty=ID&wire=6`); None when an override is none a control
    makes (or a fault list no one control holds)."""
    by_override = {control.override or control.key: control for control in CONTROLS}
    query = {"duty": duty}
    for name, value in overrides.items():
        control = by_override.get(name)
        if control is None:
            return None
        if control.kind == FAULT:
            if len(value) > 1:
                return None
            value = value[0] if value else None
        query[control.key] = query_value(control, value)
    return query


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
    """The controls' values for a scenario, as the page's form shows them before any change,
    and the scenario's clients (the ones a fault may crash)."""
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
    values: dict[str, Any] = {}
    for control in CONTROLS:
        if control.kinds:
            default = consumer[control.key]
            values[control.key] = _first_option(scenario, control.kinds, control.key, default)
        elif control.kind == SET:  # the process kinds the scenario runs
            values[control.key] = [kind for kind, _ in control.options if kind in kinds]
        elif control.kind == CHOICE:  # the wire of the scenario's first process
            values[control.key] = scenario.processes[0].wire if scenario.processes else 4
        elif control.kind == FAULT:  # the scenario's first fault
            values[control.key] = (
                {"client": first_fault.client, "after": first_fault.after} if first_fault else None
            )
    return values | {"clients": clients}


def overrides_from_controls(
    data: dict[str, Any], controls: dict[str, Any], defaults: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The model overrides for the controls that differ from the scenario's own values
    (`defaults`: `controls_of(data)`, when the caller has it already)."""
    defaults = defaults if defaults is not None else controls_of(data)
    overrides: dict[str, Any] = {}
    for control in CONTROLS:
        key = control.key
        if key not in controls or _same(controls[key], defaults[key]):
            continue
        value = controls[key]
        if control.kind == SET:
            value = list(value)
        elif control.kind == FAULT:
            value = [dict(value)] if value else []
        overrides[control.override or key] = value
    return overrides


def _same(value: Any, default: Any) -> bool:
    if isinstance(default, list) and isinstance(value, list):
        return sorted(map(str, value)) == sorted(map(str, default))
    if isinstance(default, bool) or isinstance(value, bool):
        return value is default
    if isinstance(default, int | float) and isinstance(value, int | float):
        return float(value) == float(default)
    return bool(value == default)
