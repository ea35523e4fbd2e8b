"""`python -m trafikist.model run FILE`: run one scenario and print its JSON trace.

    python -m trafikist.model run SCENARIO.yml [--overrides JSON] [--indent N]
    python -m trafikist.model console SCENARIO.yml   run it, then read console lines from stdin
    python -m trafikist.model choices                the model's own choices, as JSON

A scenario is JSON, or YAML when PyYAML is importable. A bad scenario prints one line naming the
file, the field and the fix, and exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from trafikist.model.choices import choices_as_json
from trafikist.model.console import execute_line
from trafikist.model.errors import ScenarioError
from trafikist.model.simulation import Simulation


def load_file(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(
            str(path), "", f"cannot be read ({error.strerror}).", "Check the file's path."
        ) from error
    if path.suffix in (".yml", ".yaml"):
        try:
            import yaml
        except ImportError as error:
            raise ScenarioError(
                str(path),
                "",
                "is YAML, and PyYAML is not installed.",
                "Install PyYAML, or write the scenario as JSON.",
            ) from error
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as error:
            line = getattr(getattr(error, "problem_mark", None), "line", None)
            where = f"line {line + 1}" if line is not None else ""
            raise ScenarioError(
                str(path), where, "is not valid YAML.", "Fix the indentation or the quoting there."
            ) from error
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ScenarioError(
            str(path),
            f"line {error.lineno}",
            f"is not valid JSON ({error.msg}).",
            "Fix the JSON there, or name the file .yml for YAML.",
        ) from error


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trafikist.model")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a scenario and print its JSON trace")
    run.add_argument("file", type=Path)
    run.add_argument("--overrides", default=None, help="a JSON object of reader controls")
    run.add_argument("--indent", type=int, default=None)
    console = commands.add_parser("console", help="run a scenario, then read console lines")
    console.add_argument("file", type=Path)
    commands.add_parser("choices", help="print the model's own choices as JSON")
    args = parser.parse_args(argv)
    if args.command == "choices":
        print(json.dumps(choices_as_json(), indent=2))
        return 0
    try:
        data = load_file(args.file)
        overrides = None
        if getattr(args, "overrides", None):
            try:
                overrides = json.loads(args.overrides)
            except json.JSONDecodeError as error:
                raise ScenarioError(
                    "--overrides",
                    "",
                    f"is not valid JSON ({error.msg}).",
                    "Pass a JSON object, e.g. '{\"wire\": 6}'.",
                ) from error
        simulation = Simulation(data, overrides, source=str(args.file))
        trace = simulation.run()
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.command == "run":
        print(json.dumps(trace, sort_keys=True, indent=args.indent))
        return 0
    for line in sys.stdin:
        print(execute_line(simulation.server, line.rstrip("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
