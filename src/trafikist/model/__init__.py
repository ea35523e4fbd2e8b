"""The model of trafikey and EchoMQ: pure Python, stdlib only, on a virtual clock.

It runs unchanged in CPython (the build and the tests) and in Pyodide (the page). The public API:

    Server                 an in-memory Valkey; `execute(*argv)` returns RESP2-shaped replies
    run_scenario           a scenario dict (+ a reader's overrides) -> the trace dict
    Simulation             the same run, keeping `.server` for the console after `.run()`
    Scenario               the checked scenario; `Scenario.from_dict(data, source=...)`
    ScenarioError          a bad scenario: names the file, the field path and the fix
    ReplyError             an error reply; `str()` is Valkey's own text
    MODEL_CHOICES          every value the model chose where the seed is silent
    default_command_table  the EMQ.* verbs' rows (arity, flags, ACL)
"""

from trafikist.model.choices import MODEL_CHOICES, Choice, choices_as_json
from trafikist.model.commands import default_command_table
from trafikist.model.errors import ReplyError, ScenarioError
from trafikist.model.scenario import Scenario
from trafikist.model.server import Connection, Server
from trafikist.model.simulation import Simulation, reply_to_json, run_scenario


def new_server() -> Server:
    """A server with trafikey loaded and EchoMQ's scripts registered, as a run starts with."""
    from trafikist.model import echomq, trafikey

    server = Server()
    trafikey.load(server)
    echomq.load_scripts(server)
    return server


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
    "default_command_table",
    "new_server",
    "reply_to_json",
    "run_scenario",
]
