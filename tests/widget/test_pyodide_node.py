"""The model behaves the same in Pyodide as in CPython: real Pyodide (the npm package the site
serves), in Node, with the wheel the build makes.

- Every scenario file, with no overrides and with a few reader's overrides: the trace is the
  same text (json.dumps, sorted keys) and the drawn markup is the same text.
- The model's own scenario, schema, server, trafikey and console tests run under pytest inside
  Pyodide, on the wheel's code (those that need a real Valkey, a subprocess or generated cases
  stay in CPython).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

from support import ROOT
from trafikist.core.widget.wheel import build_model_wheel
from trafikist.model import Simulation
from trafikist.model_view.live import canonical_json, result_of
from trafikist.registry import export_command_table, load_registry, resolve_registry_path

RUNNER = Path(__file__).with_name("pyodide_node.mjs")
SCENARIOS = sorted((ROOT / "modules/04-blocking-timers-and-the-bus/scenarios").glob("*.yml"))
# The model's tests that run inside Pyodide: no real Valkey, no subprocess, no hypothesis.
MODEL_TESTS = [
    "tests/model/test_scenarios.py",
    "tests/model/test_schema.py",
    "tests/model/test_server.py",
    "tests/model/test_trafikey.py",
    "tests/model/test_console.py",
]
# Reader's overrides tried on every scenario that accepts them (a ScenarioError is compared too).
OVERRIDES = [{"wire": 6}, {"processes": []}, {"beat": 0.5, "reaper": False, "batch": 1}]

pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(
        shutil.which("node") is None or not (ROOT / "node_modules/pyodide/pyodide.mjs").is_file(),
        reason="needs node and the npm package pyodide: run scripts/setup",
    ),
]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel as the build makes it, with the registry's rows of the EMQ verbs."""
    registry = load_registry(resolve_registry_path(None, ROOT))
    built = build_model_wheel(ROOT / "src/trafikist", export_command_table(registry))
    return built.write(tmp_path_factory.mktemp("wheel"))


def node(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(RUNNER), *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def cpython_result(job: dict) -> dict:
    from trafikist.model import ScenarioError

    try:
        trace = Simulation(job["scenario"], job["overrides"], source=job["name"]).run()
    except ScenarioError as error:
        return {"name": job["name"], "error": str(error)}
    result = result_of(json.loads(canonical_json(trace)))
    return {"name": job["name"], "trace": result["trace"], "markup": result["markup"]}


def test_every_scenario_gives_the_same_trace_and_drawing_in_pyodide(
    wheel: Path, tmp_path: Path
) -> None:
    jobs = []
    for path in SCENARIOS:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        jobs.append({"name": path.stem, "scenario": data, "overrides": None})
        jobs += [
            {"name": f"{path.stem} {json.dumps(o)}", "scenario": data, "overrides": o}
            for o in OVERRIDES
        ]
    jobs_file = tmp_path / "jobs.json"
    jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
    result = node("run", str(wheel), str(jobs_file))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [line["name"] for line in lines] == [job["name"] for job in jobs]
    assert {line.get("python", "3.14")[:4] for line in lines} == {"3.14"}
    for job, line in zip(jobs, lines, strict=True):
        line.pop("python", None)
        assert line == cpython_result(job), job["name"]


def test_the_models_scenario_tests_pass_inside_pyodide(wheel: Path) -> None:
    tests = [name for name in MODEL_TESTS if (ROOT / name).is_file()]
    assert "tests/model/test_scenarios.py" in tests
    site_packages = sysconfig.get_path("purelib", vars={"base": sys.prefix})
    result = node(
        "pytest",
        str(wheel),
        str(ROOT),
        site_packages,
        "--",
        *tests,
        "-q",
        "-p",
        "no:warnings",
        "-m",
        "not valkey and not slow",
        "-k",
        "not cli",
    )
    summary = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
    assert result.returncode == 0, result.stderr[-4000:]
    assert " passed" in summary and "failed" not in summary, summary
