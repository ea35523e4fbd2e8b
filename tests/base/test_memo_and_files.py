"""The base layer's shared facts: one bounded memo and one file signature serve every cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trafikist.base.files import file_signature
from trafikist.base.memo import BoundedCache


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recently used
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3
    assert len(cache) == 2


def test_get_or_make_makes_a_value_once_and_keeps_a_falsy_one() -> None:
    cache: BoundedCache[str, list[int]] = BoundedCache(4)
    made = []
    for _ in range(3):
        cache.get_or_make("k", lambda: made.append(1) or [])
    assert made == [1]  # an empty list is a value, kept like any other


def test_a_cache_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError):
        BoundedCache(0)


def test_a_signature_changes_with_any_edit_and_skips_compiled_python(tmp_path: Path) -> None:
    (tmp_path / "a.yml").write_text("one")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"\0")
    before = file_signature([tmp_path])
    assert "x.pyc" not in before and "a.yml" in before
    (tmp_path / "a.yml").write_text("two!")  # another size
    assert file_signature([tmp_path]) != before
    stat = (tmp_path / "a.yml").stat()
    os.utime(tmp_path / "a.yml", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    changed = file_signature([tmp_path])
    assert changed != before
    assert file_signature([tmp_path], "*.md") == ""  # nothing matches
    assert file_signature([tmp_path / "missing"]) == ""


def test_a_signature_reads_a_file_given_by_name(tmp_path: Path) -> None:
    path = tmp_path / "one.yml"
    path.write_text("x")
    assert file_signature([path], "*.md").startswith(f"{path}:1:")
