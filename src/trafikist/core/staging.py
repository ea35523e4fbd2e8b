"""A build writes into a staging folder beside the site folder and swaps it in only when every
step succeeded, so a failed or interrupted build leaves the last good site exactly as it was.

The staging folder carries the site folder's marker from the moment it is made, locked while
the build runs (trafikist.core.sitedir.Claim): the swap replaces only a site folder the build
made, and the next build removes what a killed one left (`remove_leftovers`). The swap itself
runs with SIGINT and SIGTERM held back (`interrupts_deferred`), so an interrupt never leaves
the site folder missing.

The published site is world-readable whatever the engine and the umask: folders 0755, files
0644 (`mkdtemp` makes a private 0700 folder, and a web server running as another user would
answer 403 on every page). The staging folder gets its mode when it is made; what the engine
wrote into it gets its own before the swap (`publish_modes`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

from trafikist.base.errors import CourseError, display_path
from trafikist.core.sitedir import DEFAULT_ASSETS, MARKER, Claim, made_by_build, remove_leftovers

FOLDER_MODE = 0o755
FILE_MODE = 0o644
INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


class SiteStaging:
    """One build's staging folder for the site folder `final`."""

    def __init__(self, final: Path, assets_path: str = DEFAULT_ASSETS) -> None:
        self.final = Path(os.path.abspath(final))
        self.assets_path = assets_path
        self.folder: Path | None = None
        self.claim: Claim | None = None

    def begin(self) -> Path:
        """A fresh, empty, marked folder beside the site folder (same file system: the swap
        renames); what killed builds left there goes first."""
        self._prepare()
        self.folder = Path(self._reserve("building"))
        self.folder.chmod(FOLDER_MODE)  # mkdtemp's is 0700: no web server could read it
        self.claim = Claim(self.folder)
        return self.folder

    def adopt(self, built: Path) -> Path:
        """Begin with a folder an engine built elsewhere: it is marked, and moved beside the
        site folder."""
        self._prepare()
        self.claim = Claim(built)
        folder = self._reserve("building")
        folder.rmdir()
        try:
            built.rename(folder)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            self.claim.release()
            shutil.copytree(built, folder, symlinks=True)
            shutil.rmtree(built, ignore_errors=True)
            self.claim = Claim(folder)
        self.folder = folder
        return folder

    def commit(self) -> None:
        """Put the staged site in place of the last one, which must be the build's own."""
        if self.folder is None:
            return
        publish_modes(self.folder)
        previous = None
        with interrupts_deferred():
            self._check_replaceable()
            if self.final.exists():
                previous = self._reserve("previous")
                previous.rmdir()
                self.final.rename(previous)
            self.folder.rename(self.final)
            self.folder = None
        if previous is not None:
            shutil.rmtree(previous, ignore_errors=True)
        self._release()

    def discard(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        self._release()

    def _prepare(self) -> None:
        """The site folder's parent exists and can be written; killed builds' leftovers go."""
        try:
            self.final.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise self._cannot_write(error) from None
        remove_leftovers(self.final, self.assets_path)

    def _reserve(self, kind: str) -> Path:
        try:
            prefix = f".{self.final.name}-{kind}-"
            return Path(tempfile.mkdtemp(prefix=prefix, dir=self.final.parent))
        except OSError as error:
            raise self._cannot_write(error) from None

    def _cannot_write(self, error: OSError) -> CourseError:
        folder = self.final.parent
        return CourseError.at(
            self.final,
            None,
            f"the site folder cannot be written: {display_path(folder)} "
            f"({error.strerror or error})",
            "Make that folder writable (or free space on its disk), or name another site "
            "folder with -d; the last site is unchanged.",
        )

    def _check_replaceable(self) -> None:
        """The last check before the swap: the site folder is still one the build may
        replace (it was checked before the build; something may have put a folder there)."""
        final = self.final
        if final.is_symlink() or (final.exists() and not final.is_dir()):
            what = "a symbolic link" if final.is_symlink() else "a file"
        elif final.is_dir() and any(final.iterdir()) and not made_by_build(final, self.assets_path):
            what = f"a folder the build did not make (no {MARKER})"
        else:
            return
        raise CourseError.at(
            final,
            None,
            f"the site folder became {what} while the site was built; it was left as it is",
            "Remove it or name another site folder with -d, then build again.",
        )

    def _release(self) -> None:
        if self.claim is not None:
            self.claim.release()
            self.claim = None


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM are noted, not acted on, inside the block; the first one noted is
    raised again as it ends. For the steps an interrupt must not cut in half (the swap), and
    for an engine that ends the process on an interrupt of its own (Zensical exits 0 on
    Ctrl-C). Only the main thread can set handlers: elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        noted.append(signum)

    before = {number: signal.signal(number, note) for number in INTERRUPTS}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        if noted:
            signal.raise_signal(noted[0])  # now, to the handler the process had


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt so that every step cleans up as it does on Ctrl-C."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def terminate_as_interrupt() -> Callable[[], None]:
    """SIGTERM interrupts the build as Ctrl-C does (its default ends the process at once,
    leaving the staging folder behind). Main thread only. Returns what puts the handler the
    process had back (a command run in-process, by the tests, leaves the process as it was)."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    before = signal.signal(signal.SIGTERM, _terminate)

    def restore() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)

    return restore


def publish_modes(folder: Path) -> None:
    """Folders 0755 and files 0644 under `folder` (itself included), as a web server running as
    another user reads them; links are left as they are. Only what differs is changed."""
    _set_mode(str(folder), FOLDER_MODE)
    for root, folders, files in os.walk(folder):
        for name in folders:
            _set_mode(os.path.join(root, name), FOLDER_MODE)
        for name in files:
            _set_mode(os.path.join(root, name), FILE_MODE)


def _set_mode(path: str, wanted: int) -> None:
    mode = os.lstat(path).st_mode
    if not stat.S_ISLNK(mode) and stat.S_IMODE(mode) != wanted:
        os.chmod(path, wanted)
