"""The build's options, as `mkdocs.yml` sets them under `plugins: - trafikist:`.

Both engines read the same block: MkDocs validates it as the plugin's config
(trafikist.mkdocs_plugin.config), and the Zensical adapter, whose engine ignores MkDocs plugins,
reads it from the file (`from_mapping`). The defaults live here once.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from trafikist.base.errors import CourseError


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
    # Seconds a live run may take in the page before the page stops it and says so.
    run_time_limit: int = 10

    @classmethod
    def from_mapping(cls, values: dict[str, Any] | None, source: Path) -> BuildOptions:
        """The options of a `- trafikist:` block read from `source`, checked as MkDocs checks
        them: a known name, and a value of the default's type."""
        values = values or {}
        known = {option.name: option for option in fields(cls)}
        for name, value in values.items():
            if name not in known:
                raise CourseError.at(
                    source,
                    None,
                    f"the trafikist plugin has no option '{name}'.",
                    f"Use one of: {', '.join(known)}.",
                )
            default = getattr(cls, name)
            expected = str if default is None else type(default)
            if value is not None and not isinstance(value, expected):
                raise CourseError.at(
                    source,
                    None,
                    f"the trafikist option '{name}' must be a {expected.__name__}, not {value!r}.",
                    f"Write a {expected.__name__}, as the default {default!r} is.",
                )
        return cls(**values)


DEFAULTS = BuildOptions()
