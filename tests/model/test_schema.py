"""The scenario schema rejects a bad file with an error naming the file, the field and the fix."""

from __future__ import annotations

from typing import Any

import pytest

from trafikist.model import Scenario, ScenarioError, run_scenario

GOOD: dict[str, Any] = {
    "name": "ok",
    "duration": 5,
    "jobs": [{"id": "j1", "state": "schedule", "due": 1}],
    "processes": [{"kind": "Consumer"}],
}

BAD = [
    ({"duration": 5}, "name", "is missing"),
    ({**GOOD, "duration": 0}, "duration", "must be greater than 0"),
    ({**GOOD, "duration": 7200}, "duration", "at most 3600"),
    ({**GOOD, "colour": 1}, "colour", "is not a field here"),
    ({**GOOD, "jobs": [{"id": "j1", "state": "waiting"}]}, "jobs[0].state", "must be one of"),
    ({**GOOD, "jobs": [{"id": "j1", "state": "schedule"}]}, "jobs[0].due", "needs its due time"),
    ({**GOOD, "jobs": [{"id": "j1", "state": "pending", "due": 1}]}, "jobs[0].due", "applies to"),
    ({**GOOD, "jobs": [{"id": "j1", "state": "pending"}] * 2}, "jobs[1].id", "given twice"),
    ({**GOOD, "jobs": [{"id": "a b", "state": "pending"}]}, "jobs[0].id", "not a valid name"),
    (
        {**GOOD, "jobs": [{"id": "j", "state": "dead", "restart": True}]},
        "jobs[0].restart",
        "active",
    ),
    ({**GOOD, "processes": [{"kind": "Worker"}]}, "processes[0].kind", "not a process kind"),
    ({**GOOD, "processes": [{"beat": 1}]}, "processes[0].kind", "is missing"),
    ({**GOOD, "processes": [{"kind": "Consumer", "wire": 5}]}, "processes[0].wire", "4 or 6"),
    ({**GOOD, "processes": [{"kind": "Consumer", "beat": -1}]}, "processes[0].beat", "greater"),
    ({**GOOD, "processes": [{"kind": "Consumer", "batch": 1.5}]}, "processes[0].batch", "whole"),
    ({**GOOD, "processes": [{"kind": "Consumer", "reaper": "yes"}]}, "processes[0].reaper", "true"),
    ({**GOOD, "processes": [{"kind": "Pump", "beat": 1}]}, "processes[0].beat", "not a field"),
    (
        {**GOOD, "processes": [{"kind": "StreamConsumer", "stream": "s"}]},
        "processes[0].group",
        "needs it",
    ),
    (
        {**GOOD, "processes": [{"kind": "Consumer"}, {"kind": "Consumer", "name": "consumer1"}]},
        "processes[1].name",
        "names two processes",
    ),
    (
        {**GOOD, "processes": [{"kind": "Bus", "ops": [{"op": "shout"}]}]},
        "processes[0].ops[0].op",
        "must be one of",
    ),
    (
        {**GOOD, "processes": [{"kind": "Client", "commands": [{"argv": []}]}]},
        "processes[0].commands[0].argv",
        "non-empty list",
    ),
    ({**GOOD, "faults": [{"client": "nobody", "after": 1}]}, "faults[0].client", "no process"),
    ({**GOOD, "faults": [{"client": "consumer1", "after": -1}]}, "faults[0].after", "at least 0"),
    (
        {**GOOD, "streams": [{"name": "s", "messages": [{"type": "t"}]}]},
        "streams[0].messages[0].id",
        "is missing",
    ),
    (["not", "a", "mapping"], "(top)", "expected a mapping"),
]


@pytest.mark.parametrize(("data", "path", "what"), BAD, ids=[case[1] for case in BAD])
def test_a_bad_scenario_names_the_file_and_the_field(data: Any, path: str, what: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(data, source="scenarios/bad.yml")
    message = str(caught.value)
    assert message.startswith(f"scenarios/bad.yml: {path}: "), message
    assert what in message
    assert "Fix: " in message
    assert caught.value.path == path or path == "(top)"
    assert isinstance(caught.value, ValueError)


def test_defaults_are_filled_in() -> None:
    parsed = Scenario.from_dict(GOOD)
    consumer = parsed.processes[0]
    assert consumer.name == "consumer1"
    assert consumer.options == {
        "wire": 4,
        "start": 0.0,
        "beat": 1.0,
        "reaper": True,
        "batch": 100,
        "limit": 100,
        "lease": 30.0,
        "max_attempts": 3,
    }


BAD_OVERRIDES = [
    ({"wire": 5}, "wire"),
    ({"processes": ["Bus"]}, "processes[0]"),
    ({"beat": 0}, "beat"),
    ({"faults": [{"client": "ghost", "after": 1}]}, "faults[0].client"),
    ({"speed": 2}, "speed"),
]


@pytest.mark.parametrize(("overrides", "path"), BAD_OVERRIDES, ids=[c[1] for c in BAD_OVERRIDES])
def test_bad_overrides_are_named_too(overrides: dict[str, Any], path: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        run_scenario(GOOD, overrides)
    assert str(caught.value).startswith(f"overrides: {path}: ")
