"""The one bounded memo of the build: derived values kept across the builds of one process (a
preview rebuilds on every save), keyed by everything they are made from."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable


class BoundedCache[K: Hashable, V]:
    """At most `size` entries; past that, the least recently used one goes. A key must hold
    everything the value is made from, so a stale entry is never read: it is only never hit."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a bounded cache holds at least one entry")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        found = self.get(key)
        return found if found is not None else self.put(key, make())

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries
