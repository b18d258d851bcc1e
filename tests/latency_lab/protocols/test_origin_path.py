"""An origin's own path (issue 28, ``page.origins[].rtt_ms`` and ``bandwidth_bps``): a CDN nearby, a third party far
away. Every connection to that origin (its handshakes, requests, responses and ACKs) crosses a path of its own, two
FIFO links no other origin's connections share; its DNS lookup is unchanged.

Hand-computed on both engines (the Python engine, the readable reference, and the native one, their results compared
field by field by :func:`tests.latency_lab.differential.both_engines`), and the refusals of what the model does not
cost (coalescing with the HTML's connection, loss, split proxies).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from latency_lab import predict
from latency_lab.analysis import native
from latency_lab.analysis.predict import result, simulate
from latency_lab.engine.core import ORIGIN_LEG, PATH
from latency_lab.scenario.errors import ScenarioError
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import MAX_DELAY_MS, MAX_RATE_BPS, MIN_RATE_BPS, Scenario
from tests.latency_lab import differential

RATE = 1e9  # bit/s
K = 8000.0 / RATE  # ms per wire byte
OH = 40  # bytes of headers a packet (network.packet_overhead_bytes' default)


def _page(origin: dict[str, Any], protocol: str = "h2", objects: list[int] | None = None) -> dict[str, Any]:
    """The HTML (6,000 bytes) over a 100 ms, 1 Gbit/s path and a 10 KB image from origin 1 (``origin``'s fields)."""
    objects = objects if objects is not None else [10_000]
    return {
        "protocols": [protocol],
        "network": {"rtt_ms": 100, "bandwidth_bps": RATE},
        "tcp": {"profile": "rfc5681", "nagle": False, "initial_window_segments": 10},
        "page": {
            "html_bytes": 6000,
            "object_bytes": objects,
            "object_origins": [1] * len(objects),
            "origins": [origin],
        },
    }


def _both(doc: dict[str, Any], protocol: str = "h2") -> dict[str, Any]:
    """``protocol``'s result with its packets on the native engine, checked equal to the Python engine's field by field
    (as :func:`tests.latency_lab.differential.both_engines`, the packets included)."""
    p = resolve(Scenario.model_validate(doc))
    s = simulate(p, protocol)
    ref = dict(result(s, protocol, packets=True))
    s.release()
    got = dict(native.run(native.Prepared(p), protocol, packets=True))
    assert differential.compare(json.loads(json.dumps(ref)), json.loads(json.dumps(got))) == []
    return got


def _hand_ms(origin_rtt: float) -> float:
    """The page of :func:`_page` by hand, the HTML's origin at 100 ms, the image's at ``origin_rtt``.

    HTML: SYN and SYN-ACK (40 wire bytes each) one RTT; the handshake ACK and the 200-byte request (240 wire bytes)
    half of one; the 6,200-byte response (200 of header: 4 full segments and 360 bytes, 6,400 on the wire, within
    the initial window of 10) half of one, its last byte at 200 ms + 6,760 bytes' serialization. The image: its
    connection opens when the HTML has arrived (h2: one connection for its origin), the same handshake and request
    over its own path, then the 10,200-byte response (6 segments and 1,440 bytes, 10,480 on the wire): 2 of its
    RTTs and 360 + 10,480 bytes more. In all 2 x 100 ms + 2 x origin_rtt + 17,600 bytes at 1 Gbit/s."""
    html_end = 100.0 + (OH + OH) * K + 100.0 / 2 + (OH + 200 + OH) * K + 100.0 / 2 + (4 * (1460 + OH) + 360 + OH) * K
    return html_end + origin_rtt + 2 * OH * K + origin_rtt + (OH + 200 + OH) * K + (6 * (1460 + OH) + 1440 + OH) * K


@pytest.mark.parametrize("origin_rtt", [20.0, 100.0, 400.0])
def test_hand_computed_image_from_a_cdn_nearby(origin_rtt: float) -> None:
    """h2, HTML at RTT 100 ms, one 10 KB image from an origin at RTT 20 ms: 240.1408 ms (the manual's figure), against
    400.1408 ms from an origin on the network's path; far away (400 ms) 1,000.1408."""
    r = _both(_page({"rtt_ms": origin_rtt}))
    assert r["page_load_ms"] == pytest.approx(_hand_ms(origin_rtt), abs=1e-9)
    assert _hand_ms(20.0) == pytest.approx(240.1408, abs=1e-9)
    html, image = r["objects"]
    assert html["end_ms"] == pytest.approx(200 + 6760 * K, abs=1e-9)
    assert image["end_ms"] - html["end_ms"] == pytest.approx(2 * origin_rtt + 10_840 * K, abs=1e-9)
    # the image's packets: every one crosses origin_rtt / 2 each way (serialization at 1 Gbit/s aside)
    for pk in r["packets"]:
        one_way = origin_rtt / 2 if pk["connection"] == image["connection"] else 50.0
        assert pk["arrival_ms"] - pk["sent_ms"] == pytest.approx(one_way + pk["wire_bytes"] * K, abs=1e-9)


def test_rtt_of_the_network_on_a_path_of_its_own_is_the_shared_paths_figure_here() -> None:
    """Alone on the path (nothing queued beside it), an own path with the network's RTT and rate gives the same page
    as the shared path; and no origin field given, the shared path's figure is the hand-computed one."""
    shared = _both(_page({}))
    own = _both(_page({"rtt_ms": 100.0, "bandwidth_bps": RATE}))
    assert shared["page_load_ms"] == pytest.approx(_hand_ms(100.0), abs=1e-9)
    assert own["page_load_ms"] == pytest.approx(shared["page_load_ms"], abs=1e-9)


#: The protocols that fetch the two objects at once (persistent and http10 ask for one after the other has arrived).
@pytest.mark.parametrize("protocol", ["h2", "h3", "persistent_parallel", "http10_parallel", "pipelined"])
def test_an_origin_on_its_own_path_does_not_queue_behind_the_htmls(protocol: str) -> None:
    """Its own bottleneck: at 1 Mbit/s, a 60 KB object from the HTML's origin and one from origin 1 on a path of its
    own (the network's RTT and rate) do not share a link, so origin 1's object ends when it ends on a page without
    the other object; on the shared path it ends later (the two responses share the link)."""
    doc = _page({"rtt_ms": 100.0}, protocol, objects=[60_000, 60_000])
    doc["network"]["bandwidth_bps"] = 1e6
    doc["page"]["object_origins"] = [0, 1]
    alone = copy.deepcopy(doc)
    alone["page"]["object_bytes"] = [60_000]
    alone["page"]["object_origins"] = [1]
    both = _both(doc, protocol)
    single = _both(alone, protocol)
    end = {o["name"]: o["end_ms"] for o in both["objects"]}
    assert end["obj2"] == pytest.approx(single["objects"][1]["end_ms"], abs=1e-9)
    shared = copy.deepcopy(doc)
    del shared["page"]["origins"][0]["rtt_ms"]
    shared_end = {o["name"]: o["end_ms"] for o in _both(shared, protocol)["objects"]}
    assert shared_end["obj2"] > end["obj2"] + 100  # 60 KB at 1 Mbit/s is 480 ms of the link: shared, it waits


def test_each_origin_path_its_own_leg_rto_and_rate() -> None:
    """Two origins of their own (20 ms; 600 ms at 2 Mbit/s) and one on the network's: each connection on its leg, with
    the initial retransmission timeout of its own round trip (RFC 6298 after one sample: max(rto_min, 3 RTT)) and
    its path's delays and rates; the DNS lookups unchanged."""
    doc = _page({"rtt_ms": 20.0, "dns_ms": 30.0}, objects=[1000, 1000, 1000])
    doc["page"]["origins"] += [{"rtt_ms": 600.0, "bandwidth_bps": 2e6}, {"dns_ms": 10.0}]
    doc["page"]["object_origins"] = [1, 2, 3]
    doc["tcp"]["rto_min_ms"] = 200
    p = resolve(Scenario.model_validate(doc))
    assert p.origin_path == (True, True, False)
    assert p.origin_d_up == (10.0, 300.0, 50.0) and p.origin_d_down == (10.0, 300.0, 50.0)
    assert p.origin_k_down == (K, 8000.0 / 2e6, K)
    assert p.origin_rto_ms == (200.0, 1800.0, 300.0)
    assert p.origin_dns_ms == (30.0, 0.0, 10.0)
    s = simulate(p, "h2")
    legs = {c.origin: (c.leg, c.rto) for c in s.conns}
    assert legs == {0: (PATH, 300.0), 1: (ORIGIN_LEG, 200.0), 2: (ORIGIN_LEG + 1, 1800.0), 3: (PATH, 300.0)}
    r = _both(doc)
    ends = {o["name"]: o["end_ms"] for o in r["objects"]}
    # origin 2: its lookup-free handshake and request, 2 x 600 ms, after the HTML; origin 1: its 30 ms lookup first
    # (SYN, SYN-ACK, handshake ACK, request and response: 40 + 40 + 40 + 240 + 1,240 wire bytes at 2 Mbit/s)
    assert ends["obj2"] - ends["html"] == pytest.approx(1200.0 + 1600 * 8000.0 / 2e6, abs=1e-9)
    assert ends["obj1"] - ends["html"] == pytest.approx(30.0 + 40.0 + 1600 * K, abs=1e-9)


def test_no_origin_path_leaves_params_as_before() -> None:
    """No origin with a path of its own: the origin_* path fields stay empty, as every scenario before them."""
    p = resolve(Scenario.model_validate(_page({"dns_ms": 20.0})))
    assert (p.origin_path, p.origin_d_up, p.origin_k_up, p.origin_rto_ms) == ((), (), (), ())


def test_bandwidth_alone_keeps_the_networks_delays() -> None:
    doc = _page({"bandwidth_bps": 5e6})
    doc["network"].update({"uplink_delay_ms": 30, "downlink_delay_ms": 70, "uplink_bandwidth_bps": 64_000})
    p = resolve(Scenario.model_validate(doc))
    assert (p.origin_d_up, p.origin_d_down) == ((30.0,), (70.0,))
    assert (p.origin_k_up, p.origin_k_down) == ((8000.0 / 5e6,), (8000.0 / 5e6,))


def _refusal(doc: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        predict(doc)
    return str(info.value)


def test_coalescing_refused_naming_both_fields() -> None:
    text = _refusal(_page({"rtt_ms": 20.0, "coalesce_with_html": True}))
    assert "page.origins[0]" in text
    assert "an origin with rtt_ms given (a path of its own) cannot have coalesce_with_html true" in text
    assert "allowed: coalesce_with_html false, or rtt_ms omitted" in text
    text = _refusal(_page({"rtt_ms": 20.0, "bandwidth_bps": 1e6, "coalesce_with_html": True}))
    assert "rtt_ms and bandwidth_bps" in text


def test_loss_and_split_proxies_refused() -> None:
    doc = _page({"rtt_ms": 20.0})
    doc["network"]["loss_rate"] = 0.01
    text = _refusal(doc)
    assert "network.loss_rate (0.01) cannot be above 0 with page.origins[0].rtt_ms/bandwidth_bps" in text
    assert "allowed: network.loss_rate 0" in text
    doc = _page({"bandwidth_bps": 1e6}, "persistent")
    doc["proxy"] = {"architecture": "split_proxy"}
    assert "proxy.architecture 'split_proxy' cannot be used with page.origins[0]" in _refusal(doc)


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("rtt_ms", -1, "0"),
        ("rtt_ms", MAX_DELAY_MS + 1, f"{MAX_DELAY_MS}"),
        ("bandwidth_bps", MIN_RATE_BPS - 1, f"{MIN_RATE_BPS}"),
        ("bandwidth_bps", MAX_RATE_BPS * 2, "100000000000"),
    ],
)
def test_out_of_range_refused_naming_the_field(field: str, value: float, allowed: str) -> None:
    text = _refusal(_page({field: value}))
    assert f"page.origins[0].{field}" in text
    assert allowed in text.replace(",", "")
