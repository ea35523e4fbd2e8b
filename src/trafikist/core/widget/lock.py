"""The site's pyodide-lock.json: Pyodide's own lock file plus the model's wheel.

pyodide-lock (`add_wheels_to_spec`) reads the wheel's metadata, its top-level import name and its
sha256, and writes the entry; Pyodide then loads the model by name (`loadPackage`), with no
micropip, and checks the wheel's hash. The wheel sits beside the lock file, so its `file_name` is
relative and Pyodide resolves it against the lock file's URL.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import tempfile
from pathlib import Path

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.core.widget.wheel import BuiltWheel

LOCKS_KEPT = 8  # lock files kept in the cache (about 110 KB each)


def lock_with_wheel(pyodide_lock: Path, wheel: BuiltWheel, cache: Path | None = None) -> bytes:
    """Pyodide's lock file with the wheel added, as the bytes of a JSON file.

    The result depends only on the two inputs and pyodide-lock's version, so it is cached by
    their hash (trafikist.base.diskcache): pyodide-lock brings pydantic, whose import alone costs
    a build about 80 ms, and most builds have seen the same wheel before.
    """
    folder = cache or cache_folder("locks")
    entry = folder / f"{_key(pyodide_lock, wheel)}.json"
    found = read_entry(entry)
    if found is None:
        found = _lock_with_wheel(pyodide_lock, wheel)
        write_entry(entry, found)
        prune(folder, "*.json", LOCKS_KEPT)
    return found


def _key(pyodide_lock: Path, wheel: BuiltWheel) -> str:
    digest = hashlib.sha256(importlib.metadata.version("pyodide-lock").encode())
    digest.update(pyodide_lock.read_bytes())
    digest.update(wheel.name.encode())
    digest.update(wheel.data)
    return digest.hexdigest()


def _lock_with_wheel(pyodide_lock: Path, wheel: BuiltWheel) -> bytes:
    # Imported here: pyodide-lock brings pydantic, whose import costs more than the lock itself.
    from pyodide_lock import PyodideLockSpec
    from pyodide_lock.utils import add_wheels_to_spec

    spec = PyodideLockSpec.from_json(pyodide_lock)
    with tempfile.TemporaryDirectory(prefix="trafikist-wheel-") as folder:
        path = wheel.write(Path(folder))
        spec = add_wheels_to_spec(spec, [path], base_path=Path(folder))
        data = spec.to_dict()
    # Compact and sorted: the same inputs always give the same bytes.
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
