"""Browsing sessions, restart after idle and T/TCP (seed 000, 2.4; seed 001, 5.2 and 5.5.3)."""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab import Scenario, predict
from latency_lab.analysis.predict import evaluate, expression
from latency_lab.scenario.params import resolve

PAGE = {"html_bytes": 8000, "object_count": 4, "object_size_bytes": 20_000}
PATH = {"rtt_ms": 200, "bandwidth_bps": 10e6}


def _result(protocol: str, **sections: Any) -> dict[str, Any]:
    doc = {"protocols": [protocol], "network": PATH, "page": PAGE, **sections}
    return dict(predict(doc)["results"][0])


def test_pages_add_up() -> None:
    r = _result("persistent", session={"pages": 3, "think_time_ms": 5000}, tcp={"nagle": False})
    pages = r["pages"]
    assert [p["page"] for p in pages] == [1, 2, 3]
    assert sum(p["page_load_ms"] for p in pages) == pytest.approx(r["page_load_ms"])
    for p in pages:
        assert sum(p["breakdown_ms"].values()) == pytest.approx(p["page_load_ms"], rel=1e-9)
        assert p["end_ms"] - p["start_ms"] == pytest.approx(p["page_load_ms"])
    assert pages[1]["start_ms"] == pytest.approx(pages[0]["end_ms"] + 5000)
    assert len(r["objects"]) == 3 * 5 and r["objects"][5]["name"] == "p2:html"
    assert r["counts"]["round_trips"] == sum(p["counts"]["round_trips"] for p in pages)


def test_persistent_connection_keeps_its_window_across_pages() -> None:
    """With the window kept (SunOS 4.1.3, seed 000, 2.4), the second page skips the handshake and slow start."""
    r = _result("persistent", session={"pages": 2, "think_time_ms": 5000}, tcp={"nagle": False, "idle_restart": "keep"})
    first, second = r["pages"]
    assert second["breakdown_ms"]["connection_setup"] == 0
    assert second["counts"]["slow_start_rounds"] < first["counts"]["slow_start_rounds"]
    assert second["page_load_ms"] < first["page_load_ms"] - 200  # at least the handshake's round trip
    assert r["counts"]["slow_start_restarts"] == 0


def test_idle_longer_than_the_timeout_restarts_slow_start() -> None:
    """Seed 000, 2.4 and seed 001, 5.5.3: after a pause longer than the retransmission timeout the window
    restarts, so the second page pays slow start again; a pause shorter than the timeout does not."""
    restart = _result("persistent", session={"pages": 2, "think_time_ms": 5000}, tcp={"nagle": False})
    kept = _result(
        "persistent", session={"pages": 2, "think_time_ms": 5000}, tcp={"nagle": False, "idle_restart": "keep"}
    )
    assert restart["counts"]["slow_start_restarts"] >= 1
    event = next(e for e in restart["events"] if e["kind"] == "slow_start_restart")
    assert "retransmission timeout" in event["why"] and event["object"].startswith("p2:")
    assert restart["pages"][1]["page_load_ms"] > kept["pages"][1]["page_load_ms"] + 200
    short = _result("persistent", session={"pages": 2, "think_time_ms": 300}, tcp={"nagle": False})
    assert short["counts"]["slow_start_restarts"] == 0  # 300 ms < bsd RTO >= 1 s (RFC 6298, 2.4)


def test_paced_restart_lies_between_keep_and_slow_start() -> None:
    """Seed 000, 2.4 proposes keeping the window but pacing the segments after an idle period."""
    ms = {
        mode: _result(
            "persistent", session={"pages": 2, "think_time_ms": 5000}, tcp={"nagle": False, "idle_restart": mode}
        )["pages"][1]["page_load_ms"]
        for mode in ("keep", "paced", "slow_start")
    }
    assert ms["keep"] <= ms["paced"] < ms["slow_start"]


def test_server_idle_timeout_closes_the_connection() -> None:
    """A server that closes idle persistent connections makes the next page open a new one."""
    sessions = {"pages": 2, "think_time_ms": 5000, "server_idle_timeout_ms": 2000}
    r = _result("persistent", session=sessions, tcp={"nagle": False, "idle_restart": "keep"})
    assert r["counts"]["connections"] == 2
    assert r["pages"][1]["breakdown_ms"]["connection_setup"] > 200
    kept = _result("persistent", session={**sessions, "server_idle_timeout_ms": 10_000}, tcp={"nagle": False})
    assert kept["counts"]["connections"] == 1


def test_ttcp_sends_the_request_with_the_syn_on_repeat_connections() -> None:
    """T/TCP: after the first connection to a server, each new one carries its request on the SYN,
    saving a round trip per connection (seed 004 and seed 000 cite T/TCP as the alternative)."""
    doc = {"network": {"rtt_ms": 100, "bandwidth_bps": 1e9}, "page": {"object_count": 3, "object_size_bytes": 100}}
    three_way = predict({**doc, "protocols": ["http10"]})["results"][0]
    ttcp = predict({**doc, "protocols": ["http10"], "tcp": {"handshake": "ttcp"}}, packets=True)["results"][0]
    assert three_way["page_load_ms"] - ttcp["page_load_ms"] == pytest.approx(3 * 100, rel=0.01)
    syns = [p for p in ttcp["packets"] if p["kind"] == "SYN"]
    assert [p["bytes"] for p in syns] == [0, 200, 200, 200]


def test_fast_start_reuses_the_window_on_new_connections() -> None:
    """TCP fast start (seed 001, 5.2) reuses the cached window: later HTTP/1.0 connections skip slow start."""
    slow = _result("http10", tcp={"nagle": False, "idle_restart": "slow_start"})
    fast = _result("http10", tcp={"nagle": False, "idle_restart": "fast_start"})
    assert fast["counts"]["slow_start_rounds"] < slow["counts"]["slow_start_rounds"]
    assert fast["page_load_ms"] < slow["page_load_ms"]


@pytest.mark.parametrize("protocol", ["http10", "http10_parallel", "persistent", "pipelined", "getall"])
@pytest.mark.parametrize("mode", ["slow_start", "keep", "fast_start", "paced"])
def test_session_expression_agrees(protocol: str, mode: str) -> None:
    doc = {
        "protocols": [protocol],
        "network": PATH,
        "page": PAGE,
        "tcp": {"idle_restart": mode, "handshake": "ttcp"},
        "session": {"pages": 3, "think_time_ms": 4000, "server_idle_timeout_ms": 3000 if mode == "keep" else None},
    }
    s = Scenario.model_validate(doc)
    r = predict(s)["results"][0]
    e = expression(s, protocol)
    assert evaluate(e["page_load_ms"], resolve(s)) == pytest.approx(r["page_load_ms"], rel=1e-9)
    assert sum(r["breakdown_ms"].values()) == pytest.approx(r["page_load_ms"], rel=1e-9)


def test_ttcp_reopens_a_timed_out_persistent_connection_with_the_request_on_the_syn() -> None:
    """A reopened persistent connection is a repeat connection too. With a window that covers the page the
    saving is the handshake's round trip. (With the BSD default window the server's first T/TCP flight
    leaves before the handshake ACK, one segment short of a three-way open's, and can meet the client's
    delayed ACK instead: see the next test.)"""
    sessions = {"pages": 2, "think_time_ms": 5000, "server_idle_timeout_ms": 2000}
    tcp = {"nagle": False, "idle_restart": "keep", "initial_window_segments": 10}
    plain = _result("persistent", session=sessions, tcp=tcp)
    ttcp = predict(
        {
            "protocols": ["persistent"],
            "network": PATH,
            "page": PAGE,
            "session": sessions,
            "tcp": {**tcp, "handshake": "ttcp"},
        },
        packets=True,
    )["results"][0]
    assert plain["pages"][1]["page_load_ms"] - ttcp["pages"][1]["page_load_ms"] == pytest.approx(200, rel=0.02)
    assert [p["bytes"] for p in ttcp["packets"] if p["kind"] == "SYN"] == [0, 200]


def test_ttcp_first_flight_has_no_handshake_bonus() -> None:
    """BSD opens the reply window one segment wider when the handshake ACK arrives (seed 000, 2.2). A T/TCP
    server answers before that ACK, so a one-segment first flight waits for the client's delayed ACK."""
    sessions = {"pages": 2, "think_time_ms": 5000, "server_idle_timeout_ms": 2000}
    doc = {"protocols": ["persistent"], "network": PATH, "page": PAGE, "session": sessions}
    ttcp = predict({**doc, "tcp": {"nagle": False, "idle_restart": "keep", "handshake": "ttcp"}})["results"][0]
    page2 = ttcp["pages"][1]
    assert page2["counts"]["delayed_ack_stalls"] == 1
    assert page2["breakdown_ms"]["delayed_ack_stall"] == pytest.approx(200)
