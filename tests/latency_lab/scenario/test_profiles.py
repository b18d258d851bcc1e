"""The named TCP profiles (latency_lab.scenario.profiles): rfc5681 and linux beside the seeds' bsd and ns-3's ns3."""

from __future__ import annotations

import pytest

from latency_lab import Scenario, predict
from latency_lab.mechanisms import slow_start
from latency_lab.scenario.profiles import PROFILES


def _one(tcp: dict, html: int, **extra: dict) -> dict:
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 100e6, "packet_overhead_bytes": 40},
        "tcp": tcp,
        "page": {"html_bytes": html, "object_bytes": []},
        **extra,
    }
    return predict(doc, packets=True)["results"][0]


def test_profile_defaults_fill_the_scenario() -> None:
    """RFC 6928: Linux starts with 10 segments; RFC 5681 3.1: 3 segments of 1460 bytes; Linux's 40 ms
    delayed-ACK minimum and 200 ms RTO minimum; slow start after idle on for both."""
    linux = Scenario.model_validate({"tcp": {"profile": "linux"}}).tcp
    assert (linux.initial_window_segments, linux.delayed_ack_ms, linux.rto_min_ms) == (10, 40.0, 200.0)
    assert linux.idle_restart == "slow_start" and linux.nagle is False
    generic = Scenario.model_validate({"tcp": {"profile": "rfc5681"}}).tcp
    assert (generic.initial_window_segments, generic.mss_bytes, generic.delayed_ack_ms) == (3, 1460, 200.0)
    assert generic.idle_restart == "slow_start" and generic.nagle is True
    assert PROFILES["linux"].quickack_segments == 16 and PROFILES["rfc5681"].quickack_segments == 0


@pytest.mark.parametrize(("profile", "flights"), [("linux", 1), ("rfc5681", 3), ("bsd", 4)])
def test_initial_window_sets_the_rounds(profile: str, flights: int) -> None:
    """A response of exactly 10 full segments on a fat pipe: one flight with Linux's IW 10 (RFC 6928); with
    RFC 5681's IW 3, an ACK for every two full segments adding one segment each: flights of 3, 3 and 4;
    bsd's IW 1 (a reply window of 2): 2, 3, 3 and 2."""
    r = _one({"profile": profile, "nagle": False}, 14600 - 200, http={"server_write_bytes": 0})
    assert r["counts"]["round_trips"] == 1 + flights
    assert r["counts"]["slow_start_rounds"] == flights - 1


def test_linux_quick_ack_then_40_ms_delayed_ack() -> None:
    """Linux ACKs the first 16 data segments at once (quick-ACK), so a lone first segment never waits; a
    receiver out of quick-ACK mode holds a lone segment for 40 ms (TCP_DELACK_MIN)."""
    quick = _one({"profile": "linux", "initial_window_segments": 1}, 2000)
    assert quick["counts"]["delayed_ack_stalls"] == 0
    slow = _one({"profile": "linux", "initial_window_segments": 1}, 30 * 1460)  # past the 16 quick ACKs
    held = [p["ack_held_ms"] for p in slow["packets"] if p["ack_held_ms"] > 0]
    quick_acks = [p for p in slow["packets"] if p["direction"] == "up" and p["kind"] == "ACK"]
    assert len(quick_acks) >= 16
    assert all(h <= 40.0 + 1e-9 for h in held)


def test_linux_acks_every_segment_until_it_answers() -> None:
    """Linux re-arms a quick ACK with every segment that grows its receive window (tcp_grow_window), so a
    client that has only sent its request ACKs every segment of the response (as the real-stack bench's
    captures show: 205 ACKs for 205 segments); once it sends its next request within the delayed-ACK time of
    the data it received it is in pingpong mode (tcp_event_data_sent) and ACKs every second segment."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 10e6, "packet_overhead_bytes": 40},
        "tcp": {"profile": "linux", "receive_window_bytes": 4_194_304},
        "http": {"response_header_bytes": 0, "server_write_bytes": 0},
        "page": {"html_bytes": 30 * 1460, "object_bytes": [30 * 1460]},
    }
    r = predict(doc, packets=True)["results"][0]
    for obj, acks in (("html", 30), ("obj1", 15)):
        data = [p for p in r["packets"] if p["direction"] == "down" and p["kind"] == "DATA" and p["object"] == obj]
        first, last = data[0]["arrival_ms"], data[-1]["arrival_ms"]
        up = [p for p in r["packets"] if p["direction"] == "up" and p["kind"] == "ACK"]
        assert len(data) == 30
        assert sum(1 for p in up if first <= p["sent_ms"] <= last) == acks, obj
    generic = predict({**doc, "tcp": {**doc["tcp"], "profile": "rfc5681"}}, packets=True)["results"][0]
    assert generic["counts"]["packets"] < r["counts"]["packets"]


def test_linux_slow_start_counts_every_acknowledged_segment() -> None:
    """Linux's window grows by the segments an ACK covers (two for a delayed ACK of two), RFC 5681 by at
    most one segment per ACK (cwnd += min(N, SMSS))."""
    assert slow_start.window_after_ack_bytes(10, 0, 2920, 1460, limit_segments=1_000_000) == (12, 0)
    assert slow_start.window_after_ack_bytes(10, 0, 2920, 1460) == (11, 0)
    assert slow_start.window_after_ack_bytes(10, 100, 1400, 1460, limit_segments=5) == (11, 40)
    common = {"initial_window_segments": 2, "nagle": False, "delayed_ack_ms": 200}
    linux = _one({"profile": "linux", **common}, 60_000)
    generic = _one({"profile": "rfc5681", **common, "receive_window_bytes": 131072}, 60_000)
    assert linux["page_load_ms"] < generic["page_load_ms"]
    assert linux["counts"]["slow_start_rounds"] < generic["counts"]["slow_start_rounds"]


def test_linux_restarts_slow_start_after_idle() -> None:
    """tcp_slow_start_after_idle = 1: a persistent connection idle longer than the RTO restarts from IW
    (RFC 5681 4.1); the next page's large response pays slow-start rounds again."""
    r = _one({"profile": "linux"}, 100_000, session={"pages": 2, "think_time_ms": 5000})
    assert r["counts"]["slow_start_restarts"] == 1
