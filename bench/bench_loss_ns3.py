"""The expected cost of random loss (model.expected_loss) against ns-3 with a RateErrorModel, over seeds.

For each point of a grid (RTT, loss rate, page, protocol), ns-3 (validation/harness.cc, TcpNewReno, no SACK,
the ns3 profile) runs the page once without loss and N times with independent packet loss on both
receiving devices (each run its own RngRun). The runs are stored in a JSON file (``--runs``), one page load
time per seed, and appended to on the next call, so the comparison with the model (``--compare``, no
ns-3 needed) can be redone after a model change, and more seeds added later. Seeds go round-robin over the
points in batches, so an interrupted run still has every point at about the same count.

Printed per point: the model's lossless page load time and ns-3's (they agree), the extra time over the
lossless run (model ``expected_with_loss.extra_ms`` vs ns-3's mean, with a 95 % confidence interval from the
t distribution of the seeds) and the total expected page load time; the error is ``(model - ns-3) /
ns-3``, and its 95 % interval is the ns-3 mean's interval carried through. A summary gives the median and
90th percentile of |error| per page, protocol and RTT, and says which points meet the goal (total expected
page load time within 15 % of ns-3's mean, or, where the interval is wider than that, the interval holding
the model's figure). Not a CI test: each seed-run takes 0.2-3 s; needs the ns3 package.

    .venv/bin/python bench/bench_loss_ns3.py --seeds 100 --jobs 2      # run (or extend) the grid
    .venv/bin/python bench/bench_loss_ns3.py --compare                 # the model against the stored runs
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from model.predict import predict
from model.scenario import Scenario, resolve

NS = 1e-6  # ms per ns
RUNS = Path(__file__).resolve().parent / "loss_ns3_runs.json"
PROTOCOLS = ["http10", "http10_parallel", "persistent", "pipelined", "getall"]
RTTS = [20.0, 100.0, 300.0]
RATES = [0.005, 0.01, 0.03]
PAGES: dict[str, dict[str, Any]] = {
    "1 object": {"object_count": 1, "object_size_bytes": 10_000},
    "10 objects": {"object_count": 10, "object_size_bytes": 10_000},
}
GOAL = 0.15  # total expected page load time within 15 % of ns-3's mean


def scenario(page: str, rtt: float, rate: float) -> Scenario:
    """The scenario of one grid point (6,000-byte HTML, 10 KB objects, 10 Mb/s, ns3 profile, IW 10)."""
    return Scenario.model_validate(
        {
            "network": {
                "rtt_ms": rtt,
                "bandwidth_bps": 10_000_000,
                "packet_overhead_bytes": 42,
                "loss_rate": rate,
            },
            "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 10},
            "protocols": PROTOCOLS,
            "page": PAGES[page],
        }
    )


def key(page: str, rtt: float, rate: float, protocol: str) -> str:
    return f"{page}|{rtt:g}|{rate:g}|{protocol}"


# ------------------------------------------------------------------------------------------------ ns-3

_sim: Any = None


def _run(job: tuple[str, float, float, str, int]) -> tuple[str, int, float]:
    """One ns-3 run (in a worker process): the page load time (ms) of a point at one seed (0: no loss)."""
    global _sim
    from validation.analyze import parse
    from validation.sim import Simulator, setup_text

    if _sim is None:
        _sim = Simulator()
        _sim.start()
    page, rtt, rate, protocol, seed = job
    s = scenario(page, rtt, rate)
    setup = setup_text(resolve(s), protocol)
    if seed > 0:
        setup = setup.replace(" sizes ", f" loss_rate {rate!r} seed {seed} rto_min_ms {s.tcp.rto_min_ms!r} sizes ", 1)
    trace = parse(_sim.run_trace(setup))
    ends = [end for _, _, _, end in trace.objects]
    if min(ends) < 0:
        raise RuntimeError(f"{protocol}: an object never completed (seed {seed})")
    return key(page, rtt, rate, protocol), seed, (max(ends) - trace.t0) * NS


def load(path: Path) -> dict[str, dict[str, float]]:
    return json.loads(path.read_text()) if path.exists() else {}


def simulate(path: Path, seeds: int, jobs: int, batch: int, grid: list[tuple[str, float, float, str]]) -> None:
    """Run ns-3 for every point up to ``seeds`` seeds (seed 0 is the lossless run), storing as it goes."""
    runs = load(path)
    todo: list[tuple[str, float, float, str, int]] = []
    for lo in range(0, seeds + 1, batch):
        for page, rtt, rate, protocol in grid:
            have = runs.get(key(page, rtt, rate, protocol), {})
            todo += [
                (page, rtt, rate, protocol, sd) for sd in range(lo, min(lo + batch, seeds + 1)) if str(sd) not in have
            ]
    print(f"{len(todo)} ns-3 runs to do with {jobs} workers", flush=True)
    t0 = time.perf_counter()
    with multiprocessing.Pool(jobs) as pool:
        for n, (k, seed, ms) in enumerate(pool.imap(_run, todo, chunksize=1), 1):
            runs.setdefault(k, {})[str(seed)] = ms
            if n % 50 == 0 or n == len(todo):
                path.write_text(json.dumps(runs, indent=0, sort_keys=True))
                print(f"{n}/{len(todo)} runs, {time.perf_counter() - t0:.0f} s", flush=True)


# ------------------------------------------------------------------------------------------- compare

T95 = {2: 12.71, 5: 2.776, 10: 2.262, 20: 2.093, 30: 2.045, 60: 2.0, 120: 1.98}


def t95(n: int) -> float:
    """Two-sided 95 % quantile of Student's t with ``n - 1`` degrees of freedom (tabled, stepwise)."""
    best = 1.96
    for m, t in sorted(T95.items(), reverse=True):
        if n - 1 <= m:
            best = t
    return best


def compare(path: Path, grid: list[tuple[str, float, float, str]], min_seeds: int) -> int:
    runs = load(path)
    rows: list[dict[str, Any]] = []
    models: dict[tuple[str, float, float], dict[str, Any]] = {}
    for page, rtt, rate, protocol in grid:
        got = runs.get(key(page, rtt, rate, protocol), {})
        lossy = [v for sd, v in got.items() if sd != "0"]
        if "0" not in got or len(lossy) < min_seeds:
            continue
        if (page, rtt, rate) not in models:
            models[(page, rtt, rate)] = {r["protocol"]: r for r in predict(scenario(page, rtt, rate))["results"]}
        m = models[(page, rtt, rate)][protocol]
        e = m["expected_with_loss"]
        n = len(lossy)
        mean = statistics.fmean(lossy)
        half = t95(n) * statistics.stdev(lossy) / math.sqrt(n)
        lossless = got["0"]
        ns_extra = mean - lossless
        err_extra = (e["extra_ms"] - ns_extra) / ns_extra
        err_total = (e["page_load_ms"] - mean) / mean
        lo, hi = mean - half, mean + half
        rows.append(
            {
                "page": page,
                "rtt": rtt,
                "p": rate,
                "protocol": protocol,
                "n": n,
                "lossless_model": m["page_load_ms"],
                "lossless_ns3": lossless,
                "extra_model": e["extra_ms"],
                "extra_ns3": ns_extra,
                "half": half,
                "err_extra": err_extra,
                "err_extra_lo": (e["extra_ms"] - (ns_extra + half)) / (ns_extra + half),
                "err_extra_hi": (e["extra_ms"] - (ns_extra - half)) / (ns_extra - half)
                if ns_extra > half
                else math.inf,
                "total_model": e["page_load_ms"],
                "total_ns3": mean,
                "err_total": err_total,
                "err_total_lo": (e["page_load_ms"] - hi) / hi,
                "err_total_hi": (e["page_load_ms"] - lo) / lo,
                "meets": abs(err_total) <= GOAL or lo <= e["page_load_ms"] <= hi,
                "within_ci": lo <= e["page_load_ms"] <= hi,
            }
        )
    print(
        "| page | RTT | p | protocol | seeds | model extra | ns-3 extra ± 95 % CI | error (95 % CI) "
        "| model total | ns-3 total | error (95 % CI) | goal |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['page']} | {r['rtt']:g} | {r['p']:g} | {r['protocol']} | {r['n']} | {r['extra_model']:.0f} "
            f"| {r['extra_ns3']:.0f} ± {r['half']:.0f} | {r['err_extra']:+.0%} ({r['err_extra_lo']:+.0%}, "
            f"{r['err_extra_hi']:+.0%}) | {r['total_model']:.0f} | {r['total_ns3']:.0f} | {r['err_total']:+.0%} "
            f"({r['err_total_lo']:+.0%}, {r['err_total_hi']:+.0%}) | {'yes' if r['meets'] else 'no'} |"
        )
    if not rows:
        print("no points with enough seeds")
        return 1
    bad = [r for r in rows if abs(r["lossless_model"] - r["lossless_ns3"]) > 0.01 * r["lossless_ns3"]]
    for r in bad:
        print(f"lossless differs: {r['page']} {r['rtt']} {r['protocol']} {r['lossless_model']} {r['lossless_ns3']}")

    def summary(name: str, sel: list[dict[str, Any]]) -> None:
        if not sel:
            return
        ex = sorted(abs(r["err_extra"]) for r in sel)
        tot = sorted(abs(r["err_total"]) for r in sel)
        signed = statistics.median(r["err_extra"] for r in sel)
        p90 = lambda v: v[min(len(v) - 1, math.ceil(0.9 * len(v)) - 1)]  # noqa: E731
        met = sum(r["meets"] for r in sel)
        print(
            f"| {name} | {len(sel)} | {signed:+.0%} | {statistics.median(ex):.0%} | {p90(ex):.0%} "
            f"| {statistics.median(tot):.0%} | {p90(tot):.0%} | {met}/{len(sel)} |"
        )

    print(
        "\n| points | n | median error, extra | median abs, extra | p90 abs, extra | median abs, total "
        "| p90 abs, total | meet goal |"
    )
    print("|---|---|---|---|---|---|---|---|")
    summary("all", rows)
    for page in PAGES:
        summary(page, [r for r in rows if r["page"] == page])
    for protocol in PROTOCOLS:
        summary(protocol, [r for r in rows if r["protocol"] == protocol])
    for rtt in RTTS:
        summary(f"RTT {rtt:g} ms", [r for r in rows if r["rtt"] == rtt])
    for rate in RATES:
        summary(f"p {rate:g}", [r for r in rows if r["p"] == rate])
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100, help="ns-3 runs with loss per point (default 100)")
    ap.add_argument("--jobs", type=int, default=2, help="ns-3 worker processes (default 2)")
    ap.add_argument("--batch", type=int, default=10, help="seeds per point per round (default 10)")
    ap.add_argument("--runs", type=Path, default=RUNS, help=f"stored runs (default {RUNS.name})")
    ap.add_argument("--rtts", type=float, nargs="+", default=RTTS, help="RTTs (ms)")
    ap.add_argument("--rates", type=float, nargs="+", default=RATES, help="loss rates")
    ap.add_argument("--pages", nargs="+", default=list(PAGES), choices=list(PAGES))
    ap.add_argument("--protocols", nargs="+", default=PROTOCOLS, choices=PROTOCOLS)
    ap.add_argument("--compare", action="store_true", help="only compare the model with the stored runs")
    ap.add_argument("--min-seeds", type=int, default=10, help="compare points with at least this many seeds")
    args = ap.parse_args()
    grid = list(itertools.product(args.pages, args.rtts, args.rates, args.protocols))
    if not args.compare:
        simulate(args.runs, args.seeds, args.jobs, args.batch, grid)
    return compare(args.runs, grid, args.min_seeds)


if __name__ == "__main__":
    raise SystemExit(main())
