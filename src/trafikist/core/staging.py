"""A build writes into a staging folder beside the site folder and swaps it in only when every
step succeeded, so a failed build leaves the last good site exactly as it was."""

from __future__ import annotations

import errno
import shutil
import tempfile
from pathlib import Path


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
