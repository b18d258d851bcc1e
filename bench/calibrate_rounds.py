"""Calibrate what a window round costs a sweep point, in the native engine's units (limits.NATIVE_WINDOW_ROUND_UNITS).

A receive window smaller than a response or a request cuts it into rounds (``limits.window_rounds``): each a window
event and a stall on the critical path, walked by the sweep's summary of the run (``latency_lab.analysis.native.summary``)
at about 20 µs of CPU, where a response piece costs about 1.2 µs (RUN_COSTS' ``plain``). The calculator's sweep plot
and its follow-up requests price their points in the native engine's units (``limits.run_cost``: a plain unit about
1.2 µs), so a round is priced there at its CPU over a plain unit's.

This script draws random one-protocol lossless pages with small windows (tiny objects and large requests, or large
responses), runs each sweep point's work cold (``latency_lab.analysis.predict.summaries``, the model's caches emptied
first) and prints, per run, the µs of CPU beyond ``--unit-us`` a unit of the rest of its work (pieces, objects,
requests: ``protocols_base_units`` without rounds) per round, and the least-squares line over all of them.

    python bench/calibrate_rounds.py --runs 120 --seed 3
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.calibrate_costs import forget
from latency_lab import ALL_PROTOCOLS, Scenario, engine_backend
from latency_lab.analysis.predict import summaries
from latency_lab.scenario import limits


def draw(rng: random.Random) -> Scenario | None:
    """A random lossless one-protocol page with a window small enough to cut its requests or responses into rounds."""
    protocol = rng.choice(list(ALL_PROTOCOLS))
    window = int(math.exp(rng.uniform(math.log(1000), math.log(20_000))))
    doc: dict[str, Any] = {"protocols": [protocol], "tcp": {"receive_window_bytes": window}}
    if rng.random() < 0.5:  # tiny objects, large requests
        count = rng.randint(1, 300)
        req = int(math.exp(rng.uniform(math.log(2000), math.log(60_000))))
        doc["page"] = {"object_count": count, "object_size_bytes": rng.randint(1, 50), "html_bytes": 500}
        doc["http"] = {"request_bytes": req}
        doc["multiplex"] = {"request_bytes": req}
    else:  # large responses
        doc["page"] = {
            "object_count": rng.randint(0, 30),
            "object_size_bytes": int(math.exp(rng.uniform(math.log(2000), math.log(400_000)))),
        }
    try:
        s = Scenario.model_validate(doc)
    except ValueError:
        return None
    rounds = limits.window_rounds(s, protocol)
    if rounds == 0 or limits.base_units(s, protocol) > 80_000:
        return None
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--unit-us", type=float, default=1.19, help="µs of CPU a plain unit (RUN_COSTS' plain, median)")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    print(
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, engine {engine_backend()}, load {os.getloadavg()}"
    )
    rows: list[tuple[int, int, float]] = []  # rest units, rounds, CPU µs
    while len(rows) < args.runs:
        s = draw(rng)
        if s is None:
            continue
        protocol = s.protocols[0]
        rest = limits.protocols_base_units(s, [protocol], with_rounds=False)[protocol]
        rounds = limits.window_rounds(s, protocol) * limits.page_loads(s) * limits.legs(s)
        best = math.inf
        for _ in range(2):
            forget()
            with limits.budget(10**12):
                c0 = time.process_time()
                summaries(s)
                best = min(best, time.process_time() - c0)
        rows.append((rest, rounds, best * 1e6))
    per_round = sorted((us - args.unit_us * rest) / rounds for rest, rounds, us in rows)
    q = statistics.quantiles(per_round, n=10, method="inclusive")
    print(
        f"{len(rows)} runs: µs a round beyond {args.unit_us} a unit of the rest: median {statistics.median(per_round):.1f}"
    )
    print(f"  80th percentile {q[7]:.1f}, 90th {q[8]:.1f}, max {per_round[-1]:.1f}")
    # least squares without intercept: us = a rest + b rounds
    sxx = sum(r * r for r, _, _ in rows)
    syy = sum(n * n for _, n, _ in rows)
    sxy = sum(r * n for r, n, _ in rows)
    sxu = sum(r * u for r, _, u in rows)
    syu = sum(n * u for _, n, u in rows)
    det = sxx * syy - sxy * sxy
    a = (sxu * syy - syu * sxy) / det
    b = (syu * sxx - sxu * sxy) / det
    print(f"  least squares: {a:.2f} µs a unit of the rest + {b:.1f} µs a round")
    print(f"  in plain units of {args.unit_us} µs: {statistics.median(per_round) / args.unit_us:.1f} a round (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
