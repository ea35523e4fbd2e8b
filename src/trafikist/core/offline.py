"""Reading offline: the site's service worker, made with Workbox, with no engine in it (no
MkDocs import).

An engine adapter makes one call, on the finished site folder, before it swaps that folder into
place: `write_offline_worker(site_dir, node_modules=…, assets_path=…, preview=…)` (`preview`
under a live-reloading preview server). It writes `sw.js` at the site's root, which
`widgets/offline/register.js` registers on every page two seconds after the page's load event
(and not while a Run is loading). The worker

- precaches the small page files on the first visit: every page, the stylesheets and scripts,
  the search index, images and fonts (`precache_files`), so the course opens and searches with
  the network off;
- caches the Run's big files (Pyodide's runtime, the memory snapshot, the model's wheel and
  lock: `RUN_FILES`) only when a Run fetches them, and not for a reader whose browser asks to
  save data;
- names every cache after the build's content hash (`_build_hash`). A new build's worker takes
  over at once and deletes every cache of the builds before it; pages open on the old build
  reload onto the new one, so no page mixes two builds or keeps stale model code.

The worker's code is Workbox's (`generateSW`, run in Node by `offline.mjs`). Workbox's bundler
takes one to three seconds, and its output depends only on Workbox's version and the worker's
configuration, so it runs once per machine and its output is cached
(~/.cache/trafikist/workers, like the memory snapshots); each build fills in its precache list
and its hash, two placeholders of that output, in a few milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.base.errors import CourseError
from trafikist.core.npm import installed_version, run_node
from trafikist.core.sitedir import MARKER

WORKER_FILE = "sw.js"
REGISTER_SCRIPT = "offline/register.js"  # widgets/offline/register.js, under the assets path
OFFLINE_SCRIPT = Path(__file__).with_name("offline.mjs")
MANIFEST_TOKEN = "__TRAFIKIST_PRECACHE_MANIFEST__"  # offline.mjs leaves these in Workbox's code
BUILD_TOKEN = "__trafikist_build__"
BUILD_HASH_LENGTH = 16  # hex digits of the build's sha256 in the caches' names
NODE_TIMEOUT = 120  # seconds; Workbox takes one to three
CACHE_KEEP = 4  # worker templates kept; one per Workbox version and configuration
SETUP_FIX = (
    "Run scripts/setup (it runs `npm ci`, which installs workbox-build from package-lock.json)."
)

# The Run's big files, under the widget's assets path: cached at runtime, never precached.
RUN_FILES = r"(pyodide/[^/]+|model/[^/]+\.(snapshot|whl)|model/pyodide-lock\.json)$"
# The small files a page needs to open, read and search offline.
PRECACHE_SUFFIXES = frozenset(
    {".html", ".css", ".js", ".mjs", ".json", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp"}
    | {".ico", ".woff2", ".woff", ".ttf", ".webmanifest"}
)
# A file whose name carries a hash of its content (the theme's bundle.a5f9d56c.min.js): its URL
# changes with it, so Workbox fetches it as is and may reuse the browser's copy.
HASHED_NAME = re.compile(r"\.[0-9a-f]{8,}\.")
# The theme's search-language files, needed only by a search index in another language.
SEARCH_LANGUAGES = "assets/javascripts/lunr/"
SEARCH_INDEX = "search/search_index.json"


@dataclass(frozen=True)
class PrecacheEntry:
    url: str  # relative to the site's root, where the worker is
    revision: str | None  # None: the URL is versioned already
    size: int


@dataclass(frozen=True)
class OfflineWorker:
    """What `write_offline_worker` wrote, for logs, tests and benchmarks."""

    path: Path
    build: str  # the build's content hash, as the caches' names carry it
    precache: list[PrecacheEntry]
    template_made: bool  # True when this build ran Workbox (no cached template)

    @property
    def precache_bytes(self) -> int:
        return sum(entry.size for entry in self.precache)


def write_offline_worker(
    site_dir: Path,
    *,
    node_modules: Path,
    assets_path: str,
    preview: bool = False,
) -> OfflineWorker:
    """Write `site_dir/sw.js` for the finished site in `site_dir`. Call it after every other
    file of the build is written (the worker lists them and hashes them), before the folder is
    swapped into place. With `preview` (the authors' live preview, `mkdocs serve`), the worker
    keeps nothing and sends every request to the network: it only replaces a worker that a
    built site left at the same address. Raises CourseError with the fix when Node or Workbox
    is missing."""
    site_dir = Path(site_dir)
    path = site_dir / WORKER_FILE
    if preview:
        code, made = worker_template(node_modules, "", kind="preview")
        path.write_text(code, encoding="utf-8")
        return OfflineWorker(path=path, build="", precache=[], template_made=made)
    digests = _file_digests(site_dir)
    build = _build_hash(digests)
    entries = precache_files(site_dir, digests, _run_files(assets_path))
    template, made = worker_template(node_modules, assets_path)
    manifest = json.dumps(
        [{"url": entry.url, "revision": entry.revision} for entry in entries],
        separators=(",", ":"),
    )
    code = template.replace(MANIFEST_TOKEN, manifest).replace(BUILD_TOKEN, build)
    path.write_text(code, encoding="utf-8")
    return OfflineWorker(path=path, build=build, precache=entries, template_made=made)


def precache_entries(site_dir: Path, assets_path: str) -> list[PrecacheEntry]:
    """What the worker of the site in `site_dir` precaches (for the benchmarks)."""
    return precache_files(site_dir, _file_digests(site_dir), _run_files(assets_path))


def _run_files(assets_path: str) -> re.Pattern[str]:
    return re.compile(f"(?:^|/){re.escape(assets_path.strip('/'))}/{RUN_FILES}")


def precache_files(
    site_dir: Path, digests: dict[str, tuple[str, int]], run_files: re.Pattern[str]
) -> list[PrecacheEntry]:
    """The files the worker precaches, in path order."""
    languages = _search_languages(site_dir / SEARCH_INDEX)
    entries = []
    for relative, (digest, size) in sorted(digests.items()):
        name = relative.rsplit("/", 1)[-1]
        if os.path.splitext(name)[1].lower() not in PRECACHE_SUFFIXES:
            continue
        if run_files.search(relative):
            continue
        if relative.startswith(SEARCH_LANGUAGES) and languages <= {"en"}:
            continue
        revision = None if HASHED_NAME.search(name) else digest[:BUILD_HASH_LENGTH]
        entries.append(PrecacheEntry(url=quote(relative), revision=revision, size=size))
    return entries


def worker_template(node_modules: Path, assets_path: str, kind: str = "site") -> tuple[str, bool]:
    """Workbox's worker (for the site: with the two placeholders), from the cache or made now
    in Node (one to three seconds). Returns (code, made now)."""
    version = _workbox_version(node_modules)
    key = hashlib.sha256(
        f"workbox-build {version}\n{kind}\n{assets_path.strip('/')}\n{RUN_FILES}\n".encode()
        + OFFLINE_SCRIPT.read_bytes()
    ).hexdigest()
    folder = cache_folder("workers")
    cached = folder / f"{key}.js"
    found = read_entry(cached)
    if found is not None:
        return found.decode("utf-8"), False
    code = _run_workbox(node_modules, assets_path, kind)
    write_entry(cached, code.encode("utf-8"))
    prune(folder, "*.js", CACHE_KEEP)
    return code, True


def _run_workbox(node_modules: Path, assets_path: str, kind: str) -> str:
    with tempfile.TemporaryDirectory(prefix="trafikist-worker-") as scratch:
        out = Path(scratch) / WORKER_FILE
        arguments = [kind, str(node_modules.resolve())]
        if kind == "site":
            arguments += [assets_path.strip("/"), RUN_FILES]
        run_node(
            OFFLINE_SCRIPT,
            [*arguments, str(out)],
            doing="making the site's service worker (Workbox)",
            fix=SETUP_FIX,
            timeout=NODE_TIMEOUT,
        )
        if not out.is_file():
            raise CourseError.at(
                OFFLINE_SCRIPT, None, "Workbox wrote no service worker.", SETUP_FIX
            )
        code = out.read_text(encoding="utf-8")
    if kind == "site" and (code.count(MANIFEST_TOKEN) != 1 or code.count(BUILD_TOKEN) != 1):
        raise CourseError.at(
            OFFLINE_SCRIPT, None, "Workbox's worker lacks the build's placeholders.", SETUP_FIX
        )
    return code


def _workbox_version(node_modules: Path) -> str:
    """workbox-build's version in node_modules, checked against the pin in package.json."""
    return installed_version(
        node_modules,
        "workbox-build",
        "Workbox's build tools (npm workbox-build) are missing; the site's service worker is "
        "made with them.",
    )


def _file_digests(site_dir: Path) -> dict[str, tuple[str, int]]:
    """Every file of the site but the worker itself: relative path -> (sha256 of its bytes,
    size). Plain os.walk and strings: pathlib's per-path work was most of the time."""
    found = {}
    root = os.fspath(site_dir)
    for folder, _, names in os.walk(root):
        prefix = os.path.relpath(folder, root).replace(os.sep, "/")
        for name in names:
            relative = name if prefix == "." else f"{prefix}/{name}"
            if relative in (WORKER_FILE, MARKER):  # the site folder's marker is no page's
                continue
            with open(os.path.join(folder, name), "rb") as file:
                data = file.read()
            found[relative] = (hashlib.sha256(data).hexdigest(), len(data))
    return found


def _build_hash(digests: dict[str, tuple[str, int]]) -> str:
    """The build's content hash: every file's path and bytes (the big Run files included, so a
    new model or a new Pyodide is a new build)."""
    whole = hashlib.sha256()
    for relative, (digest, _) in sorted(digests.items()):
        whole.update(f"{relative}\0{digest}\n".encode())
    return whole.hexdigest()[:BUILD_HASH_LENGTH]


def _search_languages(index: Path) -> set[str]:
    try:
        config = json.loads(index.read_text(encoding="utf-8")).get("config") or {}
    except (OSError, ValueError, AttributeError):
        return {"en"}
    languages = config.get("lang") or ["en"]
    return {str(language) for language in languages}
