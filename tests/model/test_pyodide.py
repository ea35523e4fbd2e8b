"""The model runs unchanged in Pyodide: module 04's scenarios (the tests' copy) give
byte-identical traces there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from support import MODEL_SCENARIOS, ROOT
from trafikist.model import command_table, run_scenario

SCENARIOS = MODEL_SCENARIOS
RUNNER = Path(__file__).with_name("pyodide") / "run_model.mjs"


def test_pyodide_gives_the_same_traces_as_cpython(node: str) -> None:
    scenarios = [yaml.safe_load(path.read_text()) for path in sorted(SCENARIOS.glob("*.yml"))]
    result = subprocess.run(
        [node, str(RUNNER), str(ROOT)],
        input=json.dumps({"table": command_table(), "scenarios": scenarios}),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["version"].startswith("3.14")
    expected = [json.dumps(run_scenario(data), sort_keys=True) for data in scenarios]
    assert out["traces"] == expected
