"""What a lossy run's step costs on the native engine against a lossless one (limits.NATIVE_LOSS_STEP_COST).

Draws random one-protocol pages (0 to 999 objects, any protocol, direct path), predicts each without loss and
with a loss rate drawn from 1e-4 to 0.2 inside a request's step budget, CPU best of two, and prints the ratio of
the lossy run's CPU to the lossless one's (median, 80th percentile, maximum, and the maximum over the runs of more
than 3,000 steps, where the budget matters) beside the steps the budget charged each::

    python bench/loss_step_cost.py            # 60 pages, about a minute
    python bench/loss_step_cost.py --runs 200 --seed 3
    python bench/loss_step_cost.py --every-field   # every other field drawn too (tests/latency_lab/scenarios.py)

With ``--every-field`` each page's other sections (TCP profile, idle restart, windows, delayed ACKs, Nagle, TLS, DNS,
h2/h3 fields, split proxies, sessions, asymmetric links) come from the differential test's draw of every field
(``every_feature``) and its objects have unequal sizes (``page.object_bytes``, each within 1/8 to 8 times the drawn
size): the plain draw kept the defaults, and missed a persistent page of 368 unequal objects with the window kept
across idle periods whose loss analysis cost 38 times its lossless run (bench/cases/lossy_keep_368.json, 2026-11-29).

Each timing starts from empty caches (``bench.calibrate_costs.forget``): a request that meets a new loss rate, RTT or
window pays the loss analysis's periods in full, and a best of two whose second run met the first one's caches
measured 2.5 where the cold ratio is 25 (2026-11-28). It also fits lossy CPU against lossless steps (a part a step
and a part a run: the run's part leads).

A lossy native step is charged ``NATIVE_LOSS_STEP_COST`` in all; it should be at least the ratio on large runs.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import random
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.calibrate_costs import fit, measure  # CPU best of two and the steps charged, as one request runs
from latency_lab import ALL_PROTOCOLS, Scenario, engine_backend
from latency_lab.analysis import native
from latency_lab.scenario import limits
from tests.latency_lab.scenarios import every_feature


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--every-field", action="store_true", help="draw every other field too, objects of unequal sizes"
    )
    args = parser.parse_args(argv)
    if not native.available():
        print("the native engine is not built (pip install -e .)", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    rows: list[tuple[int, float, float, int]] = []  # lossless steps, lossless µs, lossy µs, lossy charged steps
    while len(rows) < args.runs:
        count = int(math.exp(rng.uniform(0, math.log(1000)))) - 1
        size = int(math.exp(rng.uniform(math.log(100), math.log(200_000))))
        html = int(math.exp(rng.uniform(math.log(500), math.log(2_000_000)))) if rng.random() < 0.8 else 6000
        doc: dict[str, Any] = {
            "protocols": [rng.choice(list(ALL_PROTOCOLS))],
            "page": {"html_bytes": html, "object_count": count, "object_size_bytes": size},
            "network": {"rtt_ms": round(math.exp(rng.uniform(0, math.log(1000))), 1)},
        }
        if args.every_field:
            drawn = every_feature(1, rng.randrange(2**31))[0]
            sizes = [max(1, int(size * math.exp(rng.uniform(-math.log(8), math.log(8))))) for _ in range(count)]
            drawn["protocols"] = [rng.choice(drawn["protocols"])]
            drawn["page"] = {"html_bytes": html, "object_bytes": sizes}
            drawn["network"] = {**drawn.get("network", {}), "loss_rate": 0.0, "rtt_ms": doc["network"]["rtt_ms"]}
            doc = drawn
        try:
            lossless = Scenario.model_validate(doc)
            doc["network"]["loss_rate"] = round(math.exp(rng.uniform(math.log(1e-4), math.log(0.2))), 5)
            lossy = Scenario.model_validate(doc)
        except ValueError:
            continue
        if limits.base_units(lossless, lossless.protocols[0]) > 40_000:
            continue
        (us0, steps0), (us1, steps1) = measure(lossless), measure(lossy)
        rows.append((steps0, us0, us1, steps1))
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"lossy against lossless runs, {now}, load average {load}, engine {engine_backend()} with native")
    ratio = sorted(us1 / us0 for _, us0, us1, _ in rows)
    large = [us1 / us0 for steps0, us0, us1, _ in rows if steps0 > 3000]
    p80 = ratio[int(0.8 * (len(ratio) - 1))]
    print(
        f"{len(rows)} pages: CPU lossy/lossless median {statistics.median(ratio):.2f}, p80 {p80:.2f}, max {ratio[-1]:.2f}"
    )
    print(f"{len(large)} runs over 3,000 steps: max {max(large, default=0.0):.2f}")
    a, b = fit([float(steps0) for steps0, _, _, _ in rows], [us1 for _, _, us1, _ in rows])
    per_step = statistics.median(us0 / steps0 for steps0, us0, _, _ in rows if steps0)
    worst = max(us1 - a * steps0 for steps0, _, us1, _ in rows)
    print(
        f"lossy CPU = {a:.2f} µs a lossless step + {b:.0f} µs a run (least squares; at most {worst:.0f} µs a run above"
        f" the slope); a lossless step {per_step:.3f} µs (median): lossy = {a / per_step:.1f} steps a step +"
        f" {worst / per_step:,.0f} steps a run"
    )
    charged = {round(steps1 / steps0, 3) for steps0, _, _, steps1 in rows}
    print(f"steps charged lossy/lossless: {sorted(charged)} (NATIVE_LOSS_STEP_COST {limits.NATIVE_LOSS_STEP_COST})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
