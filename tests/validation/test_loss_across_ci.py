"""Issue 29's held-out loss points on their stored ns-3 runs (bench/loss_across_ns3_runs.json, 200 seeds a point; no
ns-3 needed): persistent pages of several responses of tens of KB and HTTP/1.0 in parallel with many small objects
(``validation.loss.ACROSS_POINTS``), held to the loss grid's goal (within 15 % of ns-3's mean or inside its 95 %
interval) where the model now meets it, and to explicit bounds where it does not yet.

Before the window a loss left carried over to the later responses (``latency_lab.mechanisms.loss.carried_ms``,
2026-11-28) the six persistent points at p 0.02-0.05 were 19-40 % under ns-3; before the slots shared the objects
(``latency_lab.mechanisms.loss_recovery.slot_shares``, 2026-11-28) the http10_parallel points at p 0.04-0.05 were 19-22 %
under (each other connection was a chain of its own with its total float: issue 29); now 11-15 % under. Before the
window a loss leaves was half the data in flight when it is found (not when the segment left; 2026-11-29) the
persistent point at p 0.005 was 15.4 % under: a loss near a response's end leaves a small window to the next ones.
"""

from __future__ import annotations

import pytest

from validation import loss as L

pytestmark = [pytest.mark.validation]

#: Points that miss the goal today, with the error band ``(lo, hi)`` of ``(model - ns-3) / ns-3`` they are held to (so
#: a change that makes them worse fails, and one that fixes them is noticed): HTTP/1.0 with 6 slots at p 0.05 (stored
#: 2026-11-29: -18.7 %; the more slots, the more of the page's extra time is the tail past the slots' shared delays).
#: The low-loss persistent point (10 x 20 KB, RTT 100 ms, p 0.005) was one at -15.4 % until the window a loss leaves
#: was taken from the data in flight when it is found (2026-11-29): -10.6 %.
KNOWN_MISSES: dict[L.Point, tuple[float, float]] = {
    L.Point("30 x 2 KB, 6 slots", 100.0, 0.05, "http10_parallel"): (-0.22, -0.12),
}


@pytest.fixture(scope="module")
def rows() -> dict[L.Point, L.PointResult]:
    got = L.results(L.load(L.ACROSS_RUNS), L.ACROSS_POINTS, min_seeds=200)
    return {r.point: r for r in got}


def test_every_point_is_stored(rows: dict[L.Point, L.PointResult]) -> None:
    assert set(rows) == set(L.ACROSS_POINTS) and len(rows) == 15
    assert all(r.n == 200 and abs(r.lossless_error) <= L.LOSSLESS_TOLERANCE for r in rows.values())


@pytest.mark.parametrize(
    "point", L.ACROSS_POINTS, ids=lambda p: f"{p.page.replace(' ', '')}-rtt{p.rtt:g}-p{p.rate:g}-{p.protocol}"
)
def test_point(rows: dict[L.Point, L.PointResult], point: L.Point) -> None:
    r = rows[point]
    if point in KNOWN_MISSES:
        lo, hi = KNOWN_MISSES[point]
        assert lo <= r.err_total <= hi, f"{r.err_total:+.1%} outside ({lo:+.0%}, {hi:+.0%})"
    else:
        assert r.meets, f"model {r.total_model:.0f} ms vs ns-3 {r.total_ns3:.0f} ± {r.half:.0f} ms ({r.err_total:+.1%})"
