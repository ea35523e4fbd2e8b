"""A build writes into a staging folder beside the site folder and swaps it in only when every
step succeeded, so a failed build leaves the last good site exactly as it was.

The published site is world-readable whatever the engine and the umask: folders 0755, files
0644 (`mkdtemp` makes a private 0700 folder, and a web server running as another user would
answer 403 on every page). The staging folder gets its mode when it is made; what the engine
wrote into it gets its own before the swap (`publish_modes`).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from pathlib import Path

FOLDER_MODE = 0o755
FILE_MODE = 0o644


class SiteStaging:
    """One build's staging folder for the site folder `final`."""

    def __init__(self, final: Path) -> None:
        self.final = Path(final)
        self.folder: Path | None = None

    def begin(self) -> Path:
        """A fresh, empty folder beside the site folder (same file system: the swap renames)."""
        self.final.parent.mkdir(parents=True, exist_ok=True)
        self.folder = Path(
            tempfile.mkdtemp(prefix=f".{self.final.name}-building-", dir=self.final.parent)
        )
        self.folder.chmod(FOLDER_MODE)  # mkdtemp's is 0700: no web server could read it
        return self.folder

    def adopt(self, built: Path) -> Path:
        """Begin with a folder an engine built elsewhere: it is moved beside the site folder."""
        folder = self.begin()
        folder.rmdir()
        try:
            built.rename(folder)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            shutil.copytree(built, folder, symlinks=True)
            shutil.rmtree(built, ignore_errors=True)
        return folder

    def commit(self) -> None:
        """Put the staged site in place of the last one."""
        if self.folder is None:
            return
        publish_modes(self.folder)
        previous = self.final.with_name(f".{self.final.name}-previous")
        if previous.exists():
            shutil.rmtree(previous)
        if self.final.exists():
            self.final.rename(previous)
        self.folder.rename(self.final)
        shutil.rmtree(previous, ignore_errors=True)
        self.folder = None

    def discard(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


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
