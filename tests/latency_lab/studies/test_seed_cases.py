"""Published figures of the seed papers, reproduced by the model (tests/data/seed_cases.json).

Each case cites its seed. Parameters the seeds leave unstated are set by the presets, which say
what they assumed and which values are fitted; the sensitivity tests show how each figure moves
across the plausible range of those parameters, so a fit is never passed off as a prediction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from latency_lab import PRESETS, predict, preset
from latency_lab.mechanisms import host_cost
from latency_lab.studies.experiments import (
    PM94_WINDOWS,
    h96_document,
    p98_factors,
    pm94_host_cost_ms,
    pm94_round_trips,
    pm94_throughput_bps,
    pm94_throughput_shares,
    pm94_times,
    pm94_transfer_document,
    pm94_transfer_ms,
)
from latency_lab.studies.experiments import load_ms as _load_ms
from latency_lab.studies.presets import PM94_CLIENT_MS, PM94_HOST_COST_MS

CASES = json.loads((Path(__file__).parents[2] / "data" / "seed_cases.json").read_text())


# --------------------------------------------------------------------------------------- H96
H96 = CASES["H96"]


def _h96(row: str, **changes: Any) -> float:
    """Table 1's ``row`` on the h96-lan preset (latency_lab.studies.experiments sets it up), with ``changes``."""
    doc = h96_document(row, **changes)
    r = H96["rows"][row]
    assert (doc["protocols"], doc["http"]["header_flush"], doc["tcp"]["nagle"]) == (
        [r["protocol"]],
        r["header_flush"],
        r["nagle"],
    )
    return float(predict(doc)["results"][0]["page_load_ms"])


@pytest.mark.parametrize("row", ["http", "phttp", "fix1", "fix2"])
def test_h96_table1_rows_within_tolerance(row: str) -> None:
    """Seed 000, table 1: each configuration's retrieval time per page within 15%."""
    published = H96["rows"][row]["published_ms"]
    got = _h96(row)
    assert got == pytest.approx(published, rel=H96["tolerance_rel"]), (row, got, published)


def test_h96_headline_ratios() -> None:
    """Seed 000, abstract: unfixed P-HTTP ~14x slower than HTTP/1.0 and ~20x slower than fixed P-HTTP."""
    tol = H96["ratios"]["ratio_tolerance_rel"]
    phttp, http, fix2 = _h96("phttp"), _h96("http"), _h96("fix2")
    assert phttp / http == pytest.approx(H96["ratios"]["phttp_over_http"], rel=tol)
    assert phttp / fix2 == pytest.approx(H96["ratios"]["phttp_over_fix2"], rel=tol)


def test_h96_stalls_are_the_ones_the_seed_describes() -> None:
    """Seed 000, 2.2 and 2.3: unfixed P-HTTP meets one short-initial-segment (delayed-ACK) stall and
    Nagle stalls on odd final segments; fix 1 leaves one Nagle stall; fix 2 none."""

    def result(row: str) -> dict[str, Any]:
        return dict(predict(h96_document(row))["results"][0])

    unfixed = result("phttp")
    assert unfixed["counts"]["delayed_ack_stalls"] == 1
    assert unfixed["breakdown_ms"]["delayed_ack_stall"] == pytest.approx(187, abs=1)  # the preset's timer
    assert unfixed["breakdown_ms"]["nagle_stall"] > 2 * 180  # two odd final segments wait for a held ACK
    first = next(e for e in unfixed["events"] if e["kind"] == "delayed_ack_stall")
    assert "one short segment and one full segment" in first["why"]
    fix1 = result("fix1")
    assert fix1["counts"]["delayed_ack_stalls"] == 0 and fix1["counts"]["nagle_stalls"] == 1
    assert "13-byte" in next(e for e in fix1["events"] if e["kind"] == "nagle_stall")["why"]  # 4096 + 13 bytes
    fix2 = result("fix2")
    assert fix2["counts"]["delayed_ack_stalls"] == 0 and fix2["counts"]["nagle_stalls"] == 0


@pytest.mark.parametrize("overhead_ms", [0.0, 3.0, 6.0, 10.0])
@pytest.mark.parametrize("bandwidth_bps", [8_700_000, 10_000_000])
def test_h96_sensitivity_to_unstated_parameters(overhead_ms: float, bandwidth_bps: int) -> None:
    """How the H96 figures move with what the seed leaves open: the host cost per connection (fitted at
    6 ms) and the rate (8.7 Mb/s measured user-to-user, 10 Mb/s nominal). The stall-dominated rows hardly
    move; HTTP/1.0 moves by three connections' worth; the claims hold across the whole range."""
    changes = {"http__connection_overhead_ms": overhead_ms, "network__bandwidth_bps": bandwidth_bps}
    http, phttp, fix1, fix2 = (_h96(r, **changes) for r in ("http", "phttp", "fix1", "fix2"))
    assert 560 < phttp < 650 and 200 < fix1 < 240  # 2-3 stalls of ~187 ms plus a few ms
    assert 20 < http - 3 * overhead_ms < 26  # three connections' setup, requests and transfers
    assert fix2 < http  # fixed P-HTTP beats HTTP/1.0 (seed 000, 2.3)
    assert phttp / http > 10 and phttp / fix2 > 17


def test_h96_delayed_ack_timer_moves_the_stall_rows() -> None:
    """The fitted 187 ms timer against BSD's nominal 200 ms: every stall grows by 13 ms."""
    for row, stalls in (("phttp", 3), ("fix1", 1)):
        nominal = _h96(row, tcp__delayed_ack_ms=200)
        assert nominal - _h96(row) == pytest.approx(13 * stalls, abs=0.5)
    assert _h96("fix2", tcp__delayed_ack_ms=200) == pytest.approx(_h96("fix2"))


def test_h96_fitted_connection_cost_against_the_seeds_own_attribution() -> None:
    """The host cost per connection stays fitted (6 ms): seed 000 gives no figure for it alone. Its only other
    handle is section 2.3's reading of table 1, that fixed P-HTTP beats HTTP/1.0 (26 against 43 ms) by avoiding
    connection setup costs: the model's network explains 1.0 ms of that 17 ms, so the rest over HTTP/1.0's two
    extra connections is 8.0 ms each. With 8 ms every row still lies within the 15% tolerance (HTTP/1.0 +7.8%,
    fixed P-HTTP +13%). That reading uses two of table 1's rows to set one value, as the fit uses one, so it
    would not make fewer figures depend on table 1; the preset keeps the fitted 6 ms, a little under what
    the HTTP/1.0 row alone asks (6.9 ms) and under the attribution's 8.0 ms."""
    bare = {r: _h96(r, http__connection_overhead_ms=0) for r in ("http", "fix2")}
    rows = H96["rows"]
    gap = rows["http"]["published_ms"] - rows["fix2"]["published_ms"]
    per_extra_connection = (gap - (bare["http"] - bare["fix2"])) / 2
    assert per_extra_connection == pytest.approx(8.0, abs=0.1)
    for row in ("http", "phttp", "fix1", "fix2"):
        got = _h96(row, http__connection_overhead_ms=per_extra_connection)
        assert got == pytest.approx(rows[row]["published_ms"], rel=H96["tolerance_rel"]), (row, got)
    alone = (rows["http"]["published_ms"] - bare["http"]) / 3
    fitted = PRESETS["h96-lan"].document["http"]["connection_overhead_ms"]
    assert alone == pytest.approx(6.9, abs=0.1)
    assert fitted < alone < per_extra_connection


# -------------------------------------------------------------------------------------- PM94
PM94 = CASES["PM94"]


def _pm94(size: int, protocols: tuple[str, ...], **changes: Any) -> list[float]:
    return pm94_times(size, protocols, "pm94-remote", **changes)


def test_pm94_round_trip_accounting() -> None:
    """Seed 002, sections 3 and 4: with negligible transmission, HTTP/1.0's first image starts after four
    round trips and each further image costs two; on a long-lived connection the first image takes two."""
    rt = PM94["round_trips"]
    got = pm94_round_trips()  # in RTTs, on a 100 ms path with no transmission time to speak of
    assert got["http10_first_image"] == pytest.approx(rt["http10_first_image"], rel=1e-3)
    assert got["per_additional_image"] == pytest.approx(rt["per_additional_image"], rel=1e-3)
    assert got["http10_round_trips"] == 2 + rt["per_additional_image"] * 3
    assert got["persistent_first_image"] == pytest.approx(rt["persistent_first_image"], rel=1e-3)


def test_pm94_small_images_statement() -> None:
    """Seed 002, section 6, figure 6-1 (2,544-byte images, remote): the modified protocol cuts latency
    by more than half, and more than half of the improvement comes from pipelining."""
    http10, persistent, pipelined = _pm94(PM94["small"]["image_bytes"], ("http10", "persistent", "pipelined"))
    assert 1 - pipelined / http10 > 0.5
    assert (persistent - pipelined) / (http10 - pipelined) > 0.5


def test_pm94_large_images_statement() -> None:
    """Seed 002, section 6, figure 6-2 (45,566-byte images, remote): latency improves by about 22%."""
    http10, pipelined = _pm94(PM94["large"]["image_bytes"], ("http10", "pipelined"))
    assert 1 - pipelined / http10 == pytest.approx(PM94["large"]["improvement"], rel=PM94["large"]["tolerance_rel"])


def test_pm94_local_statement() -> None:
    """Seed 002, section 6, figure 6-4 (local server): persistent connections without pipelining reduce
    latency by only about 5-15%."""
    http10, persistent = (_load_ms("pm94-local", p) for p in ("http10", "persistent"))
    assert PM94["local"]["reduction_min"] <= 1 - persistent / http10 <= PM94["local"]["reduction_max"]


@pytest.mark.parametrize("client_think_ms", [0, 20, 50, PM94_CLIENT_MS])
def test_pm94_sensitivity_to_client_cost(client_think_ms: float) -> None:
    """The client cost per request is fitted (58 ms, Mosaic on the slow DECstation 3100): with none, the
    model still cuts latency by more than half and reproduces the 22%, but pipelining's share of the gain
    is about a third, not more than half; the share grows with the client's cost per request and passes
    one half at about 53 ms (with the host cost per connection derived from section 3.2)."""
    small = _pm94(2544, ("http10", "persistent", "pipelined"), http__client_think_ms=client_think_ms)
    large = _pm94(45566, ("http10", "pipelined"), http__client_think_ms=client_think_ms)
    share = (small[1] - small[2]) / (small[0] - small[2])
    assert 1 - small[2] / small[0] > 0.5
    assert 1 - large[1] / large[0] == pytest.approx(0.22, rel=0.15)
    assert (share > 0.5) == (client_think_ms >= 53)


@pytest.mark.parametrize(
    ("client_think_ms", "share_holds", "local_holds"), [(50, False, True), (58, True, True), (66, True, False)]
)
def test_pm94_one_client_cost_for_both_presets(client_think_ms: float, share_holds: bool, local_holds: bool) -> None:
    """Seed 002, 6: one Mosaic client fetched from both servers, so both presets take one client cost per
    request. With the derived host cost per connection, pipelining's share of the remote gain passes one half
    from about 53 ms, and the local cut of figure 6-4 stays at 5% or more up to about 64 ms: the fitted 58 ms
    is inside that window, and the window is narrow (so the fit is a real constraint, not a free knob)."""
    small = _pm94(2544, ("http10", "persistent", "pipelined"), http__client_think_ms=client_think_ms)
    share = (small[1] - small[2]) / (small[0] - small[2])
    local = [_load_ms("pm94-local", p, http__client_think_ms=client_think_ms) for p in ("http10", "persistent")]
    cut = 1 - local[1] / local[0]
    assert (share > 0.5) == share_holds, share
    assert (PM94["local"]["reduction_min"] <= cut <= PM94["local"]["reduction_max"]) == local_holds, cut
    for name in ("pm94-remote", "pm94-local"):
        http = PRESETS[name].document["http"]
        assert (http["client_think_ms"], http["connection_overhead_ms"]) == (PM94_CLIENT_MS, PM94_HOST_COST_MS)


THROUGHPUT = PM94["throughput"]


def test_pm94_host_cost_is_derived_from_section_3_2() -> None:
    """Seed 002, 3.2: on the local Ethernet a 2 KB connection reached about 25% of 10 Mb/s. The model's network
    schedule explains 2.84 ms of the 6.55 ms that implies; the presets' host cost per connection is the rest
    (not fitted to any figure it is then checked against). The copy in the presets equals the derivation."""
    derived = pm94_host_cost_ms()
    assert derived == pytest.approx(PM94_HOST_COST_MS, abs=0.005)
    net = pm94_transfer_ms("pm94-local", THROUGHPUT["short_bytes"], http__connection_overhead_ms=0)
    assert net + derived == pytest.approx(8000 * THROUGHPUT["short_bytes"] / (THROUGHPUT["local_short"] * 10e6))
    assert host_cost.share_of_capacity(
        THROUGHPUT["short_bytes"], pm94_transfer_ms("pm94-local", THROUGHPUT["short_bytes"]), 10e6
    ) == pytest.approx(THROUGHPUT["local_short"], abs=0.001)


@pytest.mark.parametrize("request_bytes", [16, 52, 200])
def test_pm94_host_cost_hardly_depends_on_the_assumed_request(request_bytes: int) -> None:
    """The test client's request size is assumed (16 bytes); from 16 to 200 bytes the derived host cost moves
    from 3.71 to 3.56 ms, and the predicted local 20 KB share stays 75.5%."""
    net = pm94_transfer_ms(
        "pm94-local", THROUGHPUT["short_bytes"], http__connection_overhead_ms=0, http__request_bytes=request_bytes
    )
    cost = host_cost.per_connection_cost_ms(THROUGHPUT["short_bytes"], THROUGHPUT["local_short"], 10e6, net)
    assert 3.5 < cost < 3.75
    t = pm94_transfer_ms(
        "pm94-local", THROUGHPUT["medium_bytes"], http__connection_overhead_ms=cost, http__request_bytes=request_bytes
    )
    assert host_cost.share_of_capacity(THROUGHPUT["medium_bytes"], t, 10e6) == pytest.approx(0.7545, abs=0.001)


def test_pm94_throughput_remote_short_connection() -> None:
    """Seed 002, 3.2 (figure 3-2): a 2 KB connection to the remote server reaches less than 10% of the best-case
    throughput (predicted: the handshake and the request's round trip dominate)."""
    assert pm94_throughput_shares()["remote_short"] < THROUGHPUT["remote_short_max"]


def test_pm94_throughput_local_medium_connection_is_predicted() -> None:
    """Seed 002, 3.2 (figure 3-3): a 20 KB connection on the local Ethernet reaches about 70% of capacity. With
    the host cost derived from the 2 KB share, the model predicts 75% (+8%); without any host cost it would
    give 91%."""
    shares = pm94_throughput_shares()
    assert shares["local_medium"] == pytest.approx(THROUGHPUT["local_medium"], rel=THROUGHPUT["tolerance_rel"])
    bare = pm94_throughput_bps("pm94-local", THROUGHPUT["medium_bytes"], http__connection_overhead_ms=0) / 10e6
    assert bare > THROUGHPUT["local_medium"] * (1 + THROUGHPUT["tolerance_rel"])


def test_pm94_throughput_remote_medium_connection_is_not_reproduced() -> None:
    """Seed 002, 3.2 (figure 3-2): a 20 KB connection reaches about 50% of what a reasonable window allows. The
    model misses it either way the window is read, and this test pins the miss (it fails if the gap changes
    direction or size): with the preset's 8 KB window the long transfer is window-capped at about 580 kb/s and
    20 KB reaches 58% of it (+15%, just past the tolerance); with a 16 KB window, which fills the T1, 20 KB
    needs four BSD slow-start rounds (281 ms of waiting) against 1.3 Mb/s and reaches 26% (-48%): half of
    1.3 Mb/s would leave less than one round trip for slow start after the 199 ms that the handshake, the
    request, the host cost and the bytes take."""
    preset_window = pm94_throughput_shares()["remote_medium"]
    full_window = pm94_throughput_shares(16384)["remote_medium"]
    assert 0.575 < preset_window < 0.62
    assert 0.23 < full_window < 0.29
    r = predict(pm94_transfer_document("pm94-remote", THROUGHPUT["medium_bytes"], tcp__receive_window_bytes=16384))
    breakdown, counts = r["results"][0]["breakdown_ms"], r["results"][0]["counts"]
    assert counts["slow_start_rounds"] == 4 and breakdown["slow_start_idle"] > 3.5 * 70
    half_ms = 8000 * THROUGHPUT["medium_bytes"] / (0.5 * 1.3e6)
    assert half_ms - (r["results"][0]["page_load_ms"] - breakdown["slow_start_idle"]) < 70


def test_pm94_window_cannot_serve_both_section_3_2_and_figure_6_2() -> None:
    """Section 3.2's remote 20 KB share (about 50%) and figure 6-2's 22% pull the fitted window apart: 6 segments
    (8,760 bytes) meet the first (44%, -12%) and put the second at 33% (+49%); the preset's 5 segments (8 KB)
    meet the second (25%, +13%) and miss the first (58%, +15%)."""
    tol = THROUGHPUT["tolerance_rel"]
    for window, share_ok, large_ok in ((8192, False, True), (8760, True, False)):
        share = pm94_throughput_shares(window)["remote_medium"]
        http10, pipelined = _pm94(45566, ("http10", "pipelined"), tcp__receive_window_bytes=window)
        large = 1 - pipelined / http10
        assert (abs(share / THROUGHPUT["remote_medium"] - 1) <= tol) == share_ok, (window, share)
        assert (abs(large / PM94["large"]["improvement"] - 1) <= PM94["large"]["tolerance_rel"]) == large_ok, large


def test_pm94_throughput_window_and_segment_size_statements() -> None:
    """Seed 002, 3.2: over 70 ms too small a window limits throughput however long the transfer (4 KB: at most
    window / RTT), and a larger segment gives somewhat better throughput for long transfers (1460 against 536)."""
    long = THROUGHPUT["short_bytes"] * 256  # 512 KB, where the seed's curves stopped rising
    best = max(pm94_throughput_bps("pm94-remote", long, tcp__receive_window_bytes=w) for w in PM94_WINDOWS)
    small_window = pm94_throughput_bps("pm94-remote", long, tcp__receive_window_bytes=4096)
    assert small_window < 8000 * 4096 / 70 < best / 2
    mss = {
        m: pm94_throughput_bps("pm94-remote", long, tcp__receive_window_bytes=32768, tcp__mss_bytes=m)
        for m in (536, 1460)
    }
    assert 1.0 < mss[1460] / mss[536] < 1.2


@pytest.mark.parametrize(("rwnd", "low", "high"), [(4096, 0.04, 0.10), (8192, 0.18, 0.26), (16384, 0.45, 0.6)])
def test_pm94_window_decides_the_large_image_gain(rwnd: int, low: float, high: float) -> None:
    """The 22% for large images holds for an 8 KB socket buffer (fitted within seed 000, 2.5's 2-16 KB
    defaults): smaller windows hide the gain behind the window limit, larger ones expose slow start."""
    http10, pipelined = _pm94(45566, ("http10", "pipelined"), tcp__receive_window_bytes=rwnd)
    assert low < 1 - pipelined / http10 < high


# --------------------------------------------------------------------------------------- P98
P98 = CASES["P98"]


@pytest.mark.parametrize("size", ["250", "5120", "40960"])
def test_p98_speedup_factors(size: str) -> None:
    """Seed 001, 5.5.1: with 10 images, persistent connections and pipelining are ~6.13x (250 B),
    ~5.67x (5 KB) and ~4.73x (40 KB) faster than HTTP/1.0."""
    http10 = _load_ms("p98-terrestrial", "http10", page__object_size_bytes=int(size))
    pipelined = _load_ms("p98-terrestrial", "pipelined", page__object_size_bytes=int(size))
    assert http10 / pipelined == pytest.approx(P98["factors"][size], rel=P98["tolerance_rel"])


def test_p98_trends_hold_on_the_satellite_path() -> None:
    """Seed 001, 5.5.2: the same trends on the satellite path, with larger absolute gains; and the relative
    gain is largest for the smallest images (5.5.1)."""
    terr, sat = "p98-terrestrial", "p98-satellite"
    for size in (250, 5120, 40960):
        gain_t = _load_ms(terr, "http10", page__object_size_bytes=size) - _load_ms(
            terr, "pipelined", page__object_size_bytes=size
        )
        gain_s = _load_ms(sat, "http10", page__object_size_bytes=size) - _load_ms(
            sat, "pipelined", page__object_size_bytes=size
        )
        assert gain_s > gain_t > 0
    factors = [
        _load_ms(terr, "http10", page__object_size_bytes=s) / _load_ms(terr, "pipelined", page__object_size_bytes=s)
        for s in (250, 40960)
    ]
    assert factors[0] > factors[1]


def test_p98_gap_is_not_a_host_cost_per_connection() -> None:
    """Seed 001, 5.1 names the hosts' connection setup processing among HTTP/1.0's costs, but the factors' 9-11%
    shortfall is not that: the extra HTTP/1.0 time per connection that would close each factor grows with the
    image size (about 18, 28 and 52 ms), and seed 002's measured 3.7 ms per connection raises no factor by more
    than 1.3% (latency_lab/studies/p98.py says so in its not-reproduced note)."""
    need = {}
    for size, published in P98["factors"].items():
        http10 = _load_ms("p98-terrestrial", "http10", page__object_size_bytes=int(size))
        pipelined = _load_ms("p98-terrestrial", "pipelined", page__object_size_bytes=int(size))
        need[size] = (published * pipelined - http10) / 11  # the HTML and ten images, a connection each
    assert need["250"] == pytest.approx(18, abs=1) and need["5120"] == pytest.approx(28, abs=1)
    assert need["40960"] == pytest.approx(52, abs=1)
    base, with_cost = _p98_factors(), _p98_factors(http__connection_overhead_ms=PM94_HOST_COST_MS)
    assert all(0 < with_cost[s] / base[s] - 1 < 0.014 for s in base)


def _p98_factors(**changes: Any) -> dict[str, float]:
    """HTTP/1.0 over pipelined load time for each of seed 001's image sizes, on the terrestrial preset."""
    got = p98_factors("p98-terrestrial", **changes)
    assert sorted(got) == sorted(int(s) for s in P98["factors"])
    return {str(size): f for size, f in got.items()}


@pytest.mark.parametrize("iw", [1, 2, 3, 4])
def test_p98_sensitivity_to_initial_window(iw: int) -> None:
    """The initial window is fitted (2): how the three factors move with it. With 1 the reply window of two
    segments makes pipelining ten small responses take several rounds (250 B factor about 3.8x); from 3 on,
    HTTP/1.0's 5 KB images fit the first window (5 KB factor about 4x). Only 2 puts all three within 15%."""
    f = _p98_factors(tcp__initial_window_segments=iw)
    within = all(abs(f[s] / P98["factors"][s] - 1) <= P98["tolerance_rel"] for s in f)
    assert within == (iw == 2), f
    assert 3.5 < min(f.values()) and max(f.values()) < 6.2  # always a large gain, never above the published


@pytest.mark.parametrize("html_bytes", [500, 1000, 2000, 5000])
def test_html_size_sensitivity(html_bytes: int) -> None:
    """Neither seed 001 nor seed 002 gives its pages' HTML size. P98's factors depend on it (the HTML fetch
    is a large share of the pipelined time): only 1 KB puts all three within 15%, so it is named as fitted.
    PM94's three statements hold across the range."""
    f = _p98_factors(page__html_bytes=html_bytes)
    within = all(abs(f[s] / P98["factors"][s] - 1) <= P98["tolerance_rel"] for s in f)
    assert within == (html_bytes == 1000), f
    small = _pm94(2544, ("http10", "persistent", "pipelined"), page__html_bytes=html_bytes)
    large = _pm94(45566, ("http10", "pipelined"), page__html_bytes=html_bytes)
    assert 1 - small[2] / small[0] > 0.5 and (small[1] - small[2]) / (small[0] - small[2]) > 0.5
    assert 1 - large[1] / large[0] == pytest.approx(0.22, rel=0.15)


def test_fitted_values_are_named_in_the_presets() -> None:
    """Every value chosen to hit a published figure is listed as fitted, with its reason."""
    assert set(PRESETS["h96-lan"].fitted) == {"delayed_ack_ms", "connection_overhead_ms"}
    assert set(PRESETS["pm94-remote"].fitted) == {"client_think_ms", "receive_window_bytes"}
    assert set(PRESETS["pm94-local"].fitted) == {"client_think_ms"}  # the remote preset's value, the same client
    assert set(PRESETS["p98-terrestrial"].fitted) == {"initial_window_segments", "html_bytes"}
    for p in PRESETS.values():
        for field, why in p.fitted.items():
            assert why and field in str(p.document), (p.name, field)
        assert preset(p.name) == p.scenario
