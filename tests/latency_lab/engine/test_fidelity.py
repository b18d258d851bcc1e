"""Issue 16's engine rules in whole predictions: the retransmission timer and restart after a real idle period
(item 2), Linux's packet-counting slow start (item 3), and Minshall's Nagle (issue 18)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from latency_lab import PRESETS, predict
from latency_lab.scenario import profiles

#: Issue 16's reproducer: a 64 kbit/s path, where an ACK-clocked sender waits longer than 3 RTT for every ACK.
SLOW_LINK = {
    "protocols": ["http10", "persistent"],
    "network": {"rtt_ms": 50, "bandwidth_bps": 64000},
    "tcp": {"profile": "linux", "initial_window_segments": 1, "mss_bytes": 536, "delayed_ack_ms": 100},
    "page": {"html_bytes": 10000, "object_bytes": [20000]},
}


def _by_protocol(doc: dict[str, Any], **kw: Any) -> dict[str, dict[str, Any]]:
    return {r["protocol"]: r for r in predict(doc, **kw)["results"]}


def _restarts(r: dict[str, Any], who: str) -> list[dict[str, Any]]:
    return [e for e in r["events"] if e["kind"] == "slow_start_restart" and e["why"].startswith(f"the {who}")]


def test_a_sender_waiting_for_acks_is_not_idle() -> None:
    """Issue 16, item 2: with the RTO fixed at max(200 ms, 3 RTT) the server restarted slow start on every
    ACK-clocked round (persistent 10,121 ms against http10's 4,502 ms, 38 restarts). With RFC 6298's estimator
    on its own round trips and a restart only when the application writes after a real idle period, the
    server never restarts and persistent beats HTTP/1.0 (4,391 against 4,502 ms, 2026-11-25; 4,386 since the
    profile's receiver ACKs every segment until it answers, pingpong_ack, issue 18, 2026-11-27); only the client,
    silent for 1.5 s while the HTML arrives, restarts its one-segment window before its second request."""
    r = _by_protocol(SLOW_LINK)
    assert r["http10"]["page_load_ms"] == pytest.approx(4502.0, abs=0.5)
    assert r["persistent"]["page_load_ms"] == pytest.approx(4386.0, abs=0.5)
    assert not _restarts(r["persistent"], "server")
    assert len(_restarts(r["persistent"], "client")) == r["persistent"]["counts"]["slow_start_restarts"] == 1
    keep = _by_protocol({**SLOW_LINK, "tcp": {**SLOW_LINK["tcp"], "idle_restart": "keep"}})
    assert r["persistent"]["page_load_ms"] == pytest.approx(keep["persistent"]["page_load_ms"], rel=1e-12)


def test_n97_ppp_restarts_only_after_real_idle_periods() -> None:
    """Issue 16, item 2: the n97-ppp preset (28.8 kb/s) had 20 restarts on its persistent connection, most
    while the server waited for ACKs. Now each restart is at a response's first write, when every byte the
    server had sent has arrived and the client's request has come back (nothing in flight), after longer than the
    timeout its round trips give (the modem queue puts seconds into them): 16 restarts, 5 of them the
    server's, and persistent within 3% of never restarting (62,458 against 61,047 ms, 2026-11-25)."""
    doc = PRESETS["n97-ppp"].scenario.model_dump()
    r = _by_protocol(doc, packets=True)["persistent"]
    server = _restarts(r, "server")
    assert r["counts"]["slow_start_restarts"] == 16 and len(server) == 5
    down = [p for p in r["packets"] if p["direction"] == "down" and p["bytes"] > 0]
    up = [p for p in r["packets"] if p["direction"] == "up"]
    for e in server:
        t = e["start_ms"]
        before = [p for p in down if p["queued_ms"] < t]
        assert before and max(p["arrival_ms"] for p in before) < t  # nothing of the server's in flight
        last = max(p["arrival_ms"] for p in before)
        assert any(last < p["arrival_ms"] <= t for p in up)  # and the client has answered since
        first = min(p["queued_ms"] for p in down if p["object"] == e["object"])
        assert first == pytest.approx(t, abs=1e-9)  # at the response's first write
    doc["tcp"]["idle_restart"] = "keep"
    keep = _by_protocol(doc)["persistent"]
    assert keep["page_load_ms"] < r["page_load_ms"] < 1.03 * keep["page_load_ms"]


def test_the_timeout_follows_the_measured_round_trips() -> None:
    """The event states the sender's own timeout: on a 100 ms path after a 5 s pause the Linux server's is
    SRTT + max(4 RTTVAR, 200 ms), about 300 ms, not the bsd-era 1 s floor; a 100 ms pause (the server then
    idles for that, the round trip and the request) stays under it."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 100e6},
        "tcp": {"profile": "linux"},
        "page": {"html_bytes": 100_000, "object_bytes": []},
        "session": {"pages": 2, "think_time_ms": 5000},
    }
    r = _by_protocol(doc)["persistent"]
    (event,) = _restarts(r, "server")
    rto = float(event["why"].split("longer than its ")[1].split(" ms")[0])
    assert 300 <= rto <= 320
    assert "from 80 to 10 segments" in event["why"]  # idle 5 s > 16 RTOs: halved down to the initial window
    doc["session"]["think_time_ms"] = 100
    assert _by_protocol(doc)["persistent"]["counts"]["slow_start_restarts"] == 0


def _linux_rule(monkeypatch: pytest.MonkeyPatch, **rule: Any) -> None:
    monkeypatch.setitem(profiles.PROFILES, "linux", replace(profiles.PROFILES["linux"], **rule))


def test_linux_counts_acknowledged_packets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 16, item 3 (tcp_slow_start): with the header flushed, the ACK of its 200-byte segment grows the
    window by one packet, where byte counting carries the 200 bytes; the response's later rounds are fuller.
    The same page by the byte rule takes one more slow-start round (601 against 701 ms, 2026-11-25)."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 100e6},
        "tcp": {"profile": "linux", "initial_window_segments": 1},
        "http": {"header_flush": True, "server_write_bytes": 0},
        "page": {"html_bytes": 20 * 1460, "object_bytes": []},
    }
    assert profiles.PROFILES["linux"].cwnd_counting == "packets"
    packets = _by_protocol(doc)["persistent"]
    _linux_rule(monkeypatch, cwnd_counts_packets=False)
    assert profiles.PROFILES["linux"].cwnd_counting == "bytes"
    by_bytes = _by_protocol(doc)["persistent"]
    assert packets["counts"]["slow_start_rounds"] == by_bytes["counts"]["slow_start_rounds"] - 1
    assert packets["page_load_ms"] < by_bytes["page_load_ms"] - 90  # a round trip less, less a little


def test_each_profile_names_its_counting_rule() -> None:
    """bsd: one segment per ACK (seed 000, 2.2); ns3 and rfc5681: bytes (RFC 5681, 3.1); linux: packets."""
    rules = {name: p.cwnd_counting for name, p in profiles.PROFILES.items()}
    assert rules == {"bsd": "acks", "ns3": "bytes", "rfc5681": "bytes", "linux": "packets"}


def test_an_application_limited_linux_sender_does_not_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    """tcp_is_cwnd_limited: the client's requests (one packet out under a window of 10) leave its window at 10,
    so after a 5 s pause it has nothing to restart (the server does: its window grew to 80)."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 100e6},
        "tcp": {"profile": "linux"},
        "page": {"html_bytes": 100_000, "object_bytes": []},
        "session": {"pages": 2, "think_time_ms": 5000},
    }
    assert not _restarts(_by_protocol(doc)["persistent"], "client")
    _linux_rule(monkeypatch, cwnd_limited_growth=False)
    (event,) = _restarts(_by_protocol(doc)["persistent"], "client")
    assert "from 11 to 10" in event["why"]


def _down_data(doc: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[int, float]]]:
    r = _by_protocol(doc, packets=True)["persistent"]
    return r, [(p["bytes"], p["queued_ms"]) for p in r["packets"] if p["direction"] == "down" and p["bytes"] > 0]


@pytest.mark.parametrize("flush", [False, True])
def test_minshall_holds_a_tail_only_behind_a_short_segment(flush: bool) -> None:
    """Issue 18 (tcp_minshall_check): with Nagle on, a 2,000-byte response (1,460 + 540 after a flushed
    200-byte header, 1,460 + 740 without) on the linux profile sends its short tail with the full segment
    (nothing short is unacknowledged); after a flushed header the tail waits only for the header's ACK, one
    round trip (the client's quick ACK), where rfc5681's Nagle holds it for the full segment's delayed ACK."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 10e6},
        "tcp": {"profile": "linux", "nagle": True},
        "http": {"header_flush": flush, "server_write_bytes": 0},
        "page": {"html_bytes": 2000, "object_bytes": [2000]},
    }
    r, data = _down_data(doc)
    html = data[:3] if flush else data[:2]
    if flush:
        (h, t0), (full, t1), (tail, t2) = html
        assert (h, full, tail) == (200, 1460, 540) and t1 == t0
        assert t2 - t0 == pytest.approx(100.3, abs=0.5)  # the header's ACK: one round trip and a little
        assert r["counts"]["nagle_stalls"] == 2
    else:
        (full, t1), (tail, t2) = html
        assert (full, tail) == (1460, 740) and t2 == t1
        assert r["counts"]["nagle_stalls"] == 0
    doc["tcp"]["profile"] = "rfc5681"
    classic, cdata = _down_data(doc)
    assert classic["counts"]["nagle_stalls"] == 2
    assert cdata[2 if flush else 1][1] - cdata[0][1] > 290  # the delayed ACK (200 ms) and the round trip
    assert r["page_load_ms"] < classic["page_load_ms"] - 390
