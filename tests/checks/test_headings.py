"""A table-of-contents label names its section as the heading does: the heading's words, in
their order, some left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import copy_project, edit
from support.building import assert_core_build_fails
from trafikist.checks.headings import check_toc_labels
from trafikist.course.structure import Kind, Page, Status

DIVE_02 = Path("modules/04-blocking-timers-and-the-bus/dives/02-the-blocking-claim.md")


def page_with(body: str) -> Page:
    return Page(
        id="p",
        kind=Kind.DIVE,
        title="P",
        summary="",
        status=Status.BUILT,
        book=None,
        source=Path("modules/p.md"),
        body=body,
        body_line=7,
    )


@pytest.mark.parametrize(
    "heading",
    [
        '## The bus, composed from built-ins { data-toc-label="The bus, from built-ins" }',
        '## The same sweeps on `wire: 6` { data-toc-label="On wire: 6" }',
        '## What the Modules API offers { data-toc-label="The Modules API" }',
        "## A wake asks to check again",
    ],
)
def test_a_label_that_shortens_its_heading(heading: str) -> None:
    assert check_toc_labels(page_with(f"Text.\n\n{heading}\n\nMore.\n")) == []


@pytest.mark.parametrize(
    "label",
    ["What a wake carries", "Check again, a wake asks", "A wake asks to check twice", ""],
)
def test_a_label_that_says_something_else(label: str) -> None:
    body = f'Text.\n\n## A wake asks to check again {{ data-toc-label="{label}" }}\n'
    problems = check_toc_labels(page_with(body))
    assert len(problems) == 1
    assert problems[0].line == 9
    assert f"calls the section '{label}'" in problems[0].what


def test_labels_in_fences_and_blocks_are_not_headings() -> None:
    body = (
        '```markdown\n## A { data-toc-label="B" }\n```\n\n'
        '/// pattern | x\n#### the pattern { data-toc-label="elsewhere" }\n///\n'
    )
    assert check_toc_labels(page_with(body)) == []


@pytest.mark.build
def test_the_build_refuses_a_label_at_its_line(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    line = edit(
        project / DIVE_02,
        "## A wake asks to check again\n",
        '## A wake asks to check again { data-toc-label="What a wake carries" }\n',
    )
    message = assert_core_build_fails(
        project, r"calls the section 'What a wake carries'", file=DIVE_02, line=line
    )
    assert "Fix: Write the label with the heading's own words" in message
