"""mkdocs.yml as both adapters read it: its plain settings, and the line of each key, so that a
message about a setting names `mkdocs.yml:LINE`.

Tags (`!ENV`, `!!python/name:…`) are the engine's to resolve when it reads the file itself;
here they read as None. Only what the course needs is read: the site folder, the folders the
build reads, the theme, the Markdown extensions and the `trafikist` plugin's block.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from trafikist.base.errors import CourseError

PLUGIN = "trafikist"


class TolerantLoader(yaml.SafeLoader):
    """Reads mkdocs.yml for its plain settings; tags are the engine's to resolve."""


TolerantLoader.add_multi_constructor("", lambda loader, suffix, node: None)

# A key path: ("plugins", 0, "trafikist", "modules_dir"); a list item by its index.
KeyPath = tuple[str | int, ...]


@dataclass(frozen=True)
class ConfigFile:
    """One mkdocs.yml: its settings, and the line where each key (or list item) starts."""

    path: Path
    data: dict[str, Any]
    lines: dict[KeyPath, int] = field(default_factory=dict)

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def line(self, *keys: str | int) -> int | None:
        """The line of a key (`line("theme", "name")`), or of its nearest parent that is set."""
        while keys:
            if keys in self.lines:
                return self.lines[keys]
            keys = keys[:-1]
        return None

    def plugin_entry(self) -> tuple[KeyPath, Any] | None:
        """Where `- trafikist` sits in `plugins:` (a list or a mapping), and its options;
        None when the plugin is not listed."""
        plugins = self.data.get("plugins")
        if isinstance(plugins, dict):
            return (("plugins", PLUGIN), plugins[PLUGIN]) if PLUGIN in plugins else None
        for index, entry in enumerate(plugins if isinstance(plugins, list) else []):
            if entry == PLUGIN:
                return ("plugins", index), None
            if isinstance(entry, dict) and PLUGIN in entry:
                return ("plugins", index, PLUGIN), entry[PLUGIN]
        return None

    def plugin_options(self) -> Any:
        """The `- trafikist:` block's options (None when it has none, or is missing)."""
        entry = self.plugin_entry()
        return entry[1] if entry is not None else None

    def option_line(self, name: str) -> int | None:
        """The line of the plugin's option `name`, or of the plugin's entry."""
        entry = self.plugin_entry()
        if entry is None:
            return self.line("plugins")
        return self.line(*entry[0], name)

    def site_dir(self) -> Path:
        """The site folder mkdocs.yml names (default `site`), absolute, links kept."""
        value = self.data.get("site_dir")
        return _absolute(self.base_dir / (value if isinstance(value, str) and value else "site"))


def _absolute(path: Path) -> Path:
    """An absolute path with `.` and `..` folded but links kept (not `resolve`)."""
    return Path(os.path.abspath(path))


def read_config(path: Path) -> ConfigFile:
    """mkdocs.yml's settings and key lines; CourseError at the line YAML stops at."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=TolerantLoader)
        data = yaml.load(text, Loader=TolerantLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        mark = getattr(error, "problem_mark", None)
        what = error.strerror if isinstance(error, OSError) else str(error)
        raise CourseError.at(
            path,
            mark.line + 1 if mark is not None else None,
            f"cannot read the configuration: {what}".replace("\n", " "),
            "Correct the YAML, or name another file with -f.",
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CourseError.at(
            path,
            1,
            f"the configuration is a {type(data).__name__}, not a mapping of settings",
            "Write mkdocs.yml as 'key: value' lines (site_name:, theme:, plugins: …).",
        )
    lines: dict[KeyPath, int] = {}
    _key_lines(node, (), lines)
    return ConfigFile(path, data, lines)


def _key_lines(node: yaml.Node | None, at: KeyPath, lines: dict[KeyPath, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                path = (*at, key.value)
                lines.setdefault(path, key.start_mark.line + 1)
                _key_lines(value, path, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            path = (*at, index)
            lines.setdefault(path, item.start_mark.line + 1)
            _key_lines(item, path, lines)


# The Markdown extensions the course's pages are written for: without one, a page builds with
# its blocks, attribute lists or fences printed as text.
REQUIRED_EXTENSIONS = (
    "attr_list",
    "md_in_html",
    "toc",
    "pymdownx.superfences",
    "trafikist.course.markdown.blocks",
    "trafikist.course.markdown.sections",
)
THEME = "material"
_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*):")


# mkdocs.yml's top-level options: MkDocs 1.6's (`mkdocs.config.defaults.MkDocsConfig`, which
# tests/core/test_config_errors.py holds this to), and INHERIT, which MkDocs reads first. Zensical
# reads the same file and ignores a key it does not know; MkDocs warns, and stops a strict build
# with no line and no fix.
OPTIONS = frozenset(
    {
        "INHERIT",
        "config_file_path",
        "copyright",
        "dev_addr",
        "docs_dir",
        "draft_docs",
        "edit_uri",
        "edit_uri_template",
        "exclude_docs",
        "extra",
        "extra_css",
        "extra_javascript",
        "extra_templates",
        "google_analytics",
        "hooks",
        "markdown_extensions",
        "mdx_configs",
        "nav",
        "not_in_nav",
        "pages",
        "plugins",
        "remote_branch",
        "remote_name",
        "repo_name",
        "repo_url",
        "site_author",
        "site_description",
        "site_dir",
        "site_name",
        "site_url",
        "strict",
        "theme",
        "use_directory_urls",
        "validation",
        "watch",
    }
)


def check_options(config: ConfigFile) -> None:
    """Each top-level key of mkdocs.yml is an option the engines read: a mistyped one
    (`extra_csss:`) would be dropped in silence by Zensical, and by MkDocs outside strict mode."""
    for key in config.data:
        if isinstance(key, str) and key in OPTIONS:
            continue
        name = str(key)
        near = difflib.get_close_matches(name, sorted(OPTIONS), n=1, cutoff=0.75)
        raise CourseError.at(
            config.path,
            config.line(key) if isinstance(key, str | int) else None,
            f"'{name}' is not an option of mkdocs.yml: neither engine reads it, so its "
            "setting would be lost.",
            f"Write '{near[0]}:' if that is the option meant."
            if near
            else "Remove it, or write it as one of MkDocs' options (see "
            "https://www.mkdocs.org/user-guide/configuration/); the course's own settings go "
            "under 'plugins: - trafikist:'.",
        )


def check_config(config: ConfigFile) -> None:
    """What mkdocs.yml must hold for the course, at its line (`mkdocs.yml:LINE: what. Fix:
    how.`), under both engines and before anything is built: options the engines know, the
    theme the overrides are written for, the Markdown extensions the pages need, the plugin's
    folders, and a Pyodide address the page may load from."""
    check_options(config)
    theme = config.data.get("theme")
    name = theme.get("name") if isinstance(theme, dict) else theme
    if name != THEME:
        raise CourseError.at(
            config.path,
            config.line("theme", "name"),
            f"the theme is {name!r}, and the course's pages and overrides are written for "
            f"mkdocs-material ('{THEME}'): another theme builds a site without them.",
            f"Set 'theme: name: {THEME}' (with 'custom_dir: overrides'), as the repository's "
            "mkdocs.yml has it.",
        )
    extensions = config.data.get("markdown_extensions")
    names = {
        entry if isinstance(entry, str) else next(iter(entry), "")
        for entry in (extensions if isinstance(extensions, list) else [])
        if isinstance(entry, str) or (isinstance(entry, dict) and entry)
    }
    if isinstance(extensions, dict):
        names = set(extensions)
    missing = [name for name in REQUIRED_EXTENSIONS if name not in names]
    if missing:
        raise CourseError.at(
            config.path,
            config.line("markdown_extensions"),
            f"markdown_extensions does not list '{missing[0]}', which the course's pages are "
            "written for: they would build with it printed as text.",
            f"Add '- {missing[0]}' under markdown_extensions:, as the repository's mkdocs.yml "
            "has it.",
        )
    options = config.plugin_options()
    if not isinstance(options, dict):
        return
    for option in ("modules_dir", "widgets_dir"):
        value = options.get(option)
        if isinstance(value, str) and not (config.base_dir / value).is_dir():
            raise CourseError.at(
                config.path,
                config.option_line(option),
                f"the trafikist option '{option}' names '{value}', which is not a folder of "
                "the project.",
                f"Name the folder that holds the course's {option.removesuffix('_dir')} "
                f"(relative to mkdocs.yml), or remove the option for its default.",
            )
    url = options.get("pyodide_url")
    if isinstance(url, str) and url.strip():
        scheme = _SCHEME.match(url.strip())
        if scheme is not None and scheme["scheme"].lower() not in ("http", "https"):
            raise CourseError.at(
                config.path,
                config.option_line("pyodide_url"),
                f"the trafikist option 'pyodide_url' is {url!r}: a page loads Pyodide over "
                f"http(s) or from its own site, never from a '{scheme['scheme']}:' address.",
                "Give an http(s) address, a path relative to the site, or remove the option "
                "to serve the site's own Pyodide.",
            )
