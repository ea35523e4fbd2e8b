"""The fast tier stays fast: a test in it that copies the course or builds one in this process
fails, saying to mark it `build` (tests/conftest.py, support.refuse_in_the_fast_tier)."""

from __future__ import annotations

from pathlib import Path

import pytest

import support
from support import copy_project
from support.building import core_build


def test_a_fast_test_may_not_copy_the_course(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match=r"@pytest.mark.build"):
        copy_project(tmp_path / "project")
    assert not (tmp_path / "project" / "modules").exists()


def test_a_fast_test_may_not_build_a_course(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match=r"core_build.*@pytest.mark.build"):
        core_build(tmp_path)


def test_a_fast_test_may_copy_what_is_not_the_course(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project", ("mkdocs.yml",))
    assert (project / "mkdocs.yml").is_file()


@pytest.mark.build
def test_a_build_test_is_not_held_back() -> None:
    assert support.IN_THE_FAST_TIER is False
