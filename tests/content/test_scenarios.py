"""Every duty of the course runs a short scenario of its module: the widget's baked run and
what the duty's sentences are about. (The model's own tests run a copy of module 04's
scenarios, tests/support/data/scenarios, so that a content edit fails here and not there.)"""

from __future__ import annotations

import json

import pytest
import yaml

from support import ROOT
from trafikist.course.loader import load_course
from trafikist.model import MODEL_CHOICES, run_scenario

COURSE = load_course(ROOT / "modules")
DUTIES = {duty.id: duty for page in COURSE.pages.values() for duty in page.duties}


def test_the_course_has_duties() -> None:
    assert len(DUTIES) >= 9, sorted(DUTIES)


@pytest.mark.parametrize("duty_id", sorted(DUTIES))
def test_each_duty_has_a_short_scenario_that_runs(duty_id: str) -> None:
    path = DUTIES[duty_id].default_scenario
    assert path is not None, f"the duty {duty_id} names no scenario"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["duration"] <= 60
    trace = run_scenario(data, source=path.name)
    assert trace["steps"], duty_id
    assert set(trace["choices"]) <= {choice.id for choice in MODEL_CHOICES}
    json.dumps(trace)  # the widget reads it as JSON
