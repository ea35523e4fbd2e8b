"""The duty widget's memory snapshot: Pyodide with the model already imported, made at build time.

Why: a reader's first Run waits for Pyodide to start CPython (unpack the standard library, run
its start-up, import the model), about 3.4 s in headless Chromium on the build machines. Pyodide
can instead restore a saved WebAssembly memory in which all that is done (`loadPyodide`'s
`_loadSnapshot`); the first Run then draws in about 1.1 s (docs/performance.md has the figures).

The snapshot is made in Node by `snapshot.mjs`, from the same npm package the site serves, and
depends only on Pyodide's runtime files, the model's wheel and that script. So it is cached by a
hash of those in the build's cache (trafikist.base.diskcache), shared by every build, checkout and
test on the machine. Without a cached one, Node runs in the background (about 4 s) while MkDocs
renders the pages, and the build waits for it only at the end.

The file is gzipped (31 MB of memory, 7 MB on the wire); the page unzips it with the browser's
DecompressionStream. Its name carries the hash, so a host may cache it for good.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from trafikist.base.diskcache import cache_folder, prune, read_entry, write_entry
from trafikist.base.errors import CourseError
from trafikist.core.widget.runtime import PyodideRuntime
from trafikist.core.widget.wheel import BuiltWheel

SNAPSHOT_SCRIPT = Path(__file__).with_name("snapshot.mjs")
CACHE_KEEP = 4  # snapshots kept in the cache; the least recently used go first
NODE_TIMEOUT = 300  # seconds; making one takes about 4 s
OFF_FIX = "or set `memory_snapshot: false` under the trafikist plugin in mkdocs.yml."


def snapshot_key(runtime: PyodideRuntime, wheel: BuiltWheel) -> str:
    """The sha256 of everything the snapshot's bytes depend on.

    Pyodide's runtime counts by its version and its files' sizes, not their 13 MB of bytes
    (hashing those would cost every build about 20 ms): `npm ci` installs a pinned version
    whose files it checks against package-lock.json's integrity hash.
    """
    digest = hashlib.sha256(f"pyodide {runtime.version}\n".encode())
    for path in runtime.files:
        digest.update(f"{path.name} {path.stat().st_size}\n".encode())
    digest.update(SNAPSHOT_SCRIPT.read_bytes())
    digest.update(wheel.data)
    return digest.hexdigest()


@dataclass
class MemorySnapshot:
    """One snapshot: found in the cache, or being made by Node. `start` returns at once;
    `data()` waits for Node if it still runs."""

    key: str
    cached: Path
    process: subprocess.Popen[bytes] | None = None
    work: Path | None = None  # Node's scratch folder, removed when it ends
    made: bool = False  # True when this build made it (the cache had none)
    keep: bool = True  # False when the cache folder cannot be written
    # Read at once on a cache hit: a parallel build's pruning cannot take it away later.
    content: bytes | None = field(default=None, repr=False)

    @property
    def file_name(self) -> str:
        return f"pyodide-model-{self.key[:16]}.snapshot"

    @classmethod
    def start(
        cls, runtime: PyodideRuntime, wheel: BuiltWheel, cache: Path | None = None
    ) -> MemorySnapshot:
        key = snapshot_key(runtime, wheel)
        folder = cache or cache_folder("snapshots")
        found = cls(key=key, cached=folder / f"{key}.snapshot")
        found.content = read_entry(found.cached)
        if found.content is not None:
            return found
        node = shutil.which("node")
        if node is None:
            raise CourseError.at(
                SNAPSHOT_SCRIPT,
                None,
                "Node.js is needed to make the duty widget's memory snapshot, and `node` is not "
                "on PATH.",
                f"Run scripts/setup (it installs Node.js), {OFF_FIX}",
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
            found.work = Path(tempfile.mkdtemp(prefix=".making-", dir=folder))
        except OSError:
            # A cache that cannot be written (a read-only home, say) only costs time: make it
            # in a scratch folder and keep nothing.
            found.keep = False
            found.work = Path(tempfile.mkdtemp(prefix="trafikist-snapshot-"))
        wheel_path = wheel.write(found.work)
        found.process = subprocess.Popen(
            [node, str(SNAPSHOT_SCRIPT), str(runtime.folder), str(wheel_path), str(found._out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        return found

    @property
    def _out(self) -> Path:
        assert self.work is not None
        return self.work / "snapshot.gz"

    def data(self) -> bytes:
        """The gzipped snapshot. Raises CourseError (with the fix) if Node failed."""
        if self.content is None:
            self._finish()
        assert self.content is not None
        return self.content

    def cancel(self) -> None:
        """Stop Node and drop its scratch folder (the build failed before needing it)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None
        self._clean()

    def _finish(self) -> None:
        if self.process is None:
            raise CourseError.at(
                SNAPSHOT_SCRIPT, None, "the memory snapshot was cancelled.", "Build again."
            )
        try:
            _, stderr = self.process.communicate(timeout=NODE_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.cancel()
            raise CourseError.at(
                SNAPSHOT_SCRIPT,
                None,
                f"making the duty widget's memory snapshot took over {NODE_TIMEOUT} s.",
                f"Check that `node {SNAPSHOT_SCRIPT.name}` runs on this machine, {OFF_FIX}",
            ) from None
        status, self.process = self.process.returncode, None
        try:
            if status != 0 or not self._out.is_file():
                why = stderr.decode(errors="replace").strip().splitlines()
                raise CourseError.at(
                    SNAPSHOT_SCRIPT,
                    None,
                    "making the duty widget's memory snapshot failed in Node: "
                    f"{why[-1] if why else f'exit status {status}'}.",
                    f"Run scripts/setup to reinstall Pyodide and Node.js, {OFF_FIX}",
                )
            self.content = self._out.read_bytes()
            self.made = True
            if self.keep:
                write_entry(self.cached, self.content)  # sealed with its hash, whole or not
        finally:
            self._clean()
        if self.keep:
            _prune(self.cached.parent)

    def _clean(self) -> None:
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None


def _prune(folder: Path) -> None:
    """Keep the CACHE_KEEP most recently used snapshots (each is about 7 MB), and drop the
    scratch folders of builds that were stopped while Node ran (over an hour old)."""
    prune(folder, "*.snapshot", CACHE_KEEP)
    an_hour_ago = time.time() - 3600
    for scratch in folder.glob(".making-*"):
        with contextlib.suppress(OSError):
            if scratch.stat().st_mtime < an_hour_ago:
                shutil.rmtree(scratch, ignore_errors=True)
