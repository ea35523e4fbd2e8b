"""Scenario tests: each behaviour the seed states, shown by a run of the simulation (of the tests'
copy of module 04's scenarios, tests/support/data/scenarios; tests/content/test_scenarios.py
runs the course's own)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from support import MODEL_SCENARIOS, ROOT
from trafikist.model import Simulation, run_scenario
from trafikist.model_view.draw import summarize

SCENARIOS = MODEL_SCENARIOS
DUTY_SCENARIOS = {
    "promote": "promote-due.yml",
    "recover": "recover-expired.yml",
    "wake": "wake-parked.yml",
    "claim": "claim-lanes.yml",
    "publish": "publish-append.yml",
    "batch-append": "batch-append.yml",
    "count-failures": "count-failures.yml",
    "park-dead-letter": "park-dead-letter.yml",
    "reclaim": "reclaim-stalled.yml",
}


def load(name: str) -> dict[str, Any]:
    return yaml.safe_load((SCENARIOS / name).read_text(encoding="utf-8"))


def sent(trace: dict[str, Any], client: str | None = None) -> list[str]:
    return [
        " ".join(step["argv"])
        for step in trace["steps"]
        if client is None or step["client"] == client
    ]


def events(trace: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [event for event in trace["events"] if event["kind"] == kind]


def scenario(**fields: Any) -> dict[str, Any]:
    return {"name": "test", "duration": 10, **fields}


# --- module 04's scenarios (the tests' copy) -----------------------------------------------------


def test_same_input_gives_a_byte_identical_trace() -> None:
    for name in DUTY_SCENARIOS.values():
        data = load(name)
        first = json.dumps(run_scenario(data), sort_keys=True)
        assert first == json.dumps(run_scenario(data), sort_keys=True)


# --- time: promote and recover -------------------------------------------------------------------


def test_a_due_job_stays_in_schedule_while_no_client_sends_a_sweep() -> None:
    trace = run_scenario(load("promote-due.yml"), {"processes": []})
    assert trace["steps"] == []
    assert trace["final"]["schedule"] == ["j1", "j2", "j3", "j4"]


def test_the_beat_promotes_at_the_first_beat_after_the_due_time() -> None:
    trace = run_scenario(load("promote-due.yml"))
    moved = [s for s in trace["steps"] if "@promote" in s["argv"] and s["reply"]]
    assert moved[0]["t"] > 2.5  # j1 is due at 2.5 s; the beat reaches it later
    for step in moved:
        assert all(trace["due"][job] <= step["t"] for job in step["state"]["pending"])


def test_on_wire_6_a_consumer_with_the_reaper_never_promotes_while_pump_does() -> None:
    data = load("promote-due.yml")
    alone = run_scenario(data, {"wire": 6})
    assert sent(alone) == []
    assert {e["text"] for e in events(alone, "refused")} == {
        "EchoMQ.Jobs.reap/2 has no verb on wire: 6"
    }
    assert events(alone, "backoff")
    assert alone["final"]["schedule"] == ["j1", "j2", "j3", "j4"]
    with_pump = run_scenario(data, {"wire": 6, "processes": ["Consumer", "Pump"]})
    assert sent(with_pump, "consumer") == []
    assert all(line.startswith("EMQ.PROMOTE 3 ") for line in sent(with_pump, "pump"))
    assert with_pump["final"]["schedule"] == []
    assert with_pump["final"]["pending"] == ["j1", "j2", "j3", "j4"]  # claimed by nobody


def test_on_wire_6_a_beat_without_the_reaper_promotes_but_claims_nothing() -> None:
    trace = run_scenario(load("promote-due.yml"), {"wire": 6, "reaper": False})
    lines = sent(trace)
    assert any(line.startswith("EMQ.STALLED.CHECK 3 ") for line in lines)
    assert any(line.startswith("EMQ.PROMOTE 3 ") for line in lines)
    assert {e["via"] for e in events(trace, "refused")} == {"lane claim"}
    assert trace["final"]["active"] == [] and trace["final"]["done"] == []


def test_a_due_lane_row_refuses_emq_promote_and_the_beat_backs_off() -> None:
    data = scenario(
        jobs=[{"id": "j1", "state": "schedule", "due": 1, "lane": "a"}],
        processes=[{"kind": "Pump", "wire": 6}],
    )
    trace = run_scenario(data)
    assert all(isinstance(step["reply"], dict) for step in trace["steps"][1:])
    assert "promote-lane-check" in trace["choices"]
    assert trace["final"]["schedule"] == ["j1"]
    on_wire_4 = run_scenario(data, {"wire": 4})
    assert on_wire_4["final"]["pending"] == ["j1"]


def test_the_counted_sweep_recovers_dead_letters_and_skips_restarts() -> None:
    trace = run_scenario(load("recover-expired.yml"))
    assert trace["final"]["pending"] == ["j1"]
    assert trace["final"]["dead"] == ["j2"]
    assert trace["final"]["active"] == ["j3", "j4"]
    verbs = run_scenario(load("recover-expired.yml"), {"wire": 6})
    assert verbs["final"] == trace["final"]
    assert all(line.startswith("EMQ.STALLED.CHECK") for line in sent(verbs))


def test_an_expired_lease_stays_in_active_between_sweeps() -> None:
    trace = run_scenario(load("recover-expired.yml"))
    before_second_sweep = [s for s in trace["steps"] if s["t"] < 2]
    assert all("j1" in step["state"]["active"] for step in before_second_sweep)


# --- waiting: wake and claim ---------------------------------------------------------------------


def test_a_waiter_that_nobody_rings_learns_of_new_work_only_at_its_timeout() -> None:
    data = scenario(
        duration=12,
        jobs=[{"id": "j1", "state": "active", "due": 3}],
        processes=[{"kind": "Consumer", "beat": 5}, {"kind": "Stalled", "interval": 4}],
    )
    trace = run_scenario(data)
    recovered = next(
        s for s in trace["steps"] if s["client"] == "stalled1" and s["reply"] == [1, 0]
    )
    claim = next(s for s in trace["steps"] if "@claim" in s["argv"] and s["reply"] == "j1")
    park = max(
        (s for s in trace["steps"] if s["argv"][0] == "BLPOP" and s["t"] < recovered["t"]),
        key=lambda s: s["t"],
    )
    assert park["reply"] is None and park["replied"] == pytest.approx(park["t"] + 5)
    assert claim["t"] > park["replied"] > recovered["t"]


def test_a_promotion_rings_and_wakes_the_parked_consumer_at_once() -> None:
    trace = run_scenario(load("wake-parked.yml"))
    wake = events(trace, "wake")[0]
    promote = next(s for s in trace["steps"] if s["client"] == "pump" and s["reply"] == 1)
    assert wake["t"] == promote["t"]


def test_metronome_holds_the_single_park_for_its_pool() -> None:
    trace = run_scenario(load("claim-lanes.yml"), {"processes": ["Metronome"]})
    parks = {s["client"] for s in trace["steps"] if s["argv"][0] == "BLPOP"}
    claims = {s["client"] for s in trace["steps"] if "@claim" in s["argv"]}
    assert parks == {"metronome"}
    assert claims == {"metronome.1", "metronome.2"}
    assert sorted(trace["final"]["done"]) == ["j1", "j2", "j3", "j4", "j5"]


def test_two_consumers_drain_pending_without_claiming_a_job_twice() -> None:
    trace = run_scenario(load("claim-lanes.yml"))
    claimed = [s["reply"] for s in trace["steps"] if "@claim" in s["argv"] and s["reply"]]
    assert sorted(claimed) == ["j1", "j2", "j3", "j4", "j5"]


def test_a_crashed_consumer_leaves_its_job_in_active_until_a_sweep() -> None:
    data = scenario(
        duration=20,
        lease=3,
        jobs=[{"id": "j1", "state": "pending", "work": 1}],
        processes=[
            {"kind": "Consumer", "name": "a", "reaper": False},
            {"kind": "Consumer", "name": "b", "start": 0.5, "reaper": False},
        ],
        faults=[{"client": "a", "after": 3}],
    )
    trace = run_scenario(data)
    crash = events(trace, "crash")[0]
    assert crash["client"] == "a"
    lease_steps = [s for s in trace["steps"] if crash["t"] <= s["t"] < 3]
    assert all(step["state"]["active"] == ["j1"] for step in lease_steps)
    assert trace["final"]["done"] == ["j1"]


# --- broadcast: the compositions and their windows ---------------------------------------------


def test_a_batch_append_is_a_pipeline_and_a_crash_leaves_part_of_it() -> None:
    whole = run_scenario(load("batch-append.yml"))
    pipelined = [s for s in whole["steps"] if s.get("pipeline")]
    assert len(pipelined) == 3 and {s["t"] for s in pipelined} == {1.0}
    partial = run_scenario(load("batch-append.yml"), {"faults": [{"client": "bus", "after": 1}]})
    after_bus = [s for s in partial["steps"] if s["client"] == "bus"]
    assert len(after_bus) == 1
    assert after_bus[-1]["state"]["streams"]["events"] == 1  # one entry of three
    assert partial["final"]["streams"]["events"] == 3  # EMQ.APPEND's two, whole


def test_a_crash_between_incr_and_expire_leaves_a_count_without_ttl() -> None:
    whole = run_scenario(load("count-failures.yml"))
    counts = [s["state"]["failures"] for s in whole["steps"] if s["argv"][0] == "EXPIRE"]
    assert next(iter(counts[0].values()))["ttl"] == 60
    broken = run_scenario(
        load("count-failures.yml"), {"faults": [{"client": "reader", "after": 3}]}
    )
    assert broken["steps"][-1]["argv"][0] == "INCR"
    assert next(iter(broken["final"]["failures"].values()))["ttl"] == -1


def test_the_park_appends_then_acknowledges_and_a_crash_between_parks_twice() -> None:
    trace = run_scenario(load("park-dead-letter.yml"))
    order = [s["argv"][0] for s in trace["steps"] if s["via"] == "park"]
    assert order == ["XADD", "XACK"]
    assert trace["final"]["streams"]["events:dead"] == 1
    park_at = next(i for i, s in enumerate(trace["steps"]) if s["via"] == "park")
    broken = run_scenario(
        load("park-dead-letter.yml"),
        {"faults": [{"client": "reader", "after": park_at + 1, "restart": 1}]},
    )
    assert broken["final"]["streams"]["events:dead"] == 2  # parked again after the reclaim


def test_stream_consumer_reclaims_with_xautoclaim_on_each_pass() -> None:
    trace = run_scenario(load("reclaim-stalled.yml"))
    passes = [s["argv"][0] for s in trace["steps"] if s["client"] == "reader-b"]
    assert passes[0] == "XAUTOCLAIM" and passes[1] == "XREADGROUP"
    reclaimed = next(s for s in trace["steps"] if s["argv"][0] == "XAUTOCLAIM" and s["reply"][1])
    assert reclaimed["client"] == "reader-b" and len(reclaimed["reply"][1]) == 2
    assert trace["final"]["pel"] == {"events workers": 0}


def test_publish_reaches_only_a_listener_and_emq_publish_checks_fields() -> None:
    trace = run_scenario(load("publish-append.yml"))
    publish = next(s for s in trace["steps"] if s["argv"][0] == "PUBLISH")
    assert publish["reply"] == 1
    assert events(trace, "message")[0]["client"] == "listener"
    refused = trace["steps"][-1]
    assert refused["reply"] == {"error": "ERR EMQ.PUBLISH envelope lacks the field 'type'"}
    assert trace["final"]["streams"]["events"] == 2


# --- the API and the CLI -------------------------------------------------------------------------


def test_the_server_stays_for_the_console_after_a_run() -> None:
    from trafikist.model.console import execute_line

    simulation = Simulation(load("promote-due.yml"))
    simulation.run()
    assert execute_line(simulation.server, "LRANGE q:pending 0 -1") == "(empty array)"
    assert execute_line(simulation.server, "ZCARD q:schedule") == "(integer) 0"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trafikist.cli", "model", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_cli_prints_the_trace_of_a_yaml_and_a_json_scenario(tmp_path: Path) -> None:
    result = run_cli("run", str(SCENARIOS / "promote-due.yml"))
    assert result.returncode == 0, result.stderr
    trace = json.loads(result.stdout)
    assert trace["scenario"] == "promote-due"
    as_json = tmp_path / "promote.json"
    as_json.write_text(json.dumps(load("promote-due.yml")))
    assert json.loads(run_cli("run", str(as_json)).stdout) == trace
    overridden = run_cli("run", str(as_json), "--overrides", '{"processes": []}')
    assert json.loads(overridden.stdout)["steps"] == []


def test_cli_reports_a_bad_scenario_in_one_line_and_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "name: bad\nduration: 5\nprocesses:\n  - kind: Consumer\n  - kind: Pump\n    wire: 5\n"
    )
    result = run_cli("run", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "bad.yml: processes[1].wire: must be 4 or 6, got 5." in lines[0]
    assert "Fix:" in lines[0]


def test_a_runs_caption_says_where_each_job_is_at_the_end() -> None:
    """The line under a timeline counts the jobs in each place at the end of the run, done
    included when a job got there: a run whose jobs were all worked said "schedule 0, pending 0,
    active 0, dead 0", as if they had gone nowhere, while its done lane showed them."""
    worked = summarize(run_scenario(load("promote-due.yml")))
    assert worked.endswith("at the end: schedule 0, pending 0, active 0, dead 0, done 4."), worked
    # A run in which no job is done names no done place (it draws no done lane).
    stuck = summarize(run_scenario(load("promote-due.yml"), {"processes": []}))
    assert stuck.endswith("at the end: schedule 4, pending 0, active 0, dead 0."), stuck
