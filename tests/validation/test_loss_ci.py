"""The loss grid's CI guard: a fixed subset of the random-loss grid through ns-3, held to the goal per point.

``validation.loss.ci_points`` fixes 20 points of the grid by rule (each protocol at each RTT, the loss rate
and the page turning with them, so every protocol, RTT, loss rate and page is there, and the 50-object page's
persistent and http10 at RTT 100 ms and p 0.03: many responses on one connection); ns-3 runs each at seed
0 (no loss) and at ``validation.loss.CI_SEEDS`` (seeds 1-100, each its own ``RngRun``: the same runs every
time, so the test cannot be flaky). A point fails when the model's total expected page load time
(``expected_with_loss.page_load_ms``) is more than 15 % from ns-3's mean and outside that mean's 95 %
interval, or when the lossless run differs from the model's ``page_load_ms`` by more than 0.01 %. The ns-3
tests skip without the ``ns3`` package; the others need only the model.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any

import pytest

from validation import loss as L

pytestmark = [pytest.mark.validation]

POINTS = L.ci_points()


def _id(p: L.Point) -> str:
    return f"{p.page.replace(' ', '-')}-rtt{p.rtt:g}-p{p.rate:g}-{p.protocol}"


def test_ci_points_span_the_loss_grid() -> None:
    assert L.ci_points() == POINTS  # fixed
    assert len(set(POINTS)) == len(POINTS) == 3 * len(L.PROTOCOLS) + 2 == 20
    assert set(POINTS) <= set(L.grid())
    assert {p.protocol for p in POINTS} == set(L.PROTOCOLS)
    assert {p.rtt for p in POINTS} == set(L.RTTS)
    assert {p.rate for p in POINTS} == set(L.RATES)
    assert {p.page for p in POINTS} == set(L.PAGES)
    every_rtt = set(L.PAGES) - {L.MANY_PAGE}
    for protocol in L.PROTOCOLS:
        mine = [p for p in POINTS if p.protocol == protocol and p.page != L.MANY_PAGE]
        assert {p.rtt for p in mine} == set(L.RTTS), protocol
        assert {p.rate for p in mine} == set(L.RATES), protocol
        assert {p.page for p in mine} == every_rtt, protocol
    many = {p.protocol for p in POINTS if p.page == L.MANY_PAGE}
    assert many == {"persistent", "http10"}
    assert len(L.CI_SEEDS) >= 40 and 0 not in L.CI_SEEDS


def test_the_goal_check() -> None:
    """The goal: within 15 % of ns-3's mean, or inside its 95 % interval where that is wider."""
    point = L.Point("1 object", 100.0, 0.01, "http10")

    def model(total: float) -> dict[str, Any]:
        return {"page_load_ms": 100.0, "expected_with_loss": {"page_load_ms": total, "extra_ms": total - 100.0}}

    narrow = {"0": 100.0, **{str(s): 200.0 + (-1) ** s for s in range(1, 41)}}  # mean 200, tiny interval
    assert L.compare_point(point, narrow, model(229.0)).meets
    assert not L.compare_point(point, narrow, model(231.0)).meets
    assert not L.compare_point(point, narrow, model(169.0)).meets
    wide = {"0": 100.0, **{str(s): 200.0 + 150.0 * (-1) ** s for s in range(1, 41)}}  # mean 200, +-48.5
    r = L.compare_point(point, wide, model(245.0))
    assert r.meets and r.within_ci and r.n == 40 and r.seeds == tuple(range(1, 41))
    assert r.half == pytest.approx(L.t95(40) * statistics.stdev(v for s, v in wide.items() if s != "0") / math.sqrt(40))
    assert not L.compare_point(point, wide, model(250.0)).meets
    assert r.err_total == pytest.approx(0.225) and r.extra_ns3 == pytest.approx(100.0)


@pytest.fixture(scope="module")
def ci_results(ns3_sim: Any) -> dict[L.Point, L.PointResult]:
    """Every CI point through ns-3 at seed 0 and CI_SEEDS, against the model."""
    t = time.monotonic()
    runs = L.run_points(ns3_sim, POINTS, L.CI_SEEDS)
    wall = time.monotonic() - t
    rows = L.results(runs, POINTS, min_seeds=len(L.CI_SEEDS), seeds=L.CI_SEEDS)
    print(f"\n{len(POINTS)} points x {len(L.CI_SEEDS) + 1} ns-3 runs in {wall:.1f} s\n{L.points_table(rows)}")
    return {r.point: r for r in rows}


@pytest.mark.ns3
@pytest.mark.parametrize("point", POINTS, ids=_id)
def test_lossless_run_equals_the_model(ci_results: dict[L.Point, L.PointResult], point: L.Point) -> None:
    r = ci_results[point]
    assert abs(r.lossless_error) <= L.LOSSLESS_TOLERANCE, (
        f"model {r.lossless_model:.4f} ms, ns-3 {r.lossless_ns3:.4f} ms"
    )


@pytest.mark.ns3
@pytest.mark.parametrize("point", POINTS, ids=_id)
def test_point_meets_the_goal(ci_results: dict[L.Point, L.PointResult], point: L.Point) -> None:
    r = ci_results[point]
    assert r.n == len(L.CI_SEEDS)
    assert r.meets, (
        f"model total {r.total_model:.0f} ms vs ns-3 mean {r.total_ns3:.0f} ± {r.half:.0f} ms over {r.n} seeds: "
        f"{r.err_total:+.1%} ({r.err_total_lo:+.1%}, {r.err_total_hi:+.1%}), goal {L.GOAL:.0%} or inside the "
        f"interval; extra {r.extra_model:.0f} vs {r.extra_ns3:.0f} ms"
    )


def test_stored_runs_meet_the_goal_at_every_point() -> None:
    """The whole loss grid on the stored ns-3 runs (bench/loss_ns3_runs.json, 200 seeds a point; no ns-3 needed):
    all 126 points meet the goal (107 of the first 108 before issue 16's periods with independent losses:
    getall, 10 objects, RTT 20 ms, p = 0.03 was +32 %; the 50-object page's persistent points were +9 %, +40 %
    and +92 % before the steady state after a loss was held to the response it hit, 2026-11-27)."""
    rows = L.results(L.load(L.RUNS), L.grid())
    assert len(rows) == len(L.grid()) == 126
    misses = [f"{r.point}: {r.err_total:+.1%}" for r in rows if not r.meets]
    assert not misses, misses
