"""The network profile presets: each against its source's values, copied here as the source writes them.

DevTools: ChromeDevTools/devtools-frontend, front_end/core/sdk/NetworkManager.ts at commit 00d120bf0e61
(download and upload in bytes/s, latency and targetLatency in ms). WebPageTest: catchpoint/WebPageTest
(formerly WPO-Foundation/webpagetest), www/settings/connectivity.ini.sample at commit 4e157836cdfb (bwIn and
bwOut in bit/s, latency in ms). The numbers below are typed from those files, not computed from the presets.
"""

from __future__ import annotations

import itertools

import pytest

from latency_lab import PRESETS, predict, preset

#: NetworkManager.ts: preset name, title, download (B/s), upload (B/s), latency (ms), targetLatency (ms).
DEVTOOLS = [
    # Slow3GConditions: download 500 * 1000 / 8 * .8, upload the same, latency slow3GTargetLatency * 5 (400)
    ("devtools-3g", "3G", 50_000, 50_000, 2000, 400),
    # Slow4GConditions: 1.6 * 1000 * 1000 / 8 * .9, 750 * 1000 / 8 * .9, slow4GTargetLatency * 3.75 (150)
    ("devtools-slow-4g", "Slow 4G", 180_000, 84_375, 562.5, 150),
    # Fast4GConditions: 9 * 1000 * 1000 / 8 * .9, 1.5 * 1000 * 1000 / 8 * .9, fast4GTargetLatency * 2.75 (60)
    ("devtools-fast-4g", "Fast 4G", 1_012_500, 168_750, 165, 60),
]

#: connectivity.ini.sample: preset name, [section], bwIn (bit/s), bwOut (bit/s), latency (ms RTT).
WPT = [
    ("wpt-fios", "FIOS", 20_000_000, 5_000_000, 4),
    ("wpt-cable", "Cable", 5_000_000, 1_000_000, 28),
    ("wpt-dsl", "DSL", 1_500_000, 384_000, 50),
    ("wpt-lte", "LTE", 12_000_000, 12_000_000, 70),
    ("wpt-4g", "4G", 9_000_000, 9_000_000, 170),
    ("wpt-3gfast", "3GFast", 1_600_000, 768_000, 150),
    ("wpt-edge", "Edge", 240_000, 200_000, 840),
]


@pytest.mark.parametrize(("name", "title", "down_bytes", "up_bytes", "latency", "target"), DEVTOOLS)
def test_devtools_profile_matches_network_manager(
    name: str, title: str, down_bytes: float, up_bytes: float, latency: float, target: float
) -> None:
    s, p = preset(name), PRESETS[name]
    assert s.network.bandwidth_bps == pytest.approx(down_bytes * 8, rel=1e-12)
    assert s.network.uplink_bandwidth_bps == pytest.approx(up_bytes * 8, rel=1e-12)
    # the path's RTT is the target RTT, not the per-request latency (the assumptions say why)
    assert s.network.rtt_ms == target and latency > target
    assert "NetworkManager.ts" in p.citation and "ChromeDevTools/devtools-frontend" in p.citation
    assert f"'{title}'" in p.title
    for figure in (f"{latency:g} ms", f"{target:g} ms", "per request"):
        assert figure in p.assumptions, figure


@pytest.mark.parametrize(("name", "section", "bw_in", "bw_out", "latency"), WPT)
def test_webpagetest_profile_matches_connectivity_ini(
    name: str, section: str, bw_in: int, bw_out: int, latency: int
) -> None:
    s, p = preset(name), PRESETS[name]
    assert s.network.bandwidth_bps == bw_in and s.network.uplink_bandwidth_bps == bw_out
    assert s.network.rtt_ms == latency and s.network.loss_rate == 0
    assert "connectivity.ini.sample" in p.citation and "WPO-Foundation/webpagetest" in p.citation
    assert f"[{section}]" in p.assumptions and "round-trip time" in p.assumptions


def test_profiles_order_as_their_speeds() -> None:
    """Faster profiles load the page sooner, every protocol: the presets differ only in the network."""
    order = ["wpt-edge", "devtools-3g", "devtools-slow-4g", "wpt-cable", "wpt-fios"]
    times = [{r["protocol"]: r["page_load_ms"] for r in predict(PRESETS[n].document)["results"]} for n in order]
    for slower, faster in itertools.pairwise(times):
        assert all(slower[k] > faster[k] for k in slower)
    docs = [dict(PRESETS[n].document) for n in order]
    for d in docs:
        d.pop("network")
    assert all(d == docs[0] for d in docs)
