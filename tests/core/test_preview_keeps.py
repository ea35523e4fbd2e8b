"""A preview keeps what a save did not change (trafikist.core.cache.MarkdownCache): a module's
How we know page while no file of the module changed, and a page's finished HTML while its
HTML and the course's addresses, titles and statuses are the same. What a save changes is made
again."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

from support import copy_project
from trafikist.core.cache import MarkdownCache
from trafikist.core.options import BuildOptions
from trafikist.core.session import CourseBuild
from trafikist.course import render
from trafikist.course.structure import Page

MODULE_FOLDER = Path("modules/04-blocking-timers-and-the-bus")


@pytest.mark.build
def test_a_how_we_know_page_is_made_again_only_when_its_module_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = copy_project(tmp_path / "project")
    made: list[str] = []
    block = render.GENERATED["how-we-know"]

    def counted(renderer: render.Renderer, page: Page) -> str:
        made.append(page.id)
        return block.render(renderer, page)

    monkeypatch.setitem(render.GENERATED, "how-we-know", type(block)(
        block.name, counted, block.kinds, block.where, block.needs, block.fix, block.written
    ))  # fmt: skip
    build = CourseBuild(project, BuildOptions(memory_snapshot=False), preview=True)
    with contextlib.chdir(project):

        def how_we_know() -> str:
            site = build.load()
            page = next(p for p in site.pages() if p.id.startswith("how-we-know-"))
            return build.page_markdown(page)

        first = how_we_know()
        assert len(made) == 1
        assert how_we_know() == first  # a save elsewhere: kept
        assert len(made) == 1
        # Any file of the module: a dive's text, its duties, a scenario, a transcript.
        duties = project / MODULE_FOLDER / "duties.yml"
        duties.write_text(duties.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        os.utime(duties, ns=(duties.stat().st_atime_ns, duties.stat().st_mtime_ns + 10**9))
        assert how_we_know() == first  # the same page, made again
        assert len(made) == 2


def test_a_finished_page_is_kept_for_the_same_html_in_the_same_course() -> None:
    cache = MarkdownCache()
    cache.course_key = "course A"
    calls: list[str] = []

    def finish(html: str) -> str:
        calls.append(html)
        return html.upper()

    assert cache.finalized("p", "<p>x</p>", lambda: finish("<p>x</p>")) == "<P>X</P>"
    assert cache.finalized("p", "<p>x</p>", lambda: finish("<p>x</p>")) == "<P>X</P>"
    assert len(calls) == 1
    assert cache.finalized("p", "<p>y</p>", lambda: finish("<p>y</p>")) == "<P>Y</P>"
    cache.course_key = "course B: a page's title or status changed"
    assert cache.finalized("p", "<p>y</p>", lambda: finish("<p>y</p>")) == "<P>Y</P>"
    assert len(calls) == 3
