"""The npm packages the build runs or serves (Pyodide, esbuild, Workbox), as `scripts/setup`
installs them from package-lock.json: each is there, at the version package.json pins."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from trafikist.base.errors import CourseError


def setup_fix(package: str) -> str:
    return f"Run scripts/setup (it runs `npm ci`, which installs {package} from package-lock.json)."


def installed_version(node_modules: Path, package: str, missing: str) -> str:
    """The version of `package` in `node_modules`; CourseError naming the folder when it is not
    installed (`missing` says what is missing and what the build needs it for) or when its
    version is not package.json's pin."""
    manifest = Path(node_modules) / package / "package.json"
    try:
        version = str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError, TypeError):
        raise CourseError.at(manifest.parent, None, missing, setup_fix(package)) from None
    pin = pinned_version(Path(node_modules).parent / "package.json", package)
    if pin and pin != version:
        raise CourseError.at(
            manifest,
            None,
            f"node_modules has {package} {version}, but package.json pins {pin}.",
            setup_fix(package),
        )
    return version


def pinned_version(package_json: Path, package: str) -> str | None:
    """The version package.json pins `package` to, in either section; None without one."""
    try:
        data = json.loads(package_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for section in ("dependencies", "devDependencies"):
        pin = ((data.get(section) if isinstance(data, dict) else None) or {}).get(package)
        if pin:
            return str(pin)
    return None


NODE_FIX = "Run scripts/setup (it installs Node.js and the npm packages)."


def node_executable(script: Path, doing: str) -> str:
    """`node`, or CourseError naming the script that needs it: `doing` says what for."""
    node = shutil.which("node")
    if node is None:
        raise CourseError.at(
            script, None, f"Node.js is needed for {doing}, and `node` is not on PATH.", NODE_FIX
        )
    return node


def run_node(
    script: Path,
    arguments: list[str],
    *,
    doing: str,
    fix: str,
    timeout: int,
    stdin: bytes | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run a Node script of the build to its end; CourseError naming the script when Node is
    missing, when the script outlasts `timeout` seconds, or (with `check`) when it fails: the
    last line it printed on stderr says why."""
    command = [node_executable(script, doing), str(script), *arguments]
    try:
        result = subprocess.run(command, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CourseError.at(
            script,
            None,
            f"{doing} took over {timeout} s.",
            f"Check that `node {script.name}` runs on this machine; {fix}",
        ) from None
    if check and result.returncode != 0:
        raise CourseError.at(script, None, f"{doing} failed in Node: {last_line(result)}.", fix)
    return result


def last_line(result: subprocess.CompletedProcess[bytes]) -> str:
    """The last line a Node process printed on stderr, or its exit status."""
    why = result.stderr.decode(errors="replace").strip().splitlines()
    return (why[-1] if why else f"exit status {result.returncode}").rstrip(".")
