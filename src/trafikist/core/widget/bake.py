"""Bake each duty's default scenario at build time: run the model in CPython and draw it.

The page carries the drawing before any JavaScript runs; the scenario and its trace also go into
the site as JSON (`assets/…/model/scenarios/NAME.json`), the worker's input and the browser
test's reference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from trafikist.base.errors import CourseError
from trafikist.course.runs import load_scenario, scenario_trace
from trafikist.course.structure import Duty
from trafikist.model import ScenarioError
from trafikist.model.trace import Trace
from trafikist.model_view.controls import controls_of
from trafikist.model_view.draw import render_result_html
from trafikist.model_view.live import CHOICE_IDS, canonical_json, result_of


@dataclass(frozen=True)
class BakedRun:
    duty_id: str
    scenario_name: str
    scenario: dict[str, Any]  # the scenario file, parsed
    trace: Trace
    markup: str  # timeline, legend, choices note and trace table
    controls: dict[str, Any]  # the controls' defaults for this scenario

    @property
    def controls_json(self) -> str:
        return json.dumps(self.controls, sort_keys=True, separators=(",", ":"))

    def markup_with_rows_at(self, rows_at: str) -> str:
        """The markup the page carries for the duty it shows first: the trace's rows left at
        `rows_at`, the run's own page (model_view.draw.render_trace_html), fetched when the
        reader opens the trace."""
        return render_result_html(self.trace, CHOICE_IDS, rows_at=rows_at)

    def markup_with_choices_at(self, choices_href: str) -> str:
        """The markup of the run's own page: the trace open, the model's choices linked at
        `choices_href` + the choice's id."""
        markup = render_result_html(self.trace, CHOICE_IDS, choices_href=choices_href)
        return markup.replace('<details class="tk-trace" ', '<details open class="tk-trace" ', 1)

    def site_json(self) -> bytes:
        """The file the worker fetches: the scenario, and the trace the build got from it."""
        return (
            '{"scenario":'
            + json.dumps(self.scenario, sort_keys=True, separators=(",", ":"))
            + ',"trace":'
            + canonical_json(self.trace)
            + "}"
        ).encode()


def bake_duty(duty: Duty) -> BakedRun | None:
    """The duty's default (first) scenario, run and drawn; None for a duty without one."""
    path = duty.default_scenario
    if path is None:
        return None
    data = load_scenario(path)
    # The same run the duty's expectations check (trafikist.course.runs), after the JSON round
    # trip the page's copy goes through, so the baked drawing is what the page compares with.
    trace = scenario_trace(path)
    try:
        controls = controls_of(data)
    except ScenarioError as error:
        raise CourseError.at(path, None, str(error), "See docs/scenarios.md.") from None
    return BakedRun(
        duty_id=duty.id,
        scenario_name=path.stem,
        scenario=data,
        trace=trace,
        markup=result_of(trace)["markup"],
        controls=controls,
    )
