"""The site's own scripts and styles as the site serves them: bundled and minified by esbuild.

esbuild is the npm package pinned in package.json (installed by scripts/setup), run in Node by
`bundle.mjs`, once for all of widgets/:

- each of `MODULES` (the scripts a page loads as ES modules, or that one of them starts) is
  bundled under its own name with every file it imports, and minified. An import of another of
  them stays an import: duty.js loads with the page and imports widget.mjs on the reader's first
  move, widget.mjs starts the module worker worker.mjs, which imports Pyodide's `pyodide.mjs`
  from a URL made at run time. A file bundled into one of them (widgets/duty/controls.mjs,
  runner.mjs) is not served on its own.
- every other script (the theme's classic scripts, widgets/theme/) is minified as it is;
- every style is minified on its own; trafikist.core.assets joins them into the stylesheet.

esbuild's output depends only on its version, `bundle.mjs`, the job and the bytes of the
widgets' scripts and styles, so it is cached by a hash of those in the build's cache
(trafikist.base.diskcache, `bundles`): a build that has seen the same sources does not start
Node. A bundle may hold only those hashed files (`bundle.mjs` refuses any other import), so a
cached entry is never stale.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.base.errors import CourseError
from trafikist.core.npm import installed_version, last_line, run_node, setup_fix

BUNDLE_SCRIPT = Path(__file__).with_name("bundle.mjs")
# Under widgets/: what the pages load as ES modules, and the module worker.
MODULES = (
    "duty/duty.js",
    "duty/widget.mjs",
    "duty/worker.mjs",
    "offline/register.js",
    "checks/checks.js",
    "checks/enhance.mjs",
    "checks/grade.mjs",
    "evidence/evidence.js",
    "evidence/show.mjs",
)
SCRIPT_SUFFIXES = (".js", ".mjs")
STYLE_SUFFIXES = (".css",)
# What a bundle may import besides scripts (and what the cache's key hashes).
SOURCE_SUFFIXES = (*SCRIPT_SUFFIXES, *STYLE_SUFFIXES, ".json")
# The JavaScript the output may use: what the widget's browsers run (module workers).
TARGET = "es2022"
NODE_TIMEOUT = 120  # seconds; esbuild takes a few tens of milliseconds
CACHE_KEEP = 8  # bundles kept in the cache (about 60 KB each)
SETUP_FIX = setup_fix("esbuild")


@dataclass(frozen=True)
class Bundle:
    """What esbuild made of widgets/."""

    files: dict[str, bytes]  # path under widgets/ -> the bytes the site serves there
    bundled: frozenset[str]  # sources inside a module's bundle: not served on their own
    made: bool = False  # True when this build ran esbuild (the cache had none)


def bundle_widgets(widgets_dir: Path, node_modules: Path, cache: Path | None = None) -> Bundle:
    """Bundle and minify the scripts and styles of `widgets_dir`, from the cache or with
    esbuild now. Raises CourseError with the fix when Node or esbuild is missing, or when
    esbuild refuses a source (its file and line)."""
    widgets_dir = Path(widgets_dir)
    sources = {
        path.relative_to(widgets_dir).as_posix(): path.read_bytes()
        for path in sorted(widgets_dir.rglob("*"))
        if path.is_file() and path.suffix in SOURCE_SUFFIXES
    }
    job = {
        "modules": [name for name in MODULES if name in sources],
        "scripts": [name for name in sources if name.endswith(SCRIPT_SUFFIXES)],
        "styles": [name for name in sources if name.endswith(STYLE_SUFFIXES)],
        "target": TARGET,
    }
    job["scripts"] = [name for name in job["scripts"] if name not in job["modules"]]
    if not (job["modules"] or job["scripts"] or job["styles"]):
        return Bundle(files={}, bundled=frozenset())
    version = esbuild_version(node_modules)
    digest = hashlib.sha256(f"esbuild {version}\n{json.dumps(job)}\n".encode())
    digest.update(BUNDLE_SCRIPT.read_bytes())
    for name, data in sources.items():
        digest.update(f"\n{name} {len(data)}\n".encode())
        digest.update(data)
    folder = cache or cache_folder("bundles")
    entry = folder / f"{digest.hexdigest()}.json"
    found = read_entry(entry)
    if found is not None:
        try:
            return _parsed(found)
        except (ValueError, KeyError, TypeError):
            pass  # a damaged entry: make it again
    made = _run_esbuild(widgets_dir, node_modules, {**job, "sources": sorted(sources)})
    write_entry(entry, made)
    prune(folder, "*.json", CACHE_KEEP)
    result = _parsed(made)
    return Bundle(files=result.files, bundled=result.bundled, made=True)


def _parsed(data: bytes) -> Bundle:
    result = json.loads(data)
    files = {str(name): str(text).encode("utf-8") for name, text in result["files"].items()}
    return Bundle(files=files, bundled=frozenset(map(str, result["bundled"])))


def _run_esbuild(widgets_dir: Path, node_modules: Path, job: dict[str, object]) -> bytes:
    doing = "bundling the widgets' scripts and styles (esbuild)"
    job = {**job, "root": str(widgets_dir.resolve())}
    result = run_node(
        BUNDLE_SCRIPT,
        [str(Path(node_modules).resolve())],
        doing=doing,
        fix=SETUP_FIX,
        timeout=NODE_TIMEOUT,
        stdin=json.dumps(job).encode(),
        check=False,  # the script's answer names the source esbuild stopped at
    )
    try:
        answer = json.loads(result.stdout)
    except ValueError:
        raise CourseError.at(
            BUNDLE_SCRIPT, None, f"{doing} failed in Node: {last_line(result)}.", SETUP_FIX
        ) from None
    if "error" in answer or result.returncode != 0:
        error = answer.get("error") or {}
        text = str(error.get("text") or f"exit status {result.returncode}").rstrip(".")
        if not error.get("file"):  # esbuild itself failed, not a source
            raise CourseError.at(BUNDLE_SCRIPT, None, f"esbuild failed in Node: {text}.", SETUP_FIX)
        raise CourseError.at(
            widgets_dir / error["file"],
            error.get("line"),
            f"esbuild cannot bundle or minify this file: {text}.",
            "Fix the script or style there (the site serves widgets/ through esbuild).",
        )
    return json.dumps(answer, sort_keys=True, separators=(",", ":")).encode()


def esbuild_version(node_modules: Path) -> str:
    """esbuild's version in node_modules, checked against the pin in package.json."""
    return installed_version(
        node_modules,
        "esbuild",
        "esbuild (npm) is missing; the build bundles and minifies the widgets' scripts and "
        "styles with it.",
    )
