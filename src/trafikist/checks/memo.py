"""The checks' one memo: every verdict the checks keep across the builds of one process (a
preview rebuilds on every save), keyed by everything the verdict reads. A key's first item
names what it holds: "page" (a page's problems), "sentence" (a sentence's provenance verdict),
"lines" (a file's lines)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from trafikist.base.memo import BoundedCache

# A course of thirty modules holds some 20,000 sentences; a preview's rebuild after one edit
# finds nearly all of them here.
CHECKS: BoundedCache[tuple[object, ...], object] = BoundedCache(32768)


def remembered[T](key: tuple[object, ...], make: Callable[[], T]) -> T:
    """`make()`, kept in CHECKS under `key`. A key's first item names what it holds, and each
    kind holds one type, so the value found under a key is what `make` returns."""
    return cast(T, CHECKS.get_or_make(key, make))
