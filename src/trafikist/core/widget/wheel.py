"""Build the model's wheel for Pyodide: a PEP 427 `py3-none-any` wheel written with zipfile.

Why not `python -m build --wheel`: it makes an isolated environment and runs setuptools, about
4 s on the build machines, and the whole `trafikist` package would go in (MkDocs adapter, registry
parser, course loader), none of which runs in the page. The wheel only needs three pure-stdlib
parts: `trafikist/__init__.py`, the model and the drawing code. Writing those with zipfile takes a
few milliseconds, and fixed timestamps, order and permissions make the bytes the same on every
build (so the sha256 in the lock file only changes when the code does).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trafikist.base.errors import CourseError

DISTRIBUTION = (
    "trafikist-model"  # the package name in the lock file: loadPackage("trafikist-model")
)
WHEEL_PACKAGES = ("model", "model_view")  # the subpackages of `trafikist` that run in the page
# A zip entry's timestamp: the earliest a zip can hold, so the bytes never depend on the clock.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)
COMMAND_TABLE_FILE = "registry_table.json"  # trafikist.model.commands.REGISTRY_TABLE_FILE
VERSION = re.compile(r'^__version__\s*=\s*"(?P<version>[^"]+)"', re.M)


@dataclass(frozen=True)
class BuiltWheel:
    name: str  # the file name, e.g. trafikist_model-0.1.0-py3-none-any.whl
    data: bytes

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / self.name
        path.write_bytes(self.data)
        return path


def wheel_sources(package_dir: Path) -> list[tuple[str, Path]]:
    """(path in the wheel, source file) for every file the page needs, in a fixed order."""
    init = package_dir / "__init__.py"
    if not init.is_file():
        raise CourseError.at(
            package_dir, None, "is not the trafikist package (no __init__.py).", "Check the path."
        )
    found = [("trafikist/__init__.py", init)]
    for name in WHEEL_PACKAGES:
        folder = package_dir / name
        if not (folder / "__init__.py").is_file():
            raise CourseError.at(
                folder,
                None,
                f"the package trafikist.{name} is missing; the page's wheel needs it.",
                f"Create src/trafikist/{name}/__init__.py.",
            )
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" not in path.parts:
                found.append((f"trafikist/{path.relative_to(package_dir).as_posix()}", path))
    return found


def build_model_wheel(package_dir: Path, command_table: dict[str, Any]) -> BuiltWheel:
    """The wheel of `trafikist` (model and drawing code only), as bytes.

    `command_table` is the registry's rows of the EMQ verbs (`export_command_table`): the wheel
    carries them as `trafikist/model/registry_table.json`, which the model reads first, since
    the page has no registry to parse (trafikist.model.commands).
    """
    init_text = (package_dir / "__init__.py").read_text(encoding="utf-8")
    match = VERSION.search(init_text)
    version = match["version"] if match else "0"
    dist = DISTRIBUTION.replace("-", "_")
    dist_info = f"{dist}-{version}.dist-info"
    entries: list[tuple[str, bytes]] = [
        (arcname, source.read_bytes()) for arcname, source in wheel_sources(package_dir)
    ]
    table = json.dumps(command_table, sort_keys=True, indent=1) + "\n"
    entries.append((f"trafikist/model/{COMMAND_TABLE_FILE}", table.encode()))
    entries.append(
        (
            f"{dist_info}/METADATA",
            (
                "Metadata-Version: 2.1\n"
                f"Name: {DISTRIBUTION}\n"
                f"Version: {version}\n"
                "Summary: The Trafikist model of trafikey and EchoMQ, and its drawing code\n"
                "Requires-Python: >=3.12\n"
            ).encode(),
        )
    )
    entries.append(
        (
            f"{dist_info}/WHEEL",
            (
                b"Wheel-Version: 1.0\n"
                b"Generator: trafikist.core.widget.wheel\n"
                b"Root-Is-Purelib: true\n"
                b"Tag: py3-none-any\n"
            ),
        )
    )
    entries.append((f"{dist_info}/top_level.txt", b"trafikist\n"))
    record_lines = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in entries]
    record_lines.append(f"{dist_info}/RECORD,,")
    entries.append((f"{dist_info}/RECORD", ("\n".join(record_lines) + "\n").encode()))

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for arcname, data in entries:
            info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data, compresslevel=9)
    return BuiltWheel(f"{dist}-{version}-py3-none-any.whl", buffer.getvalue())


def _digest(data: bytes) -> str:
    """RECORD's hash form: urlsafe base64 of the sha256, without padding (PEP 376)."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
