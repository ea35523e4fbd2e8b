"""The model of trafikey and EchoMQ: pure Python, stdlib only, on a virtual clock.

It runs unchanged in CPython (the build and the tests) and in Pyodide (the page). The public API:

    Server                 an in-memory Valkey; `execute(*argv)` returns RESP2-shaped replies
    run_scenario           a scenario dict (+ a reader's overrides) -> the trace dict
    Simulation             the same run, keeping `.server` for the console after `.run()`
    Scenario               the checked scenario; `Scenario.from_dict(data, source=...)`
    ScenarioError          a bad scenario: names the file, the field path and the fix
    ReplyError             an error reply; `str()` is Valkey's own text
    MODEL_CHOICES          every value the model chose where the seed is silent
    install_command_table  hand the model the registry's rows of the EMQ.* verbs
    command_table          those rows (arity, flags, ACL), or the wheel's copy of them
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from trafikist.model.choices import MODEL_CHOICES, Choice, choices_as_json
from trafikist.model.errors import ReplyError, ScenarioError

if TYPE_CHECKING:
    from trafikist.model.commands import command_table, install_command_table
    from trafikist.model.scenario import Scenario
    from trafikist.model.server import Connection, Server
    from trafikist.model.simulation import Simulation, new_server, reply_to_json, run_scenario

# The rest loads on first use: a build that only reads the model's choices (the page every
# choice marker links to) need not import the server and the simulation, about 0.15 s.
_LAZY = {
    "command_table": "trafikist.model.commands",
    "install_command_table": "trafikist.model.commands",
    "Scenario": "trafikist.model.scenario",
    "Connection": "trafikist.model.server",
    "Server": "trafikist.model.server",
    "Simulation": "trafikist.model.simulation",
    "new_server": "trafikist.model.simulation",
    "reply_to_json": "trafikist.model.simulation",
    "run_scenario": "trafikist.model.simulation",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'trafikist.model' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "MODEL_CHOICES",
    "Choice",
    "Connection",
    "ReplyError",
    "Scenario",
    "ScenarioError",
    "Server",
    "Simulation",
    "choices_as_json",
    "command_table",
    "install_command_table",
    "new_server",
    "reply_to_json",
    "run_scenario",
]
