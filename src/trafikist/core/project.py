"""The project as a build reads it: mkdocs.yml's settings (its folders, `use_directory_urls`,
`strict`, the site folder and who named it) and the trafikist plugin's options. The Zensical
adapter builds from it, and so do the tests' in-process builds (support.building); MkDocs reads
mkdocs.yml itself.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from trafikist.base.errors import CourseError
from trafikist.base.reading import reading
from trafikist.core.config import ConfigFile, check_config, read_config
from trafikist.core.options import BuildOptions
from trafikist.core.sitedir import SiteDirChoice, course_reads
from trafikist.course.markdown.without_plugin import COURSE_FILE, missing_plugin
from trafikist.registry import resolve_registry_path

__all__ = ["Project", "read_project"]


@dataclass(frozen=True)
class Project:
    """What the adapter reads of mkdocs.yml."""

    config_file: Path
    base_dir: Path
    docs_dir: Path
    site_dir: Path  # absolute, links kept (a link is refused, not followed)
    custom_dir: Path | None
    directory_urls: bool
    strict: bool
    options: BuildOptions
    site_dir_line: int | None = None  # of `site_dir:` in mkdocs.yml
    site_dir_from_command_line: bool = False  # `-d DIR`

    def site_dir_choice(self, path: Path | None = None) -> SiteDirChoice:
        """Who named the site folder (`path`, default the project's), for its messages."""
        path = self.site_dir if path is None else Path(os.path.abspath(path))
        return SiteDirChoice(
            path,
            self.config_file,
            self.site_dir_line,
            from_command_line=self.site_dir_from_command_line,
        )

    def reads(self) -> list[Path]:
        """What the build reads: the folders no site folder may be, hold or lie in."""
        registry = None
        with contextlib.suppress(CourseError):  # a missing registry is the build's to report
            registry = resolve_registry_path(self.options.registry, self.base_dir)
        return course_reads(
            self.base_dir,
            self.options,
            config_file=self.config_file,
            docs_dir=self.docs_dir,
            custom_dir=self.custom_dir,
            registry=registry,
        )


def read_project(config_file: Path, site_dir: Path | None = None) -> Project:
    """mkdocs.yml's settings and the trafikist plugin's options; raises CourseError. `site_dir`
    is the command line's `-d`."""
    config_file = Path(config_file).resolve()
    with reading(config_file):
        return _read_project(read_config(config_file), site_dir)


def _read_project(config: ConfigFile, site_dir: Path | None) -> Project:
    config_file = config.path
    if config.data.get("nav"):
        raise CourseError.at(
            config_file,
            config.line("nav"),
            "mkdocs.yml has a nav:, which Zensical would merge into the course's own.",
            "Remove it: the course derives the navigation from modules/.",
        )
    base = config.base_dir
    if config.plugin_entry() is None and (base / COURSE_FILE).is_file():
        raise CourseError(missing_plugin(config_file, config.line("plugins")))
    check_config(config)
    data = config.data
    theme = data.get("theme") or {}
    custom = theme.get("custom_dir") if isinstance(theme, dict) else None
    return Project(
        config_file=config_file,
        base_dir=base,
        docs_dir=(base / data.get("docs_dir", "docs")).resolve(),
        site_dir=Path(os.path.abspath(site_dir)) if site_dir else config.site_dir(),
        custom_dir=(base / custom).resolve() if custom else None,
        directory_urls=bool(data.get("use_directory_urls", True)),
        strict=bool(data.get("strict", False)),
        options=BuildOptions.from_mapping(config.plugin_options(), config_file),
        site_dir_line=None if site_dir else config.line("site_dir"),
        site_dir_from_command_line=bool(site_dir),
    )
