"""Which folder a build may write its site into, and which folders it may delete.

The build deletes or replaces only a folder it made itself. Every folder it makes (the
staging folder that becomes the site, Zensical's work folder) carries the marker file
`.trafikist-site` from the moment it is made, and the build that made it holds a lock on that
file while it runs (`Claim`), so a later build can tell a folder a killed build left (the
lock is free) from one a running build is writing (the lock is held).

Before anything is touched, the site folder an author names (`-d DIR`, or `site_dir:` in
mkdocs.yml) is refused (`check_site_dir`), with one line and exit 1, when it:
- is a symbolic link (the swap would replace the link, not what it points at);
- is the project's folder, or contains it;
- is, contains or lies inside a folder the build reads (docs/, modules/, registry/, widgets/,
  overrides/, node_modules/, src/, tests/, scripts/, .git, each as mkdocs.yml sets it);
- is a file, or lies under one;
- is a folder that holds something and was not made by the build: no marker, and not a site
  an older build made (`legacy_site`: index.html, 404.html or sitemap.xml, and the assets
  folder, with no mkdocs.yml, .git or pyproject.toml), which the next build replaces once and
  marks.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import CourseError, Problem, display_path
from trafikist.core.options import BuildOptions

MARKER = ".trafikist-site"
MARKER_TEXT = (
    "This folder was made by the Trafikist course build (trafikist build, or mkdocs build\n"
    "with the trafikist plugin). The next build replaces it whole: keep nothing else here.\n"
    "See docs/authoring.md, section 'The site folder'.\n"
)
# The folders of the project the build reads, besides those mkdocs.yml names.
SOURCE_FOLDERS: tuple[str, ...] = ("docs", "modules", "registry", "widgets", "overrides")
SOURCE_FOLDERS += ("src", "tests", "scripts", ".git", "node_modules")
# What a site never holds at its top: a project's own files.
PROJECT_FILES = ("mkdocs.yml", ".git", "pyproject.toml")
DEFAULT_ASSETS = "assets/trafikist"


@dataclass(frozen=True)
class CommandLineProblem(Problem):
    """A problem with a command-line argument: its location is the argument (`-d DIR`)."""

    def location(self) -> str:
        return str(self.file)


@dataclass(frozen=True)
class SiteDirChoice:
    """The site folder a build was asked to write, and who asked: `-d DIR` on the command
    line, or `site_dir:` (or its default) in the configuration file."""

    path: Path  # absolute, links kept
    config_file: Path
    line: int | None = None  # of `site_dir:`, when the configuration names the folder
    from_command_line: bool = False

    def refuse(self, what: str, fix: str | None = None) -> CourseError:
        if self.from_command_line:
            where, default_fix = (
                f"-d {display_path(self.path)}",
                (
                    "Name a new or empty folder outside the sources with -d (the default, site/, "
                    "is one); nothing was changed."
                ),
            )
        else:
            where, default_fix = (
                str(self.config_file),
                (
                    "Set 'site_dir:' in mkdocs.yml to a new or empty folder outside the sources "
                    "(or remove it for the default, site/); nothing was changed."
                ),
            )
        if self.from_command_line:
            return CourseError(CommandLineProblem(where, None, what, fix or default_fix))
        return CourseError(Problem(where, self.line, what, fix or default_fix))


def read_paths(
    base_dir: Path,
    *,
    config_file: Path,
    folders: Iterable[Path | str | None] = (),
) -> list[Path]:
    """What the build reads: the configuration, the folders it names (`folders`, relative to
    `base_dir` or absolute) and the project's source folders; resolved, each once."""
    base = Path(base_dir)
    paths = [Path(config_file), *(base / folder for folder in folders if folder)]
    paths += [base / name for name in SOURCE_FOLDERS]
    return list(dict.fromkeys(path.resolve() for path in paths))


def check_site_dir(
    choice: SiteDirChoice,
    reads: Iterable[Path],
    *,
    assets_path: str = DEFAULT_ASSETS,
    writes: bool = True,
) -> None:
    """Refuse, with one CourseError line, a site folder the build must not write (see the
    module's docstring); `writes=False` (a preview, which builds elsewhere) refuses only what
    would destroy a source."""
    given = choice.path
    # The command line's message starts with the folder (`-d DIR:`); mkdocs.yml's names it.
    folder = "the site folder" + ("" if choice.from_command_line else f" {display_path(given)}")
    if given.is_symlink():
        raise choice.refuse(
            f"{folder} is a symbolic link (to {os.readlink(given)}): the build would replace "
            "the link with a new folder, or write where it points"
        )
    real = given.resolve()
    project = Path(choice.config_file).resolve().parent
    whole = "and a build replaces its site folder whole"
    if real == project:
        raise choice.refuse(
            f"{folder} is the project's own folder (mkdocs.yml, the sources, .git), {whole}"
        )
    if project.is_relative_to(real):
        raise choice.refuse(f"{folder} contains the project's folder {project}, {whole}")
    for source in reads:
        if not source.exists():
            continue
        if real == source:
            how = "is"
        elif source.is_relative_to(real):
            how = "contains"
        elif real.is_relative_to(source):
            how = "lies inside"
        else:
            continue
        raise choice.refuse(
            f"{folder} {how} {display_path(source)}, one of the project's sources, {whole}"
        )
    if not writes:
        return
    above = next((path for path in [real, *real.parents] if path.exists()), None)
    if above is not None and not above.is_dir():
        what = "is a file" if above == real else f"lies under the file {display_path(above)}"
        raise choice.refuse(f"{folder} {what}, not a folder")
    if real.is_dir() and any(real.iterdir()) and not made_by_build(real, assets_path):
        count = sum(1 for _ in real.iterdir())
        raise choice.refuse(
            f"{folder} holds {count} entr{'y' if count == 1 else 'ies'} and was not made by the "
            f"build (it has no {MARKER} marker), {whole}",
            f"Name a new or empty folder{' with -d' if choice.from_command_line else ''}, or "
            f"delete {display_path(given)} yourself if nothing in it is needed; nothing was "
            "changed.",
        )


def made_by_build(folder: Path, assets_path: str = DEFAULT_ASSETS) -> bool:
    """True for a folder a build made: it carries the marker, or it is a site an older build
    made, before the marker (`legacy_site`)."""
    return (folder / MARKER).is_file() or legacy_site(folder, assets_path)


def legacy_site(folder: Path, assets_path: str = DEFAULT_ASSETS) -> bool:
    """A site built before the marker: its home page, 404 page or sitemap, and the course's
    assets folder, and none of a project's own files."""
    if any((folder / name).exists() for name in PROJECT_FILES):
        return False
    pages = any((folder / name).is_file() for name in ("index.html", "404.html", "sitemap.xml"))
    return pages and (folder / assets_path).is_dir()


# -- the folders a build makes: marked and locked while it runs -------------------------------


class Claim:
    """The marker of a folder this build made, locked while the build runs: a killed build's
    lock goes with its process, so the next build knows the folder is a leftover."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        descriptor = os.open(folder / MARKER, os.O_RDWR | os.O_CREAT, 0o644)
        os.write(descriptor, MARKER_TEXT.encode())
        os.ftruncate(descriptor, len(MARKER_TEXT.encode()))
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.descriptor: int | None = descriptor

    def release(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)  # closing releases the lock
            self.descriptor = None


def in_use(folder: Path) -> bool:
    """True while a running build holds the lock on `folder`'s marker."""
    try:
        descriptor = os.open(folder / MARKER, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(descriptor)  # releases the probe's lock, if it took one
    return False


def remove_leftovers(final: Path, assets_path: str = DEFAULT_ASSETS) -> list[Path]:
    """Remove what killed builds left beside the site folder `final`: staging folders,
    replaced sites and Zensical work folders that carry an unlocked marker, or that an
    older build made (by name and contents). Returns what was removed."""
    parent = final.parent
    if not parent.is_dir():
        return []
    staging = re.compile(rf"^\.{re.escape(final.name)}-(building|previous)-?[a-z0-9_]*$")
    removed = []
    for entry in sorted(parent.iterdir()):
        kind = "zensical" if re.match(r"^\.zensical-[a-z0-9_]{8}$", entry.name) else None
        kind = kind or ("site" if staging.match(entry.name) else None)
        if kind is None or entry.is_symlink() or not entry.is_dir():
            continue
        if (entry / MARKER).is_file():
            if in_use(entry):
                continue
        elif not _older_leftover(entry, kind, assets_path):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def _older_leftover(folder: Path, kind: str, assets_path: str) -> bool:
    """A leftover of a build from before the marker: an empty staging folder or a (partial)
    site; a Zensical work folder, whose configuration inherits the project's."""
    names = {entry.name for entry in folder.iterdir()}
    if kind == "zensical":
        config = folder / "mkdocs.yml"
        with contextlib.suppress(OSError, UnicodeDecodeError):
            inherits = config.read_text(encoding="utf-8").startswith("INHERIT:")
            others = names - {"mkdocs.yml", "docs", "site", ".cache", "empty"}
            return inherits and all(name.startswith("served-") for name in others)
        return False
    if not names:
        return True
    if any(name in names for name in PROJECT_FILES):
        return False
    return "index.html" in names or (folder / assets_path).is_dir()


def course_reads(
    base_dir: Path,
    options: BuildOptions,
    *,
    config_file: Path,
    docs_dir: Path | str | None,
    custom_dir: Path | str | None,
    registry: Path | None,
) -> list[Path]:
    """What a build of the course reads (`read_paths`), with the folders its options name:
    docs_dir, the theme's custom_dir, modules_dir, widgets_dir, node_modules, and the registry
    (`registry`, as trafikist.registry.resolve_registry_path finds it)."""
    folders = [docs_dir, custom_dir, options.modules_dir, options.widgets_dir]
    folders += [options.node_modules, registry]
    return read_paths(base_dir, config_file=config_file, folders=folders)
