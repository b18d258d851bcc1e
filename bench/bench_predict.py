"""Benchmark: how long one full prediction takes, on the native engine and on the Python engine.

    python bench/bench_predict.py [--runs N]

Prints, for the 43-object Microscape page (seed 004) with all seven protocols, lossless and at a loss rate of 1 %
(issue 29's goal: within 5 times the lossless time, so its goal is 5 times the lossless one's), and for a one-object page,
the median and 90th percentile of ``predict`` over N runs on each engine, beside the goal, with the
ratio measured/goal, the cost per packet the model schedules and the native engine's speed-up, and the
median CPU time of the same runs (this process's user + system time: other load on a shared machine
disturbs it less than the wall time the goals are stated in). The native engine (C++, latency_lab/engine/native)
runs in this process (``pip install -e .`` builds it); the same cases run in a child process on the Python
reference (``LATENCY_LAB_ENGINE=python``, :mod:`latency_lab._backend`; until 2026-11-29, issue 29, also on the
Python engine compiled by Cython). All figures come from this one run on this
machine; Python's garbage collector is paused while timing.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from latency_lab import ALL_PROTOCOLS, Scenario, engine_backend, predict, preset  # noqa: E402

GOALS_MS = {"microscape-43-objects": 2.0, "microscape-1%-loss": 10.0, "one-object": 0.2}


def scenarios() -> dict[str, Scenario]:
    microscape = preset("n97-wan").model_dump()
    microscape["protocols"] = list(ALL_PROTOCOLS)
    one = {"protocols": list(ALL_PROTOCOLS), "page": {"html_bytes": 6000, "object_bytes": []}}
    lossy = {**microscape, "network": {**microscape["network"], "loss_rate": 0.01}}
    return {
        "microscape-43-objects": Scenario.model_validate(microscape),
        "microscape-1%-loss": Scenario.model_validate(lossy),
        "one-object": Scenario.model_validate(one),
    }


def measure(s: Scenario, runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of ``runs`` predictions of ``s``."""
    predict(s)  # warm up
    wall, cpu = [], []
    gc.disable()
    try:
        for _ in range(runs):
            c0, t0 = time.process_time(), time.perf_counter()
            predict(s)
            t1, c1 = time.perf_counter(), time.process_time()
            wall.append((t1 - t0) * 1000)
            cpu.append((c1 - c0) * 1000)
    finally:
        gc.enable()
    return wall, cpu


def engine_name() -> str:
    """This process's engine: ``native`` (C++) or ``python``."""
    return engine_backend()


def figures(runs: int) -> dict[str, Any]:
    """This process's engine over every case: ``{"engine", "cases": {name: {median, p90, packets}}}``."""
    out: dict[str, Any] = {"engine": engine_name(), "cases": {}}
    for name, s in scenarios().items():
        wall, cpu = measure(s, runs)
        times = sorted(wall)
        packets = sum(r["counts"]["packets"] for r in predict(s)["results"])
        out["cases"][name] = {
            "median": statistics.median(times),
            "p90": times[int(0.9 * (len(times) - 1))],
            "cpu_median": statistics.median(cpu),
            "packets": packets,
        }
    return out


def reference(runs: int, **env_vars: str) -> dict[str, Any]:
    """The same figures from another engine, in a child process with ``env_vars`` set: ``LATENCY_LAB_ENGINE=python``
    for the Python reference."""
    env = {**os.environ, **env_vars}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--runs", str(runs), "--json"]
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--json", action="store_true", help="print this process's figures as JSON (one engine)")
    args = ap.parse_args(argv)
    if args.json:
        print(json.dumps(figures(args.runs)))
        return 0
    rows = [figures(args.runs)]
    if rows[0]["engine"] == "native":
        rows.append(reference(args.runs, LATENCY_LAB_ENGINE="python"))
    else:
        print("the native engine is not built (pip install -e .): this engine only")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, load average "
        f"{load}, {args.runs} runs each, garbage collector paused"
    )
    head = f"{'case':<24}{'engine':>10}{'median ms':>11}{'p90 ms':>9}{'goal ms':>9}{'median/goal':>13}"
    print(head + f"{'packets':>9}{'us/packet':>11}{'cpu median ms':>15}")
    for name, goal in GOALS_MS.items():
        for row in rows:
            c = row["cases"][name]
            med = c["median"]
            print(
                f"{name:<24}{row['engine']:>10}{med:>11.3f}{c['p90']:>9.3f}{goal:>9.2f}{med / goal:>13.2f}"
                f"{c['packets']:>9}{1000 * med / c['packets']:>11.2f}{c['cpu_median']:>15.3f}"
            )
    for row in rows:  # issue 29's goal: loss within 5 times the lossless time
        lossy, lossless = row["cases"]["microscape-1%-loss"], row["cases"]["microscape-43-objects"]
        print(
            f"1% loss over lossless, Microscape, {row['engine']} engine: {lossy['median'] / lossless['median']:.2f}x "
            f"(CPU time: {lossy['cpu_median'] / lossless['cpu_median']:.2f}x)"
        )
    for other in rows[1:]:
        for name in GOALS_MS:
            fast, slow = rows[0]["cases"][name]["median"], other["cases"][name]["median"]
            cpu = other["cases"][name]["cpu_median"] / rows[0]["cases"][name]["cpu_median"]
            print(
                f"speed-up of the native engine over the {other['engine']} one, {name}: {slow / fast:.2f}x "
                f"(CPU time: {cpu:.2f}x)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
