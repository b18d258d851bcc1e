"""Bulk transfers under random loss: one response of 1 to 3,000 segments, the model against ns-3's mean over seeds.

Issue 16, item 1. The loss grid (:mod:`validation.loss`) has pages of at most 11 short objects; here one
connection carries one response of ``d`` full segments (:func:`scenario`: ``html_bytes = d MSS`` less the
response header, no embedded objects, http10), ``d`` from 1 to 3,000, so the transfers reach the regime where
several losses fall in one transfer and TCP settles into its AIMD steady state. The grid (:func:`grid`):
``d`` in :data:`SEGMENTS`, loss rate in :data:`RATES`, initial window 1 and 10; RTT 100 ms, 10 Mb/s, MSS 1460,
the ns3 profile (TcpNewReno without SACK, delayed ACK every 2 segments or 200 ms, RTO min 1 s), 42 bytes a
packet. ns-3 runs each point once without loss (seed 0) and once per seed with a per-packet
``RateErrorModel`` on both receiving devices, through :func:`validation.loss`'s setup keys.

Beside the model and ns-3 the report puts two closed forms from the literature for the same transfer
(:func:`references`): Cardwell, Savage & Anderson 2000 ("Modeling TCP latency", eq. (17): handshake, slow start
to the first loss, its recovery, the rest at Padhye's rate, the delayed ACK) and Padhye, Firoiu, Towsley &
Kurose 1998's steady state alone (eq. (31): ``d / B(p)`` after the handshake and the request), both from
:mod:`latency_lab.mechanisms.loss`.

Runs are kept as ``{key: {seed: page load time (ms)}}`` in ``bench/bulk_loss_ns3_runs.json``
(:data:`RUNS`); ``python -m validation bulk`` runs the missing seeds and writes ``docs/validation/bulk_loss.md``
(``--compare``: from the stored runs alone). The CI guard (``tests/validation/test_bulk_loss_ci.py``) runs
:func:`ci_points` at :data:`CI_SEEDS` live.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from latency_lab.analysis.predict import predict
from latency_lab.mechanisms import loss as closed
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario
from validation.loss import GOAL, Runs, load, lossy_setup, mean_interval, traced_load_ms
from validation.loss import run_points as loss_runs

if TYPE_CHECKING:
    from validation.sim import Simulator

REPO = Path(__file__).resolve().parent.parent
#: The stored runs of the bulk grid (appended to by :func:`simulate`).
RUNS = REPO / "bench" / "bulk_loss_ns3_runs.json"
SEGMENTS = [1, 3, 10, 30, 100, 300, 1000, 3000]
RATES = [0.005, 0.01, 0.02, 0.03, 0.05]
WINDOWS = [1, 10]
RTT_MS = 100.0
BANDWIDTH_BPS = 10_000_000
MSS = 1460
PROTOCOL = "http10"
#: The lossless run (seed 0) and the model's page_load_ms agree within this (relative).
LOSSLESS_TOLERANCE = 1e-4
#: The CI guard's seeds with loss (seed 0, no loss, runs too).
CI_SEEDS = range(1, 41)


class Point(NamedTuple):
    """One point of the bulk grid."""

    segments: int  # full segments of the response (header included)
    rate: float  # loss probability of every packet, each direction
    iw: int  # initial window (segments)

    @property
    def key(self) -> str:
        return f"bulk|{self.segments}|{self.rate:g}|iw{self.iw}"


def grid(
    segments: Iterable[int] = SEGMENTS, rates: Iterable[float] = RATES, windows: Iterable[int] = WINDOWS
) -> list[Point]:
    """The points of the grid (80 by default), initial window first, then size, then loss rate."""
    return [Point(d, p, iw) for iw, d, p in product(list(windows), list(segments), list(rates))]


def ci_points() -> list[Point]:
    """The CI guard's subset, fixed by rule: the largest transfer at every loss rate (alternating the
    initial window), 100 segments at the two ends of the loss rates, one with each window, and 300 segments at
    p = 0.03 with the larger window (the transient after a loss late in slow start, issue 16's worst miss before
    the periods' losses were independent): 8 points."""
    big = [Point(SEGMENTS[-1], p, WINDOWS[i % 2]) for i, p in enumerate(RATES)]
    return [*big, Point(100, RATES[0], WINDOWS[1]), Point(100, RATES[-1], WINDOWS[0]), Point(300, 0.03, WINDOWS[-1])]


def scenario(segments: int, rate: float, iw: int) -> Scenario:
    """One bulk point: an HTML response of ``segments`` full segments (header included), nothing embedded."""
    return Scenario.model_validate(
        {
            "protocols": [PROTOCOL],
            "network": {
                "rtt_ms": RTT_MS,
                "bandwidth_bps": BANDWIDTH_BPS,
                "packet_overhead_bytes": 42,
                "loss_rate": rate,
            },
            "tcp": {"profile": "ns3", "mss_bytes": MSS, "initial_window_segments": iw},
            "page": {"html_bytes": segments * MSS - 200, "object_bytes": []},
        }
    )


# ------------------------------------------------------------------------------------------------ ns-3


def setup(point: Point, seed: int) -> str:
    """The harness's setup text for a point at one seed (0: no loss)."""
    return lossy_setup(scenario(*point), PROTOCOL, point.rate, seed)


def run_seed(sim: Simulator, point: Point, seed: int) -> float:
    """One ns-3 run: the page load time (ms, T0 to the response's last byte) of a point at one seed."""
    return traced_load_ms(sim, setup(point, seed), f"{point} (seed {seed})")


def run_points(sim: Simulator, points: Iterable[Point], seeds: Iterable[int], runs: Runs | None = None) -> Runs:
    """Run every point at seed 0 (no loss) and at each of ``seeds`` through one simulator, into ``runs``
    (:func:`validation.loss.run_points` with this module's :func:`run_seed`)."""
    return loss_runs(sim, points, seeds, runs, run_seed)


_sim: Any = None


def _run(job: tuple[int, float, int, int]) -> tuple[str, int, float]:
    """:func:`run_seed` in a worker process (of :func:`simulate`), which starts its own ns-3 once."""
    global _sim
    from validation.sim import Simulator

    if _sim is None:
        _sim = Simulator()
        _sim.start()
    d, rate, iw, seed = job
    p = Point(d, rate, iw)
    return p.key, seed, run_seed(_sim, p, seed)


def simulate(
    path: Path, seeds: int, jobs: int, batch: int, points: Sequence[Point], log: Callable[[str], None] = print
) -> Runs:
    """Run ns-3 for every point up to ``seeds`` seeds (seed 0 without loss), storing as it goes.

    Seeds already in ``path`` are not run again; round-robin over the points in batches of ``batch`` seeds, so
    an interrupted run leaves every point at about the same count; ``path`` is written every 50 runs."""
    runs = load(path)
    todo: list[tuple[int, float, int, int]] = []
    for lo in range(0, seeds + 1, batch):
        for pt in points:
            have = runs.get(pt.key, {})
            todo += [(*pt, sd) for sd in range(lo, min(lo + batch, seeds + 1)) if str(sd) not in have]
    log(f"{len(todo)} ns-3 runs to do with {jobs} workers")
    if not todo:
        return runs
    t0 = time.perf_counter()
    with multiprocessing.Pool(jobs) as pool:
        for n, (k, seed, ms) in enumerate(pool.imap_unordered(_run, todo, chunksize=1), 1):
            runs.setdefault(k, {})[str(seed)] = ms
            if n % 50 == 0 or n == len(todo):
                path.write_text(json.dumps(runs, indent=0, sort_keys=True))
                log(f"{n}/{len(todo)} runs, {time.perf_counter() - t0:.0f} s")
    return runs


# ------------------------------------------------------------------------------------------- compare


def references(point: Point) -> tuple[float, float]:
    """Cardwell et al. 2000's and Padhye et al. 1998's expected page load time at a point (ms), from the same
    numbers as the model (:func:`latency_lab.scenario.params.resolve`): RTT the path's propagation, ``T_0`` the
    model's RTO, ``b`` the delayed-ACK count, ``W_max`` the receive window in segments.

    Cardwell: :func:`latency_lab.mechanisms.loss.cardwell_latency_ms` for ``d`` segments from the initial window,
    its ``E[T_delack]`` the delayed-ACK timer where the initial window is one segment (the client delays the
    ACK of the lone first segment; with ten, the second segment completes the pair at once), plus the request's
    serialization. Padhye: the expected handshake, one RTT for the request, then ``d / B(p)`` (eq. (31),
    :func:`latency_lab.mechanisms.loss.steady_throughput`): the steady state from the first segment on."""
    p = resolve(scenario(*point))
    rtt = p.d_up + p.d_down
    b = max(p.dack_segments, 1)
    w_max = p.rwnd / p.mss
    delack = p.dack_ms if point.iw == 1 else 0.0
    cardwell = closed.cardwell_latency_ms(point.rate, point.segments, rtt, p.rto_ms, b, point.iw, w_max, delack)
    rate = closed.steady_throughput(point.rate, rtt, p.rto_ms, b, w_max)
    padhye = 2 * rtt + closed.handshake_extra_ms(point.rate) + point.segments / rate
    return cardwell, padhye


@dataclass(frozen=True)
class PointResult:
    """The model, ns-3 and the two references at one point (times in ms)."""

    point: Point
    n: int  # seeds with loss
    lossless_model: float
    lossless_ns3: float
    model: float  # expected_with_loss.page_load_ms
    ns3: float  # ns-3's mean over the seeds
    half: float  # half-width of the 95 % interval of ns-3's mean
    cardwell: float
    padhye: float

    def error(self, value: float) -> float:
        """``(value - ns-3) / ns-3``."""
        return (value - self.ns3) / self.ns3

    def meets(self, value: float) -> bool:
        """Within :data:`GOAL` of ns-3's mean, or inside its 95 % interval."""
        return abs(self.error(value)) <= GOAL or abs(value - self.ns3) <= self.half

    @property
    def lossless_error(self) -> float:
        return (self.lossless_model - self.lossless_ns3) / self.lossless_ns3


def results(
    runs: Runs, points: Iterable[Point], min_seeds: int = 10, seeds: Iterable[int] | None = None
) -> list[PointResult]:
    """The model and the references against the runs at every point with a lossless run and enough seeds."""
    keep = None if seeds is None else {str(s) for s in seeds}
    rows = []
    for pt in points:
        got = runs.get(pt.key, {})
        lossy = [v for sd, v in got.items() if sd != "0" and (keep is None or sd in keep)]
        if "0" not in got or len(lossy) < max(min_seeds, 2):
            continue
        mean, half = mean_interval(lossy)
        r = predict(scenario(*pt))["results"][0]
        cardwell, padhye = references(pt)
        rows.append(
            PointResult(
                pt,
                len(lossy),
                r["page_load_ms"],
                got["0"],
                r["expected_with_loss"]["page_load_ms"],
                mean,
                half,
                cardwell,
                padhye,
            )
        )
    return rows


HEADER = (
    "| IW | segments | p | seeds | ns-3 mean ± 95 % CI (ms) | model (ms) | error | Cardwell 2000 | error "
    "| Padhye 1998 | error | model meets |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def line(r: PointResult) -> str:
    """One row of the table (:data:`HEADER`)."""
    return (
        f"| {r.point.iw} | {r.point.segments:,} | {r.point.rate:g} | {r.n} | {r.ns3:,.0f} ± {r.half:,.0f} "
        f"| {r.model:,.0f} | {r.error(r.model):+.1%} | {r.cardwell:,.0f} | {r.error(r.cardwell):+.1%} "
        f"| {r.padhye:,.0f} | {r.error(r.padhye):+.1%} | {'yes' if r.meets(r.model) else 'no'} |"
    )


def table(rows: Sequence[PointResult]) -> str:
    return "\n".join([HEADER, *(line(r) for r in rows)])


def _share(rows: Sequence[PointResult], pick: Callable[[PointResult], float]) -> str:
    return f"{sum(r.meets(pick(r)) for r in rows)} of {len(rows)}"


def report(rows: Sequence[PointResult], ci_rows: Sequence[PointResult] = ()) -> str:
    """The markdown report (``docs/validation/bulk_loss.md``): the model, ns-3 and the two references per point."""
    worst = max((abs(r.lossless_error) for r in rows), default=0.0)
    counts = sorted({r.n for r in rows})
    seeds = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    lines = [
        "# Bulk transfers under random loss: the model against ns-3, Cardwell 2000 and Padhye 1998",
        "",
        "Written by `python -m validation bulk` (`validation/bulk_loss.py`) from the ns-3 runs stored in "
        "`bench/bulk_loss_ns3_runs.json`; `--compare` writes it again from them without ns-3. Issue 16, item 1.",
        "",
        f"- Grid ({len(rows)} points): one HTTP/1.0 response of 1 to 3,000 full segments (MSS {MSS}, the "
        f"response header included, nothing embedded) on one connection; loss rate p "
        f"{', '.join(f'{x:g}' for x in RATES)} on every packet in each direction; initial window 1 and 10; "
        f"RTT {RTT_MS:g} ms, {BANDWIDTH_BPS / 1e6:g} Mb/s, `tcp.profile` ns3 (TcpNewReno without SACK, a delayed "
        "ACK every 2 segments or 200 ms, RTO min 1 s, receive window 131,072 bytes), 42 bytes a packet.",
        f"- ns-3: seed 0 without loss, {seeds} seeds with loss a point (each ns-3's `RngRun`, reproducible); "
        "the mean page load time with its 95 % interval (Student's t).",
        "- Model: `expected_with_loss.page_load_ms` (`latency_lab/mechanisms/loss_recovery.py` on the schedule read by "
        "`latency_lab/analysis/expected_loss.py`): after the first loss of a burst, the rest of the connection's data "
        "goes as Padhye et al.'s periods of congestion avoidance from the window the loss halved, three periods "
        "one by one with the losses independent a segment each (each period's loss at a geometric place, in the "
        "window grown to there, repaired by a timeout when fewer than three of the window's later segments arrive "
        "or the retransmission is lost, RFC 6582; then one segment and slow start, else half the window) and then "
        "at the steady rate of their eq. (31) (`latency_lab.mechanisms.loss.after_loss_ms`).",
        '- Cardwell: Cardwell, Savage & Anderson 2000, "Modeling TCP latency": handshake, slow start to the '
        "first loss, its recovery, the rest at the steady rate (Padhye's eq. (31)) and the first segment's "
        "delayed ACK (IW 1), `latency_lab.mechanisms.loss.cardwell_latency_ms`.",
        "- Padhye: Padhye, Firoiu, Towsley & Kurose 1998, eq. (31) alone: the expected handshake and the "
        "request's round trip, then every segment at the steady rate.",
        f"- **Goal per point**: within {GOAL:.0%} of ns-3's mean, or inside its 95 % interval.",
        "",
        f"**The model meets the goal at {_share(rows, lambda r: r.model)} points**; Cardwell at "
        f"{_share(rows, lambda r: r.cardwell)}, Padhye at {_share(rows, lambda r: r.padhye)}. Without loss ns-3 "
        f"and the model differ by at most {100 * worst:.4f} % of the page load time.",
        "",
    ]
    misses = [r for r in rows if not r.meets(r.model)]
    if misses:
        lines += ["## Points where the model misses the goal", ""]
        lines += [
            f"- IW {r.point.iw}, {r.point.segments:,} segments, p {r.point.rate:g}: {r.model:,.0f} ms against "
            f"{r.ns3:,.0f} ± {r.half:,.0f} ms ({r.error(r.model):+.1%})"
            for r in misses
        ]
        lines.append("")
    lines += ["## Per point", "", table(rows), ""]
    if ci_rows:
        lines += [
            "## The CI guard",
            "",
            f"`tests/validation/test_bulk_loss_ci.py` runs {len(ci_rows)} of these points live through ns-3 "
            f"(`validation.bulk_loss.ci_points`), seed 0 and seeds {CI_SEEDS.start}-{CI_SEEDS.stop - 1} each, and "
            "fails where the model misses the goal or the lossless run differs from the model by more than "
            f"0.01 %. From the stored runs at those seeds {_share(ci_rows, lambda r: r.model)} meet it:",
            "",
            table(ci_rows),
            "",
        ]
    return "\n".join(lines)


def write_report(out: Path, runs: Runs, points: Sequence[Point], min_seeds: int) -> Path:
    """Write ``out/bulk_loss.md`` from the runs; the path written."""
    rows = results(runs, points, min_seeds)
    ci_rows = results(runs, ci_points(), len(CI_SEEDS), CI_SEEDS)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "bulk_loss.md"
    path.write_text(report(rows, ci_rows), encoding="utf-8")
    return path


def add_arguments(ap: argparse.ArgumentParser, seeds: int = 200) -> None:
    """The options of ``python -m validation bulk``."""
    ap.add_argument("--seeds", type=int, default=seeds, help=f"ns-3 runs with loss per point (default {seeds})")
    ap.add_argument("--jobs", type=int, default=2, help="ns-3 worker processes (default 2)")
    ap.add_argument("--batch", type=int, default=20, help="seeds per point per round (default 20)")
    ap.add_argument("--runs", type=Path, default=RUNS, help=f"stored runs (default {RUNS.name})")
    ap.add_argument("--segments", type=int, nargs="+", default=SEGMENTS, help="transfer sizes (segments)")
    ap.add_argument("--rates", type=float, nargs="+", default=RATES, help="loss rates")
    ap.add_argument("--windows", type=int, nargs="+", default=WINDOWS, help="initial windows (segments)")
    ap.add_argument("--compare", action="store_true", help="only compare the model with the stored runs")
    ap.add_argument("--min-seeds", type=int, default=10, help="compare points with at least this many seeds")
    ap.add_argument("--out", default=None, help="report folder (default docs/validation)")


def main(args: argparse.Namespace) -> int:
    """``python -m validation bulk``: run the missing seeds (unless ``--compare``), print and write bulk_loss.md."""
    import sys

    from validation.sim import ns3_available

    points = grid(args.segments, args.rates, args.windows)
    if not args.compare:
        if not ns3_available():
            print("the ns3 package is not installed: pip install -r requirements-validation.txt", file=sys.stderr)
            return 2
        simulate(args.runs, args.seeds, args.jobs, args.batch, points)
    runs = load(args.runs)
    rows = results(runs, points, args.min_seeds)
    if not rows:
        print(f"no point has a lossless run and {args.min_seeds} seeds in {args.runs}", file=sys.stderr)
        return 1
    print(table(rows))
    path = write_report(Path(args.out) if args.out else REPO / "docs" / "validation", runs, points, args.min_seeds)
    print(f"wrote {path}")
    return 0
