"""The plugin's typed options (mkdocs.yml: plugins: - trafikist: …)."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config


class TrafikistConfig(Config):
    # Folder of the course sources, relative to mkdocs.yml.
    modules_dir = c.Type(str, default="modules")
    # Folder of the browser parts (widget scripts and styles), relative to mkdocs.yml.
    widgets_dir = c.Type(str, default="widgets")
    # trafikey's registry: a snapshot folder or a trafikey checkout (its src/ is read).
    # The environment variable TRAFIKIST_REGISTRY overrides it; the default is ./registry.
    registry = c.Optional(c.Type(str))
    # Where the site's stylesheets and scripts are written.
    assets_path = c.Type(str, default="assets/trafikist")
    # The duty widget: where Pyodide's npm package is installed (relative to mkdocs.yml); its
    # runtime files are copied into the site unless pyodide_url names another place to load
    # Pyodide from (a URL ending in '/', holding the same Pyodide version's pyodide.mjs).
    node_modules = c.Type(str, default="node_modules")
    pyodide_url = c.Type(str, default="")
    # Restore Pyodide from a memory snapshot with the model imported: the first Run draws about
    # three times sooner. Made with Node at build time and cached (trafikist.widget.snapshot);
    # only with the site's own Pyodide (not with pyodide_url).
    memory_snapshot = c.Type(bool, default=True)
    # Seconds a live run may take in the page before the page stops it and says so.
    run_time_limit = c.Type(int, default=10)
