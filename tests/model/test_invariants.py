"""Invariants over generated scenarios (hypothesis): nothing lost or duplicated, nothing promoted
before it is due, and a parked consumer wakes only at a push or at its timeout."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from trafikist.model import run_scenario

STATES = ("schedule", "pending", "active", "dead", "done")


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    jobs = []
    for number in range(draw(st.integers(0, 8))):
        state = draw(st.sampled_from(["schedule", "schedule", "pending", "active", "dead"]))
        job: dict[str, Any] = {
            "id": f"j{number}",
            "state": state,
            "work": draw(st.sampled_from([0, 0.2, 1.5, 4])),
        }
        if state in ("schedule", "active"):
            job["due"] = draw(st.sampled_from([0, 0.5, 1, 2.25, 3, 7, 15]))
        if state == "schedule" and draw(st.booleans()) and draw(st.booleans()):
            job["lane"] = "a"
        if state == "active":
            job["restart"] = draw(st.booleans()) and draw(st.booleans())
            job["attempts"] = draw(st.integers(0, 4))
        jobs.append(job)
    processes = []
    for number in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["Consumer", "Consumer", "Metronome", "Pump", "Stalled"]))
        process: dict[str, Any] = {
            "kind": kind,
            "name": f"p{number}",
            "wire": draw(st.sampled_from([4, 6])),
            "start": draw(st.sampled_from([0, 0.3])),
        }
        if kind in ("Consumer", "Metronome"):
            process["beat"] = draw(st.sampled_from([0.5, 1, 2]))
            process["reaper"] = draw(st.booleans())
            process["batch"] = draw(st.integers(1, 3))
            process["lease"] = draw(st.sampled_from([1, 3, 30]))
        if kind in ("Pump", "Stalled"):
            process["interval"] = draw(st.sampled_from([0.5, 1, 3]))
        processes.append(process)
    faults = []
    if processes and draw(st.booleans()):
        faults.append(
            {
                "client": draw(st.sampled_from([p["name"] for p in processes])),
                "after": draw(st.integers(0, 12)),
                "restart": draw(st.sampled_from([None, 0.5, 2])),
            }
        )
        if faults[0]["restart"] is None:
            del faults[0]["restart"]
    return {
        "name": "generated",
        "duration": draw(st.sampled_from([5, 12, 30])),
        "max_attempts": draw(st.integers(0, 3)),
        "jobs": jobs,
        "processes": processes,
        "faults": faults,
    }


def check_invariants(data: dict[str, Any], trace: dict[str, Any]) -> None:
    jobs = Counter(trace["jobs"])
    due = trace["due"]
    left_schedule: dict[str, float] = {}
    for step in trace["steps"]:
        state = step["state"]
        held = Counter(job for name in STATES for job in state[name])
        assert held == jobs, f"at {step['t']}: {held} != {jobs}"
        for job in set(due) - set(state["schedule"]):
            left_schedule.setdefault(job, step["t"])
    for job, when in left_schedule.items():
        assert when * 1000 >= due[job] * 1000, f"{job} left schedule at {when}, due {due[job]}"
    pushes = {
        step["t"]
        for step in trace["steps"]
        if step["argv"][1:2] in (["@promote"], ["3"])
        and step["argv"][0] in ("EVALSHA", "EMQ.PROMOTE")
        and isinstance(step["reply"], int)
        and step["reply"] > 0
    }
    for step in trace["steps"]:
        if step["argv"][0] != "BLPOP" or "replied" not in step:
            continue
        timeout = float(step["argv"][-1])
        if step["reply"] is None:
            assert round(step["replied"] - step["t"], 3) == timeout, step
        else:
            assert step["replied"] in pushes, f"woken at {step['replied']} with no push: {step}"
    for event in trace["events"]:
        if event["kind"] == "wake":
            assert event["t"] in pushes


@given(scenarios())
def test_generated_scenarios_keep_the_invariants(data: dict[str, Any]) -> None:
    trace = run_scenario(data)
    check_invariants(data, trace)
    assert run_scenario(data) == trace  # deterministic


def test_the_benchmark_scenario_keeps_the_invariants() -> None:
    data = {
        "name": "bench-small",
        "duration": 60,
        "jobs": [{"id": f"j{n}", "state": "schedule", "due": n * 0.6} for n in range(100)],
        "processes": [{"kind": "Consumer", "name": f"c{n}"} for n in range(10)],
    }
    trace = run_scenario(data)
    check_invariants(data, trace)
    assert len(trace["final"]["done"]) == 100
