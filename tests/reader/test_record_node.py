"""The record's pure part (widgets/checks/record.mjs) under Node's own test runner:
tests/reader/record.test.mjs. Each of its tests counts; one that fails fails this one."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from support import ROOT

NODE_TESTS = Path(__file__).with_name("record.test.mjs")


def test_the_record_keeps_every_attempt_and_reads_what_fits(node: str) -> None:
    result = subprocess.run(
        [node, "--test", "--test-reporter=tap", str(NODE_TESTS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    counts = {name: int(n) for name, n in re.findall(r"^# (pass|fail) (\d+)$", result.stdout, re.M)}
    assert result.returncode == 0 and counts.get("fail") == 0, result.stdout + result.stderr
    assert counts.get("pass", 0) >= 6, counts
