"""Pyodide's runtime files, from the npm package `pyodide` that `scripts/setup` installs.

The site serves Pyodide itself (no CDN): these files are copied into the built site. The npm
package is the core runtime only (no package wheels, no micropip); the browser needs these five.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import CourseError

RUNTIME_FILES = (
    "pyodide.mjs",  # the loader, imported by the widget's module worker
    "pyodide.asm.mjs",  # the Emscripten glue
    "pyodide.asm.wasm",  # CPython compiled to WebAssembly (about 9.6 MB)
    "python_stdlib.zip",  # the standard library (about 2.5 MB)
    "pyodide-lock.json",  # the package index the site's own lock file extends
)
SETUP_FIX = "Run scripts/setup (it runs `npm ci`, which installs Pyodide from package-lock.json)."


@dataclass(frozen=True)
class PyodideRuntime:
    folder: Path  # node_modules/pyodide
    version: str

    @property
    def files(self) -> list[Path]:
        return [self.folder / name for name in RUNTIME_FILES]

    @property
    def lock_file(self) -> Path:
        return self.folder / "pyodide-lock.json"


def find_pyodide_runtime(node_modules: Path) -> PyodideRuntime:
    """Pyodide's runtime in `node_modules`, checked against the pin in package.json."""
    folder = node_modules / "pyodide"
    missing = [name for name in RUNTIME_FILES if not (folder / name).is_file()]
    if missing:
        raise CourseError.at(
            folder,
            None,
            f"Pyodide's runtime is missing ({', '.join(missing)}); the duty widget serves it "
            "from the site.",
            SETUP_FIX,
        )
    version = str(_read_json(folder / "package.json").get("version", ""))
    pinned = _pinned_version(node_modules.parent / "package.json")
    if pinned and pinned != version:
        raise CourseError.at(
            folder / "package.json",
            None,
            f"node_modules has Pyodide {version}, but package.json pins {pinned}.",
            SETUP_FIX,
        )
    return PyodideRuntime(folder=folder, version=version)


def _pinned_version(package_json: Path) -> str | None:
    if not package_json.is_file():
        return None
    data = _read_json(package_json)
    for section in ("dependencies", "devDependencies"):
        pin = (data.get(section) or {}).get("pyodide")
        if pin:
            return str(pin)
    return None


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CourseError.at(path, None, f"cannot be read as JSON ({error}).", SETUP_FIX) from None
    return data if isinstance(data, dict) else {}
