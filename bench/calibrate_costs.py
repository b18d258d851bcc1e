"""Calibrate the work estimate's costs (latency_lab/scenario/limits.py): CPU per work unit, lossless and lossy, and steps.

The work estimate refuses a request before anything runs when its work units pass a documented limit
(``max_work_units``); the step budget inside the engine is the backstop. For the estimate to refuse everything the
budget would stop (so a refusal costs nothing) and to accept only what answers in time, a run's units must follow
both its CPU time and the steps the budget charges it. A lossless run on the native engine costs a few µs a unit; a
run the Python engine takes (a lossy one, whose loss analysis also reads the schedule, or a split-proxy path) costs
several times that per unit, plus a fixed part per protocol run. So:

    run units = base units x factor + fixed        (limits.run_units; base units: limits.base_units)

with ``factor`` and ``fixed`` per kind of run (:data:`~latency_lab.scenario.limits.RUN_COSTS`: ``plain``, ``loss``;
until 2026-11-29 also ``fallback``, a split-proxy run the native engine handed to the Python one). This script draws random scenarios of each kind (pages of 0 to 999 objects, 1 to 10 MB
HTML, any protocol), runs each protocol alone in this process the way a request does (``latency_lab.predict`` inside a
request's step budget) and reports, per kind:

- µs of CPU per base unit (median and maximum) and the fixed µs per run (a least-squares line over the runs);
- the steps the budget charged per base unit beyond what it charges every run of the kind once (:data:`FIXED_STEPS`;
  maximum): the estimate must charge at least ``steps / (MAX_ENGINE_STEPS / MAX_WORK_UNITS)`` units per base unit
  beyond its fixed term, or the budget could stop a request the estimate accepted;
- the factor and fixed term those imply for a unit of ``--unit-us`` µs (default: :data:`UNIT_US`, the time
  :data:`~latency_lab.scenario.limits.MAX_WORK_UNITS` units may take, over the count), beside the ones in use.

    python bench/calibrate_costs.py                 # 60 scenarios a kind, about a minute
    python bench/calibrate_costs.py --runs 200 --seed 3

Re-run it when the engine's costs change (a lossy run moved to the native engine, say) and copy the suggested
constants into ``RUN_COSTS``. CPU times are this process's (``time.process_time``), so a busy machine slows them
less than wall time; the load average is printed with them.
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

from latency_lab import ALL_PROTOCOLS, Scenario, engine_backend, predict
from latency_lab.scenario import limits

#: CPU µs one work unit stands for: 0.6 s for MAX_WORK_UNITS, which leaves the app's part (parsing, the answer's
#: JSON, rendering) and a busy machine room under the one-second promise.
UNIT_US = 0.6e6 / limits.MAX_WORK_UNITS
KINDS = ("plain", "loss")
#: Steps the budget charges every run of a kind once, whatever its size (a lossy run on the native engine: the loss
#: analysis's fixed part), so the estimate's fixed term covers them.
FIXED_STEPS = {"loss": limits.NATIVE_LOSS_RUN_STEPS}


def draw(rng: random.Random, kind: str) -> Scenario | None:
    """A random one-protocol scenario of ``kind``: ``plain`` (lossless, either path) or ``loss`` (loss rate over 0,
    either path)."""
    count = int(math.exp(rng.uniform(0, math.log(1000)))) - 1
    size = int(math.exp(rng.uniform(math.log(100), math.log(200_000))))
    html = int(math.exp(rng.uniform(math.log(500), math.log(2_000_000)))) if rng.random() < 0.8 else 6000
    protocols = list(ALL_PROTOCOLS)
    doc: dict[str, Any] = {
        "protocols": [rng.choice(protocols)],
        "page": {"html_bytes": html, "object_count": count, "object_size_bytes": size},
        "network": {"rtt_ms": round(math.exp(rng.uniform(0, math.log(1000))), 1)},
    }
    if kind == "loss":
        doc["network"]["loss_rate"] = round(math.exp(rng.uniform(math.log(1e-4), math.log(0.2))), 5)
    if rng.random() < 0.3:
        doc["proxy"] = {"architecture": "split_proxy"}
        doc["protocols"] = [rng.choice(["http10", "http10_parallel", "persistent", "pipelined"])]
    try:
        s = Scenario.model_validate(doc)
    except ValueError:
        return None
    if limits.run_kind(s) != kind:
        return None
    if limits.base_units(s, s.protocols[0]) > 40_000:
        return None
    return s


#: Modules whose caches a server fills once and keeps (the field descriptions problems are written from, the
#: gallery's seed studies): :func:`forget` leaves them warm, as every request after the first finds them.
WARM_FOREVER = frozenset({"latency_lab.scenario.errors", "latency_lab.studies.experiments"})


def forget() -> None:
    """Empty the caches of the model's functions keyed by a request's numbers (``functools.lru_cache``: the loss
    analysis keeps its periods by loss rate and windows, its asks by RTT and RTO too), so that a timing is what a
    request meeting these numbers for the first time costs; those a server keeps warm for good
    (:data:`WARM_FOREVER`) stay. Best of two without this timed the second run from the first one's caches: a lossy
    run of a new RTT costs 5 to 8 times that (n97-wan at 1 %: 29 ms against 4.6 ms, 2026-11-28)."""
    for name, module in list(sys.modules.items()):
        if (name == "latency_lab" or name.startswith("latency_lab.")) and name not in WARM_FOREVER:
            for obj in list(vars(module).values()):
                clear = getattr(obj, "cache_clear", None)
                if callable(clear):
                    clear()


def measure(s: Scenario) -> tuple[float, int]:
    """CPU µs (best of 2, each from empty caches: :func:`forget`) and budget steps of predicting ``s`` as one
    request does."""
    best = float("inf")
    steps = 0
    for _ in range(2):
        forget()
        with limits.budget(10**12):
            start = limits.allowance()
            c0 = time.process_time()
            predict(s)
            took = time.process_time() - c0
            steps = start - limits.allowance()
        best = min(best, took)
    return best * 1e6, steps


def fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares ``y = a x + b``."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    a = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    return a, my - a * mx


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=60, help="scenarios per kind (default 60)")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--unit-us", type=float, default=UNIT_US, help=f"µs a unit stands for (default {UNIT_US:.1f})")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"work estimate calibration, {now}, load average {load} ({os.cpu_count()} cores), engine {engine_backend()}")
    steps_per_unit_allowed = limits.MAX_ENGINE_STEPS / limits.MAX_WORK_UNITS
    print(
        f"a unit stands for {args.unit_us:.1f} us of CPU; the step budget allows {steps_per_unit_allowed:.1f} steps "
        f"per unit (max_engine_steps {limits.MAX_ENGINE_STEPS:,} / max_work_units {limits.MAX_WORK_UNITS:,})"
    )
    print(
        f"{'kind':<7}{'runs':>5}{'us/unit med':>13}{'p80':>7}{'max':>8}{'fixed us':>10}{'steps/unit max':>16}"
        f"{'factor':>8}{'fixed':>7}   in use"
    )
    for kind in KINDS:
        rows: list[tuple[int, float, int]] = []
        while len(rows) < args.runs:
            s = draw(rng, kind)
            if s is None:
                continue
            base = limits.base_units(s, s.protocols[0])
            us, steps = measure(s)
            rows.append((base, us, steps))
        _, b = fit([float(u) for u, _, _ in rows], [us for _, us, _ in rows])
        b = max(b, 0.0)
        # the fixed part a run, in units: the time line's, or what the budget charges every run of the kind once
        # (a lossy native run: limits.NATIVE_LOSS_RUN_STEPS), whichever is more
        fixed = max(b / args.unit_us, FIXED_STEPS.get(kind, 0) / steps_per_unit_allowed)
        per = [max(us - b, 0.0) / u for u, us, _ in rows]
        step_per = max(max(st - fixed * steps_per_unit_allowed, 0.0) / u for u, _, st in rows)
        # the factor: the slowest run's µs per unit beyond the fixed part (80th percentile against outliers of a busy
        # machine), and never fewer than the budget's steps need beyond the fixed part
        slow = sorted(per)[int(0.8 * (len(per) - 1))]
        factor = max(slow / args.unit_us, step_per / steps_per_unit_allowed)
        use = limits.RUN_COSTS[kind]
        print(
            f"{kind:<7}{len(rows):>5}{statistics.median(per):>13.2f}{slow:>7.2f}{max(per):>8.2f}{b:>10.0f}"
            f"{step_per:>16.1f}"
            f"{factor:>8.2f}{fixed:>7.0f}   factor {use[0]}, fixed {use[1]}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
