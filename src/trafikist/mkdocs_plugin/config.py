"""The plugin's typed options (mkdocs.yml: plugins: - trafikist: …)."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config


class TrafikistConfig(Config):
    # Folder of the course sources, relative to mkdocs.yml.
    modules_dir = c.Type(str, default="modules")
    # Folder of the browser parts (widget scripts and styles), relative to mkdocs.yml.
    widgets_dir = c.Type(str, default="widgets")
    # Where the site's stylesheets and scripts are written.
    assets_path = c.Type(str, default="assets/trafikist")
