"""The course's Markdown extensions refuse to run under MkDocs without the course's plugin.

Without `- trafikist` in mkdocs.yml's `plugins:`, `mkdocs build` would empty the site folder,
then fail on the theme's overrides (or build docs/ alone): the last good site would be gone.
Nothing of the course runs before MkDocs empties that folder, except this: MkDocs loads each
Markdown extension while it validates mkdocs.yml, before any plugin event and before it touches
the site folder. So `makeExtension` looks for the configuration MkDocs is validating (the
`self` of its `_validate`, on the stack; this layer imports no engine, so by its class's name)
and, when it belongs to a course (modules/course.yml beside it) and its `plugins:` do not list
`trafikist`, ends the run with one line, `mkdocs.yml:LINE: what. Fix: how.`, and exit status
1. Outside MkDocs' validation (a page being rendered, Zensical, the tests) and in a project
with no course (a plain build of pages the course rendered, as the benchmarks make) it does
nothing.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from trafikist.base.errors import Problem

PLUGIN = "trafikist"
COURSE_FILE = "modules/course.yml"  # a course's project: the plugin's default modules_dir
ABORTED = "Aborted with a configuration error!"  # MkDocs' own words for a refused mkdocs.yml


def refuse_without_the_plugin() -> None:
    """End MkDocs' run when the configuration it validates lacks the course's plugin."""
    config = _validating_mkdocs_config()
    if config is None or _lists_plugin(config.get("plugins")):
        return
    path = str(getattr(config, "config_file_path", None) or "mkdocs.yml")
    if not (Path(path).parent / COURSE_FILE).is_file():
        return  # not a course's project (a plain build of pages the course rendered, say)
    problem = missing_plugin(path, _key_line(path, "plugins"))
    logging.getLogger("mkdocs.plugins.trafikist").error(str(problem))
    if threading.current_thread() is threading.main_thread():
        raise SystemExit(ABORTED)  # past MkDocs' handlers, which would print a stack
    raise RuntimeError(str(problem))  # a preview's rebuild thread reports it and goes on


def missing_plugin(config_file: Path | str, line: int | None) -> Problem:
    """The line for a course's mkdocs.yml without the plugin, under either engine (the
    Zensical adapter, which would build without it, refuses the file as MkDocs would)."""
    return Problem(
        config_file,
        line,
        "plugins: does not list 'trafikist', the course's plugin: MkDocs would empty the site "
        "folder and build docs/ without the course",
        "Add '- trafikist' under plugins: (with its options, such as modules_dir: modules), as "
        "the repository's mkdocs.yml has it; the last site is unchanged.",
    )


def _validating_mkdocs_config(depth: int = 16) -> Any:
    frame: FrameType | None = sys._getframe(1)
    for _ in range(depth):
        frame = frame.f_back if frame is not None else None
        if frame is None:
            return None
        if frame.f_code.co_name == "_validate":
            candidate = frame.f_locals.get("self")
            kind = type(candidate)
            if kind.__name__ == "MkDocsConfig" and kind.__module__.startswith("mkdocs."):
                return candidate
    return None


def _lists_plugin(plugins: object) -> bool:
    """`plugins:` as written (a list of names and one-key mappings, or a mapping), or as MkDocs
    holds it once validated (a mapping by name)."""
    if plugins is None:
        return False  # MkDocs' default is [search]
    if isinstance(plugins, str):
        return plugins == PLUGIN
    if isinstance(plugins, dict):  # MkDocs' PluginCollection is a dict
        return PLUGIN in plugins
    if isinstance(plugins, list | tuple):
        return any(_lists_plugin(entry) for entry in plugins)
    return False


def _key_line(path: str, key: str) -> int | None:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None
