"""The plugin's typed options (mkdocs.yml: plugins: - trafikist: …). What each means, and its
default, is in trafikist.core.options, which the Zensical adapter reads too."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config

from trafikist.core.options import DEFAULTS


# MkDocs' Config.__init_subclass__ has no annotations: mypy calls it untyped.
class TrafikistConfig(Config):  # type: ignore[no-untyped-call]
    modules_dir = c.Type(str, default=DEFAULTS.modules_dir)
    widgets_dir = c.Type(str, default=DEFAULTS.widgets_dir)
    registry = c.Optional(c.Type(str))
    assets_path = c.Type(str, default=DEFAULTS.assets_path)
    node_modules = c.Type(str, default=DEFAULTS.node_modules)
    pyodide_url = c.Type(str, default=DEFAULTS.pyodide_url)
    memory_snapshot = c.Type(bool, default=DEFAULTS.memory_snapshot)
    run_time_limit = c.Type(int, default=DEFAULTS.run_time_limit)
    authors_pages = c.Type(bool, default=DEFAULTS.authors_pages)
