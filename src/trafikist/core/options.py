"""The build's options, as `mkdocs.yml` sets them under `plugins: - trafikist:`.

Both engines read the same block: MkDocs validates it as the plugin's config
(trafikist.mkdocs_plugin.config), and the Zensical adapter, whose engine ignores MkDocs plugins,
reads it from the file (`from_mapping`). The defaults live here once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from trafikist.base.errors import CourseError

# Seconds `run_time_limit` may be: a Run or a console command needs at least one, and a page
# that waits ten minutes has stopped telling the reader anything (the page's timer could not
# wait much longer anyway: setTimeout fires at once past 2^31 - 1 ms, about 24.8 days).
RUN_TIME_LIMIT_RANGE = (1, 600)


@dataclass(frozen=True)
class BuildOptions:
    # Folder of the course sources, relative to mkdocs.yml.
    modules_dir: str = "modules"
    # Folder of the browser parts (widget scripts and styles), relative to mkdocs.yml.
    widgets_dir: str = "widgets"
    # trafikey's registry: a snapshot folder or a trafikey checkout (its src/ is read).
    # The environment variable TRAFIKIST_REGISTRY overrides it; the default is ./registry.
    registry: str | None = None
    # Where the site's stylesheets and scripts are written.
    assets_path: str = "assets/trafikist"
    # The duty widget: where Pyodide's npm package is installed (relative to mkdocs.yml); its
    # runtime files are copied into the site unless pyodide_url names another place to load
    # Pyodide from (a URL ending in '/', holding the same Pyodide version's pyodide.mjs).
    node_modules: str = "node_modules"
    pyodide_url: str = ""
    # Restore Pyodide from a memory snapshot with the model imported: the first Run draws about
    # three times sooner. Made with Node at build time and cached (trafikist.core.widget.snapshot);
    # only with the site's own Pyodide (not with pyodide_url).
    memory_snapshot: bool = True
    # Seconds a live run (or a console command) may take in the page before the page stops it
    # and says so: a whole number in RUN_TIME_LIMIT_RANGE.
    run_time_limit: int = 10
    # Build the authors' and developers' pages of docs/ into the site, under authors/, out of
    # the navigation and the search index. The preview always serves them; a build for
    # readers leaves them out.
    authors_pages: bool = False

    @classmethod
    def from_mapping(cls, values: dict[str, Any] | None, source: Path) -> BuildOptions:
        """The options of a `- trafikist:` block read from `source`, checked as MkDocs checks
        them: a known name, and a value of the default's type."""
        values = values or {}
        cls.check_types(values, source)
        options = cls(**values)
        check_assets_path(options.assets_path, source)
        return options

    @classmethod
    def check_types(cls, values: dict[str, Any], source: Path) -> None:
        """Each option of `values` is one the plugin has, with a value of its default's type;
        CourseError at its line of `source` otherwise (MkDocs' plugin runs it before MkDocs
        validates the options, whose message names no line and no fix)."""
        known = {option.name: option for option in fields(cls)}
        for name, value in values.items():
            if name not in known:
                raise CourseError.at(
                    source,
                    option_line(source, name),
                    f"the trafikist plugin has no option '{name}'.",
                    f"Use one of: {', '.join(known)}.",
                )
            default = getattr(cls, name)
            expected = str if default is None else type(default)
            if value is not None and not isinstance(value, expected):
                raise CourseError.at(
                    source,
                    option_line(source, name),
                    f"the trafikist option '{name}' must be a {expected.__name__}, not {value!r}.",
                    f"Write a {expected.__name__}, as the default {default!r} is.",
                )

    def check(self, source: Path) -> None:
        """Raise CourseError, at the option's line of `source` (the mkdocs.yml that sets it),
        for a value of the right type that the site cannot use. Both engines check the types
        only (MkDocs as the plugin's config, the Zensical adapter in `from_mapping`); the duty
        widget's build calls this, under either engine, before it bakes a run."""
        limit = self.run_time_limit
        low, high = RUN_TIME_LIMIT_RANGE
        number = isinstance(limit, int) and not isinstance(limit, bool)
        if not number or not low <= limit <= high:
            why = f"outside {low}–{high} seconds" if number else "not a number of seconds"
            raise CourseError.at(
                source,
                option_line(source, "run_time_limit"),
                f"the trafikist option 'run_time_limit' is {limit!r}, {why}: the page could not "
                "keep that time limit for a Run",
                f"Set 'run_time_limit:' under '- trafikist:' to a whole number of seconds from "
                f"{low} to {high}, or remove it for the default {BuildOptions.run_time_limit}.",
            )


# One folder name of `assets_path`: what a URL path and every file system take as it is.
ASSETS_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")


def check_assets_path(value: object, source: Path) -> None:
    """Raise CourseError, at the option's line of `source`, unless `assets_path` is a relative
    folder inside the site (`assets/trafikist`): the site's scripts, styles and the duty
    widget's files are written there, and `..`, an absolute path or a backslash would put them
    outside the site folder. Both engines call it before anything is written (MkDocs' plugin
    as it reads its options, the Zensical adapter in `from_mapping`)."""
    text = value if isinstance(value, str) else ""
    parts = text.split("/")
    if not text.strip():
        why = "empty"
    elif "\\" in text:
        why = "a path with a backslash"
    elif text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        why = "an absolute path"
    elif ".." in parts:
        why = "a path that climbs out with '..'"
    elif not all(ASSETS_PART.match(part) for part in parts):
        why = "not a plain relative folder (letters, digits, '.', '_' and '-', parted by '/')"
    else:
        return
    raise CourseError.at(
        source,
        option_line(source, "assets_path"),
        f"the trafikist option 'assets_path' is {value!r}, {why}: the site's scripts and "
        "styles must be written inside the site folder",
        f"Set 'assets_path:' under '- trafikist:' to a relative folder such as "
        f"'{BuildOptions.assets_path}' (the default), or remove it.",
    )


def option_line(source: Path, name: str) -> int | None:
    """The line of `source` that sets the option `name` (`  name: …`), if there is one."""
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError:
        return None
    pattern = re.compile(rf"^\s+{re.escape(name)}\s*:")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


DEFAULTS = BuildOptions()
