"""The core's build in this process, for the bad-input tables: what both adapters run around
their engine (load and check the course, each page's Markdown, the site's own files, what comes
after the pages), on a copy of the project, with no engine.

An engine's own failures (a strict warning, MkDocs' link validation, Zensical's) and the swap
that keeps the last good site are covered by one end-to-end build per failure path and engine
(support.authoring.assert_build_fails).
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import tempfile
from pathlib import Path
from typing import Any

from support import refuse_in_the_fast_tier
from trafikist.base.errors import CourseError
from trafikist.core.files import write_site_files
from trafikist.core.project import read_project
from trafikist.core.session import CourseBuild
from trafikist.model import command_table, install_command_table


def core_build(project: Path, *, strict: bool = True, snapshot: bool = False) -> str | None:
    """Build `project` with the core alone, from its folder as an author builds it (messages
    name files relative to it); the CourseError's message, or None on success. The duty
    widget's memory snapshot is left out unless `snapshot`: a changed model or registry would
    have Node make one (seconds), and no bad input but a broken snapshot needs it."""
    refuse_in_the_fast_tier("a build of a whole course (support.building.core_build)")
    table = command_table()
    with contextlib.chdir(project):
        return _core_build(project, strict, snapshot, table)


def _core_build(
    project: Path, strict: bool, snapshot: bool, table: dict[str, dict[str, Any]]
) -> str | None:
    try:
        options = read_project(project / "mkdocs.yml").options
    except CourseError as error:  # mkdocs.yml itself (trafikist.core.config.check_config)
        return str(error)
    if not snapshot:
        options = dataclasses.replace(options, memory_snapshot=False)
    build = CourseBuild(project, options, strict=strict)
    try:
        build.load()
        assert build.site is not None
        for page in build.site.pages():
            build.page_markdown(page)
        with tempfile.TemporaryDirectory(prefix="core-build-") as site:
            write_site_files(Path(site), build.site_files())
            build.after_pages(Path(site))
    except CourseError as error:
        return str(error)
    finally:
        build.cancel()
        install_command_table(table)  # the project's registry may have changed the rows
    return None


def assert_core_build_fails(
    project: Path, pattern: str, *, file: str | Path | None = None, line: int | None = None
) -> str:
    """The core's build of `project` ends with exactly one `FILE:LINE: what. Fix: how.` line
    that matches `pattern` (and names `file` and `line` when given); returns that line."""
    message = core_build(project)
    assert message is not None, "the build succeeded"
    lines = message.splitlines()
    assert len(lines) == 1, message
    assert re.search(pattern, message), message
    assert " Fix: " in message, message
    if file is not None:
        where = f"{Path(file).as_posix()}:{line}:" if line else f"{Path(file).as_posix()}:"
        assert message.startswith(where), f"{message!r} should start with {where!r}"
    return message
