"""The validation grid's CI guard (issue 3): a fixed subset of the grid through ns-3, held to the goals.

``validation.grid.ci_subset`` draws the subset from the grid deterministically (every mechanism's
settings, every protocol, bounded cost). The ns-3 test fails when the page-load error (median, 95th
percentile, max), the delayed-ACK and Nagle stall-count agreement or the packet-count error passes
the goals of issue 3, over the subset and over its TLS (issue 7), Fast Open, False Start (issue 16) and h2
runs; it skips without the ``ns3`` package. The other tests need only the model.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from validation import grid as G
from validation.sim import GRID_PROTOCOLS

pytestmark = [pytest.mark.validation]

GRID_JSON = Path(__file__).resolve().parents[2] / "docs" / "validation" / "grid.json"


def test_grid_is_fixed_and_spans_the_issue() -> None:
    grid = G.scenarios()
    assert grid == G.scenarios()  # same seed, same grid
    assert len(grid) >= 300
    docs = [g["doc"] for g in grid]
    assert all(d["tcp"]["profile"] == "ns3" for d in docs)
    assert all(d["protocols"] == list(GRID_PROTOCOLS) for d in docs)
    rtts = [
        d["network"]["rtt_ms"]
        if "rtt_ms" in d["network"]
        else d["network"]["uplink_delay_ms"] + d["network"]["downlink_delay_ms"]
        for d in docs
    ]
    assert min(rtts) == pytest.approx(1.0) and max(rtts) == pytest.approx(700.0)
    rates = [d["network"]["bandwidth_bps"] for d in docs]
    assert min(rates) == 28_800 and max(rates) == 100_000_000
    assert {d["tcp"]["mss_bytes"] for d in docs} == {536, 1460}
    assert {d["tcp"]["initial_window_segments"] for d in docs} == set(range(1, 11))
    assert {d["tcp"]["nagle"] for d in docs} == {True, False}
    assert {d["http"]["header_flush"] for d in docs} == {True, False}
    assert {d["tcp"]["delayed_ack_ms"] for d in docs} == {40.0, 200.0}
    assert {d["tcp"]["delayed_ack_segments"] for d in docs} == {1, 2}
    assert {g["tags"]["delays"] for g in grid} == {"symmetric", "asymmetric"}
    assert {g["tags"]["rates"] for g in grid} == {"symmetric", "asymmetric"}
    counts = [len(d["page"]["object_bytes"]) for d in docs]
    assert min(counts) == 1 and max(counts) == 50
    sizes = [s for d in docs for s in d["page"]["object_bytes"]]
    assert min(sizes) >= 100 and max(sizes) <= 100_000


def test_grid_has_a_tls_block() -> None:
    """Issue 7: TLS 1.2 and 1.3, full, resumed and 0-RTT, with and without a DNS lookup, after the 320."""
    grid = G.scenarios()
    plain = [g for g in grid if g["id"].startswith("g")]
    block = [g for g in grid if g["id"].startswith("t")]
    assert len(plain) == G.SIZE and len(block) == G.TLS_SIZE >= 80
    assert all("tls" not in g["doc"] and g["tags"]["tls"] == "none" for g in plain)
    assert all(g["doc"]["tcp"]["handshake"] == "three_way" for g in block)
    assert {g["tags"]["tls"] for g in block} == {
        "1.2 full",
        "1.2 resumed after_first",
        "1.2 resumed all",
        "1.3 full",
        "1.3 resumed after_first",
        "1.3 resumed after_first + 0-RTT",
        "1.3 resumed all",
        "1.3 resumed all + 0-RTT",
    }
    assert {g["tags"]["dns"] for g in block} == {"cached", "resolver"}
    assert {g["doc"]["tls"]["client_hello_bytes"] for g in block} > {512, 1800}


def test_grid_has_a_fast_open_block() -> None:
    """Issue 7: TCP Fast Open on every connection, with and without TLS, requests that fit the SYN and requests
    that do not, after the TLS block; the CI subset takes an even spread of it."""
    grid = G.scenarios()
    block = [g for g in grid if g["id"].startswith("f")]
    assert len(block) == G.TFO_SIZE >= 50
    assert all(g["doc"]["tcp"]["handshake"] == "fast_open" for g in block)
    assert all(g["doc"]["tcp"]["handshake"] != "fast_open" for g in grid if not g["id"].startswith("f"))
    assert {g["tags"]["tls"] for g in block} >= {"none", "1.2 full", "1.3 full", "1.3 resumed all + 0-RTT"}
    assert {g["tags"]["dns"] for g in block} == {"cached", "resolver"}
    requests = [g["doc"]["http"]["request_bytes"] for g in block]
    assert min(requests) < 500 and max(requests) > 1500  # on the SYN whole, and spilling past it
    subset = G.ci_subset(grid)
    assert len([g for g in subset if g["id"].startswith("f")]) == G.CI_TFO


def test_grid_has_a_false_start_block() -> None:
    """Issue 16: TLS 1.2 False Start on every connection, full, full then resumed, resumed on all (False Start
    changes nothing) and 1.3 (nothing either), after the Fast Open block; the CI subset takes every variant."""
    grid = G.scenarios()
    block = [g for g in grid if g["id"].startswith("s")]
    assert len(block) == G.FS_SIZE >= 30
    assert grid[-len(block) :] == block
    assert all(g["doc"]["tls"]["false_start"] for g in block)
    assert all(g["doc"]["tcp"]["handshake"] == "three_way" for g in block)
    assert not any(g["doc"].get("tls", {}).get("false_start") for g in grid if not g["id"].startswith("s"))
    assert {g["tags"]["tls"] for g in block} == {
        "1.2 full + False Start",
        "1.2 resumed after_first + False Start",
        "1.2 resumed all",
        "1.3 full",
    }
    assert {g["tags"]["dns"] for g in block} == {"cached", "resolver"}
    subset = [g for g in G.ci_subset(grid) if g["id"].startswith("s")]
    assert len(subset) == G.CI_FS * len(G.FS_VARIANTS)
    assert {(g["doc"]["tls"]["version"], g["doc"]["tls"]["resumption"]) for g in subset} == set(G.FS_VARIANTS)


def test_ci_subset_covers_every_protocol_and_mechanism() -> None:
    grid = G.scenarios()
    subset = G.ci_subset(grid)
    assert subset == G.ci_subset(grid)
    assert len(subset) >= 40
    assert len({g["id"] for g in subset}) == len(subset)
    for key in grid[0]["tags"]:
        assert {g["tags"][key] for g in subset} == {g["tags"][key] for g in grid}, key
    assert all(g["doc"]["protocols"] == list(GRID_PROTOCOLS) for g in subset)


@pytest.mark.skipif(not GRID_JSON.exists(), reason="docs/validation/grid.json not generated")
def test_stored_grid_is_this_grid_and_reports(tmp_path: Path) -> None:
    """grid.json holds the results of the grid as defined now, and the report is written from it alone."""
    from validation.report import write

    data = json.loads(GRID_JSON.read_text(encoding="utf-8"))
    assert data["profile"] == "ns3"
    assert [(e["id"], e["doc"]) for e in data["results"]] == [(g["id"], g["doc"]) for g in G.scenarios()]
    written = write(data, tmp_path)
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "tcp.profile: ns3" in index
    for name in ("scatter.html", "by_protocol.html", "by_mechanism.html", "plotly.min.js"):
        assert (tmp_path / name) in written and (tmp_path / name).stat().st_size > 0
    assert "plotly.min.js" in (tmp_path / "scatter.html").read_text(encoding="utf-8")


@pytest.mark.ns3
def test_ci_subset_meets_the_goals(ns3_sim: Any) -> None:
    subset = G.ci_subset(G.scenarios())
    t = time.monotonic()
    results = G.run(subset, ns3_sim)
    wall = time.monotonic() - t
    failed = [f"{e['id']}: {e['error']}" for e in results if "error" in e]
    assert not failed, failed
    rows = G.runs(results)
    assert {r["protocol"] for r in rows} == set(GRID_PROTOCOLS)
    s = G.stats(rows)
    worst = ", ".join(
        f"{r['id']} {r['protocol']} {100 * r['error']:+.2f}%" for r in sorted(rows, key=lambda r: -abs(r["error"]))[:3]
    )
    summary = (
        f"{len(subset)} scenarios, {s['runs']} runs in {wall:.1f} s: |error| median {100 * s['median_abs_error']:.4f}%, "
        f"p95 {100 * s['p95_abs_error']:.3f}%, max {100 * s['max_abs_error']:.3f}% "
        f"({worst}); "
        f"stall counts agree {100 * s['stall_agreement']:.1f}%; packets median error {100 * s['median_packet_error']:.2f}%"
    )
    print(summary)
    assert not G.failures(s), f"{G.failures(s)} ({summary})"
    tls = G.stats([r for r in rows if r["tags"]["tls"] != "none"])
    assert tls["runs"] >= 50 and not G.failures(tls), tls
    tfo = G.stats([r for r in rows if r["tags"]["handshake"] == "fast_open"])
    assert tfo["runs"] >= 50 and not G.failures(tfo), tfo
    fs = G.stats([r for r in rows if r["id"].startswith("s")])
    assert fs["runs"] == len(GRID_PROTOCOLS) * G.CI_FS * len(G.FS_VARIANTS) and not G.failures(fs), fs
    h2 = G.stats([r for r in rows if r["protocol"] == "h2"])
    assert h2["runs"] == len(subset) and not G.failures(h2), h2
