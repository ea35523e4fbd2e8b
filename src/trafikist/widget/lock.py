"""The site's pyodide-lock.json: Pyodide's own lock file plus the model's wheel.

pyodide-lock (`add_wheels_to_spec`) reads the wheel's metadata, its top-level import name and its
sha256, and writes the entry; Pyodide then loads the model by name (`loadPackage`), with no
micropip, and checks the wheel's hash. The wheel sits beside the lock file, so its `file_name` is
relative and Pyodide resolves it against the lock file's URL.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from trafikist.widget.wheel import BuiltWheel


def lock_with_wheel(pyodide_lock: Path, wheel: BuiltWheel) -> bytes:
    """Pyodide's lock file with the wheel added, as the bytes of a JSON file."""
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
