"""Benchmark: how long one full five-protocol prediction takes.

    python bench/bench_predict.py [--runs N]

Prints, for the 43-object Microscape page (seed 004) and for a one-object page, the median and 90th
percentile of ``predict`` over N runs, each figure beside its goal and the ratio measured/goal, and
the cost per packet the model schedules. All figures come from this one run on this machine.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model import ALL_PROTOCOLS, Scenario, predict, preset

GOALS_MS = {"microscape-43-objects": 2.0, "one-object": 0.2}


def scenarios() -> dict[str, Scenario]:
    microscape = preset("n97-wan").model_dump()
    microscape["protocols"] = list(ALL_PROTOCOLS)
    one = {"protocols": list(ALL_PROTOCOLS), "page": {"html_bytes": 6000, "object_bytes": []}}
    return {
        "microscape-43-objects": Scenario.model_validate(microscape),
        "one-object": Scenario.model_validate(one),
    }


def measure(s: Scenario, runs: int) -> list[float]:
    predict(s)  # warm up
    times = []
    gc.disable()
    try:
        for _ in range(runs):
            t0 = time.perf_counter()
            predict(s)
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        gc.enable()
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args(argv)
    print(f"{'case':<24}{'median ms':>10}{'p90 ms':>9}{'goal ms':>9}{'median/goal':>13}{'packets':>9}{'us/packet':>11}")
    for name, s in scenarios().items():
        times = sorted(measure(s, args.runs))
        med = statistics.median(times)
        p90 = times[int(0.9 * (len(times) - 1))]
        packets = sum(r["counts"]["packets"] for r in predict(s)["results"])
        goal = GOALS_MS[name]
        print(
            f"{name:<24}{med:>10.3f}{p90:>9.3f}{goal:>9.2f}{med / goal:>13.2f}{packets:>9}{1000 * med / packets:>11.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
