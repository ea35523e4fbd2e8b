"""Helpers for the registry tests: copy a course and the registry, change one thing, check."""

from __future__ import annotations

import shutil
from pathlib import Path

from trafikist.base.errors import Problem
from trafikist.checks.against_registry import check_course
from trafikist.checks.manifest import load_manifest
from trafikist.course.loader import load_course
from trafikist.registry import load_registry

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
FIXTURE_COURSE = DATA / "course"
SNAPSHOT = ROOT / "registry"
MODULE = "01-the-sweeps/module.md"

# The two rows as the seed (the published module 04 page) prints them, word for word.
SEED_ROWS = """\
    emq_promote => crate::emq::scheduling::promote, Row { name: c"EMQ.PROMOTE", family: Family::Emq, arity: 6,
        flags: "write", keys: EVAL_KEYS, acl: c"write slow", caps: &["promote"],
        summary: Some("Move due scheduled flat jobs to pending, bounded by batch (emq6.8 G8, @promote)"),
        complexity: Some("O(M log N) for M due jobs"), since: Some("0.1.0") };
    emq_stalled_check => crate::emq::recovery::stalled_check, Row { name: c"EMQ.STALLED.CHECK", family: Family::Emq, arity: 8,
        flags: "write", keys: EVAL_KEYS, acl: c"write slow", caps: &["stalled.check"],
        summary: Some("Counted stall sweep: recover or dead-letter expired leases; restart expiries exempt (emq6.8 G15, @sweep_stalled)"),
        complexity: Some("O(M log N) for M expired leases"), since: Some("0.1.0") };
"""  # noqa: E501 - quoted exactly


def copy_tree(
    tmp_path: Path, course: Path = FIXTURE_COURSE, checkout: bool = True
) -> tuple[Path, Path]:
    """A copy of a course and of the registry snapshot, to mutate.

    With `checkout` the copy stands for a real trafikey checkout (a Cargo.toml, a gate list that
    is trafikey's own, the crate's source searched for host calls): the fixture course's gate
    and call claims then check something. Against the snapshot, whose gate list the model
    chose, the build refuses them (see test_a_gate_claim_against_the_snapshot_checks_nothing).
    """
    modules = tmp_path / "modules"
    registry = tmp_path / "registry"
    shutil.copytree(course, modules)
    shutil.copytree(SNAPSHOT, registry)
    if checkout:
        (registry / "Cargo.toml").write_text('[package]\nname = "trafikey"\n')
        gate = registry / "src" / "gate.rs"
        text = gate.read_text(encoding="utf-8")
        gate.write_text(
            text.replace("// model's own choice: entries, name", "// trafikey's own list")
        )
    return modules, registry


def problems_of(modules: Path, registry: Path) -> list[Problem]:
    course = load_course(modules)
    return check_course(course, load_registry(registry), load_manifest(registry))
