"""A dive's worked example, run on the model at build time and drawn into the page.

The scenario sits beside the dive as `NN-slug.example.yml`. The `/// worked-example` block
puts the model's run there: the same timeline and trace the duty widget draws (one renderer,
`trafikist.model_view`), followed by the model's own choices the run relies on, in words.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from trafikist.base.errors import CourseError, Problem
from trafikist.course.runs import scenario_trace
from trafikist.course.structure import Page
from trafikist.model import MODEL_CHOICES
from trafikist.model_view.draw import render_result_html

EXAMPLE_SUFFIX = ".example.yml"
# A worked example's run, as a line of evidence links to it ("How we know").
RUN_ID = "tk-run-{run}"


def run_stem(run: str) -> str:
    """A run's scenario as an id names it (`promote-due.yml`, `01-x.example.yml`)."""
    stem = run.removesuffix(".yml").removesuffix(".example").lower()
    return re.sub(r"[^a-z0-9-]+", "-", stem)


def example_path(page: Page) -> Path | None:
    if page.source is None:
        return None
    return page.source.with_name(page.source.stem + EXAMPLE_SUFFIX)


def render_worked_example(page: Page) -> str:
    """The run of the page's example scenario, as HTML; CourseError when it cannot run."""
    path = example_path(page)
    if path is None or not path.is_file():
        raise CourseError(missing_scenario(page))
    trace = scenario_trace(path)
    words = {choice.id: choice.text for choice in MODEL_CHOICES}
    used = [choice for choice in trace["choices"] if choice in words]
    choices = "".join(
        f"<dt>{html.escape(choice)}</dt><dd>{html.escape(words[choice])}</dd>" for choice in used
    )
    return (
        f'<section class="tk-example tk-run" id="{RUN_ID.format(run=run_stem(path.name))}" '
        f'aria-label="The model\'s run of {path.name}">\n'
        f'<p class="tk-example__label">On the model · scenario <code>{html.escape(path.name)}'
        "</code> · virtual time</p>\n"
        f"{render_result_html(trace)}\n"
        + (
            '<details class="tk-example__choices"><summary>The model\'s own choices this run '
            f"relies on, where the course gives no value</summary><dl>{choices}</dl></details>\n"
            if used
            else ""
        )
        + "</section>"
    )


def missing_scenario(page: Page) -> Problem:
    """The problem of a worked-example block whose scenario file is not there."""
    path = example_path(page)
    return Problem(
        page.source or "modules",
        _block_line(page),
        "the worked-example block has no scenario to run.",
        f"Write the scenario beside the page as {path.name if path else 'NN-slug.example.yml'}"
        " (docs/scenarios.md), or remove the block.",
    )


def _block_line(page: Page) -> int | None:
    for offset, text in enumerate(page.body.splitlines()):
        if text.strip() == "/// worked-example":
            return page.body_line + offset
    return None
