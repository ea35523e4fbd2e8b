"""Pyodide's runtime files, from the npm package `pyodide` that `scripts/setup` installs.

The site serves Pyodide itself (no CDN): these files are copied into the built site. The npm
package is the core runtime only (no package wheels, no micropip); the browser needs these five.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import CourseError
from trafikist.core.npm import installed_version, setup_fix

RUNTIME_FILES = (
    "pyodide.mjs",  # the loader, imported by the widget's module worker
    "pyodide.asm.mjs",  # the Emscripten glue
    "pyodide.asm.wasm",  # CPython compiled to WebAssembly (about 9.6 MB)
    "python_stdlib.zip",  # the standard library (about 2.5 MB)
    "pyodide-lock.json",  # the package index the site's own lock file extends
)
SETUP_FIX = setup_fix("pyodide")


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
    version = installed_version(node_modules, "pyodide", "Pyodide's package.json is missing.")
    return PyodideRuntime(folder=folder, version=version)
