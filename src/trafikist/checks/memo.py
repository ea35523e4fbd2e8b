"""The checks' one memo: every verdict the checks keep across the builds of one process (a
preview rebuilds on every save), keyed by everything the verdict reads. A key's first item
names what it holds: "page" (a page's problems), "sentence" (a sentence's provenance verdict),
"lines" (a file's lines)."""

from __future__ import annotations

from trafikist.base.memo import BoundedCache

# A course of thirty modules holds some 20,000 sentences; a preview's rebuild after one edit
# finds nearly all of them here.
CHECKS: BoundedCache[tuple[object, ...], object] = BoundedCache(32768)
