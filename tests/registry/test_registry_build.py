"""End to end, under each engine: a strict build of a copied project fails on a mutated excerpt,
a mutated registry or a missing registry folder, and prints the precise message."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import copy_project, edit, site_build
from trafikist.mkdocs_plugin.config import TrafikistConfig

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not hasattr(TrafikistConfig, "registry"),
        reason="the trafikist plugin has no 'registry' option yet: it does not run the checks",
    ),
]
MODULE_04 = "modules/04-blocking-timers-and-the-bus/module.md"
PROMOTE_ARITY = 'c"EMQ.PROMOTE", family: Family::Emq, arity: 6,'


def test_an_excerpt_arity_fails_the_build(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    line = edit(project / MODULE_04, PROMOTE_ARITY, PROMOTE_ARITY.replace("6", "7"))
    result = site_build(engine, project, tmp_path / "site")
    assert result.returncode != 0
    assert (
        f"{MODULE_04}:{line}: excerpt row EMQ.PROMOTE, field 'arity': expected 6 (registry), "
        "found 7 (excerpt)."
    ) in result.stdout + result.stderr


def test_a_blocking_flag_in_the_registry_fails_the_build(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    edit(
        project / "registry/src/registry.rs",
        'arity: 6,\n        flags: "write"',
        'arity: 6,\n        flags: "write blocking"',
    )
    result = site_build(engine, project, tmp_path / "site")
    assert result.returncode != 0
    assert (
        "excerpt row EMQ.PROMOTE, field 'flags': expected \"write blocking\" (registry), "
        'found "write" (excerpt).'
    ) in result.stdout + result.stderr


def test_a_missing_registry_folder_fails_the_build(engine: str, tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    edit(
        project / "mkdocs.yml", "  - trafikist:\n", "  - trafikist:\n      registry: ../trafikey\n"
    )
    result = site_build(engine, project, tmp_path / "site")
    assert result.returncode != 0
    assert (
        f"the registry folder {project / '../trafikey'} (from the option 'registry' of plugin "
        "'trafikist') does not exist."
    ) in result.stdout + result.stderr
