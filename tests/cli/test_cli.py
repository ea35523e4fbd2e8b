"""`trafikist build --engine …`, the documented command, builds the course with either engine
into the folder it is given; without the option, TRAFIKIST_ENGINE names the engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, build_env
from trafikist import cli


@pytest.mark.slow
def test_trafikist_build_builds_with_the_engine_it_names(engine: str, tmp_path: Path) -> None:
    site = tmp_path / "site"
    command = [sys.executable, "-m", "trafikist.cli", "build", "--engine", engine, "-d", str(site)]
    result = subprocess.run(
        command, cwd=ROOT, env=build_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    home = (site / "index.html").read_text(encoding="utf-8")
    generator = "mkdocs-1.6.1, mkdocs-material-9.8.2" if engine == "mkdocs" else "zensical-0.0.73"
    assert f'<meta name="generator" content="{generator}">' in home
    assert 'http-equiv="Content-Security-Policy"' in home


def test_the_engine_defaults_to_mkdocs_or_to_trafikist_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TRAFIKIST_ENGINE", raising=False)
    assert cli._parser().parse_args(["build"]).engine == "mkdocs"
    monkeypatch.setenv("TRAFIKIST_ENGINE", "zensical")
    assert cli._parser().parse_args(["serve"]).engine == "zensical"
    assert cli._parser().parse_args(["build", "--engine", "mkdocs"]).engine == "mkdocs"
