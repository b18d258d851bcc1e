"""Each mechanism's formula (latency_lab.mechanisms.link, connection_setup, slow_start, delayed_ack, nagle) and its effect."""

from __future__ import annotations

import pytest

from latency_lab import predict
from latency_lab.mechanisms import connection_setup, delayed_ack, link, nagle, slow_start


def test_link_serialization_and_arrival() -> None:
    """Seed 002, section 1: 20 KB over a T1 takes about 100 ms."""
    assert link.serialization_ms(20_000, 0, 1_544_000) == pytest.approx(103.6, abs=0.1)
    assert link.serialization_ms(1460, 40, 10e6) == pytest.approx(1.2)
    assert link.ms_per_byte(8000) == 1.0
    assert link.departure_ms(5.0, 7.0) == 7.0 and link.departure_ms(8.0, 7.0) == 8.0
    assert link.arrival_ms(7.0, 1.2, 35.0) == pytest.approx(43.2)
    assert link.wire_bytes(1460, 40) == 1500


def test_connection_setup_round_trips() -> None:
    """Seed 002, section 3: one round trip to open; the first byte of a response after two."""
    assert connection_setup.handshake_ms(35, 35, 0, 0) == 70
    assert connection_setup.first_byte_ms(35, 35, 0, 0, 0, 0) == 140
    # the model's handshake, on an otherwise idle path with zero-size packets
    doc = {
        "protocols": ["http10"],
        "network": {"rtt_ms": 70, "bandwidth_bps": 100e9, "packet_overhead_bytes": 0},
        "page": {"html_bytes": 1, "object_bytes": []},
    }
    r = predict(doc)["results"][0]
    assert r["breakdown_ms"]["connection_setup"] == pytest.approx(70, rel=1e-6)
    assert r["page_load_ms"] == pytest.approx(140, rel=1e-6)


def test_slow_start_windows() -> None:
    """Seed 000, 2.2: a BSD server's reply window starts at two segments; one more per ACK."""
    assert slow_start.initial_window_segments(1, syn_ack_opens_window=True) == 2
    assert slow_start.initial_window_segments(1, syn_ack_opens_window=False) == 1
    assert slow_start.window_after_ack(2) == 3
    assert slow_start.usable_window_bytes(4, 1460, 4096, 1000) == 3096
    assert slow_start.growth_factor(1) == 2 and slow_start.growth_factor(2) == 1.5
    assert [slow_start.rounds_to_send(n, 1) for n in (1, 2, 3, 4, 7, 8)] == [1, 2, 2, 3, 3, 4]


@pytest.mark.parametrize("object_bytes", [1000, 1460, 5000, 14600, 40000, 100000])
@pytest.mark.parametrize("rtt_ms", [1, 20, 100, 500])
@pytest.mark.parametrize("rate_bps", [56_000, 1.5e6, 10e6, 1e9])
@pytest.mark.parametrize("mss", [536, 1460])
def test_textbook_slow_start_latency(object_bytes: int, rtt_ms: float, rate_bps: float, mss: int) -> None:
    """Textbook case: one object on a new connection, an ACK per segment, initial window 1, no headers or
    overhead: latency = 2 RTT + O/R + P (RTT + S/R) - (2^P - 1) S/R. The model agrees to 1e-9, less the
    one-byte request it must send and the 4-byte window-scale option of SYN and SYN-ACK (a 1 MB window)."""
    doc = {
        "protocols": ["http10"],
        "network": {"rtt_ms": rtt_ms, "bandwidth_bps": rate_bps, "packet_overhead_bytes": 0},
        "tcp": {
            "profile": "ns3",
            "mss_bytes": mss,
            "initial_window_segments": 1,
            "delayed_ack_ms": 0,
            "nagle": False,
            "receive_window_bytes": 1_000_000,
        },
        "http": {"request_bytes": 1, "response_header_bytes": 0, "server_write_bytes": 0},
        "page": {"html_bytes": object_bytes, "object_bytes": []},
    }
    model_ms = predict(doc)["results"][0]["page_load_ms"] - 8000 * (1 + 2 * 4) / rate_bps
    assert model_ms == pytest.approx(slow_start.textbook_latency_ms(object_bytes, mss, rate_bps, rtt_ms), rel=1e-9)


def test_receive_window_caps_throughput() -> None:
    """Seed 000, 2.5: a window below the bandwidth-delay product limits throughput to window / RTT."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 100, "bandwidth_bps": 100e6, "packet_overhead_bytes": 0},
        "tcp": {"receive_window_bytes": 8760, "initial_window_segments": 100, "delayed_ack_ms": 0},
        "http": {"response_header_bytes": 0},
        "page": {"html_bytes": 876_000, "object_bytes": []},
    }
    r = predict(doc)["results"][0]
    rate_bytes_per_ms = 876_000 / (r["page_load_ms"] - 200)
    assert rate_bytes_per_ms == pytest.approx(8760 / 100, rel=0.02)


def test_delayed_ack_rule() -> None:
    """Seed 000, 2.2: BSD counts bytes (a 226-byte header and one 1460-byte segment are not two full
    segments); ns-3 counts segments."""
    assert not delayed_ack.ack_now(226 + 1460, 2, 1460, 2, counts_bytes=True, timer_ms=200)
    assert delayed_ack.ack_now(2920, 2, 1460, 2, counts_bytes=True, timer_ms=200)
    assert delayed_ack.ack_now(226 + 1460, 2, 1460, 2, counts_bytes=False, timer_ms=200)
    assert delayed_ack.ack_now(1, 1, 1460, 2, counts_bytes=False, timer_ms=0)
    assert delayed_ack.ack_time_ms(3.797, 200) == pytest.approx(203.797)
    assert delayed_ack.stall_ms(203.797, 5.027) == pytest.approx(198.77)


def test_nagle_rule() -> None:
    """Seed 000, 2.3: (a) a full segment, (b) half the peer's window, (c) all buffered and nothing
    outstanding or Nagle off; closing sends what is held."""
    common = dict(mss_bytes=1460, half_window_rule=True, max_peer_window_bytes=16384)
    assert nagle.may_send(
        1460, is_all_buffered=False, nothing_outstanding=False, nagle_on=True, closing=False, **common
    )
    assert not nagle.may_send(
        13, is_all_buffered=True, nothing_outstanding=False, nagle_on=True, closing=False, **common
    )
    assert nagle.may_send(13, is_all_buffered=True, nothing_outstanding=True, nagle_on=True, closing=False, **common)
    assert nagle.may_send(13, is_all_buffered=True, nothing_outstanding=False, nagle_on=False, closing=False, **common)
    assert nagle.may_send(13, is_all_buffered=True, nothing_outstanding=False, nagle_on=True, closing=True, **common)
    small = dict(mss_bytes=1460, half_window_rule=True, max_peer_window_bytes=2000)
    assert nagle.may_send(1000, is_all_buffered=True, nothing_outstanding=False, nagle_on=True, closing=False, **small)


def test_close_sends_what_nagle_holds() -> None:
    """Seed 000, 2.3: HTTP/1.0 never meets the Nagle stall because closing sends the held segment."""
    doc = {
        "network": {"rtt_ms": 1, "bandwidth_bps": 10e6},
        "tcp": {"nagle": True, "initial_window_segments": 4},  # a window that takes the whole first write
        "http": {"response_header_bytes": 226, "server_write_bytes": 4096},
        "page": {"html_bytes": 3870 + 13, "object_bytes": []},  # writes of 4096 and 13 bytes
    }
    out = {r["protocol"]: r for r in predict({**doc, "protocols": ["http10", "persistent"]})["results"]}
    assert out["http10"]["counts"]["nagle_stalls"] == 0
    assert out["persistent"]["counts"]["nagle_stalls"] == 1
    assert out["persistent"]["page_load_ms"] - out["http10"]["page_load_ms"] > 150


def test_profiles_differ_where_the_issue_says() -> None:
    """bsd: reply window one segment above the initial window, ACK by bytes; ns3: neither."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 50, "bandwidth_bps": 10e6},
        "http": {"header_flush": True},
        "page": {"html_bytes": 3000, "object_bytes": []},
    }
    common = {"mss_bytes": 1460, "initial_window_segments": 1, "nagle": False}
    bsd = predict({**doc, "tcp": {"profile": "bsd", **common}})["results"][0]
    ns3 = predict({**doc, "tcp": {"profile": "ns3", **common}})["results"][0]
    # bsd: header + one full segment fill the two-segment window and the client holds its ACK
    assert bsd["counts"]["delayed_ack_stalls"] == 1
    # ns3: a one-segment window, the lone header segment waits for the timer; its ACK covers less than a
    # full segment, so it does not open the window and the next lone segment waits again (ns-3 shows both)
    assert ns3["counts"]["delayed_ack_stalls"] == 2
    bsd_why = next(e["why"] for e in bsd["events"] if e["kind"] == "delayed_ack_stall")
    ns3_why = next(e["why"] for e in ns3["events"] if e["kind"] == "delayed_ack_stall")
    assert "one short segment and one full segment" in bsd_why and "full segments' worth" in bsd_why
    assert ns3_why.startswith("the client held its ACK") and "1 segment unacknowledged, fewer than 2" in ns3_why
    assert ns3["counts"]["slow_start_rounds"] == bsd["counts"]["slow_start_rounds"] + 1  # no reply-window bonus


@pytest.mark.parametrize("tcp", [{}, {"nagle": False, "delayed_ack_ms": 0}])
@pytest.mark.parametrize("bandwidth_bps", [34_368_000, 1_544_000])
def test_window_limited_transfer_over_a_satellite(tcp: dict, bandwidth_bps: float) -> None:
    """Seed 003, table 1: a 32,767-byte TCP buffer over a 640 ms satellite round trip. Past slow start the
    receive window limits the flight, so two megabytes more go at ``W/RTT`` (slow_start.window_limited_rate_bps,
    22 full segments per round trip) on an E3 as on a T1; the flight never exceeds the window."""
    from latency_lab import Scenario
    from latency_lab.analysis.predict import simulate
    from latency_lab.mechanisms.slow_start import window_limited_rate_bps
    from latency_lab.scenario.params import resolve

    def doc(size: int) -> dict:
        return {
            "protocols": ["http10"],
            "network": {"rtt_ms": 640, "bandwidth_bps": bandwidth_bps},
            "tcp": {"mss_bytes": 1460, "receive_window_bytes": 32767, **tcp},
            "page": {"html_bytes": size, "object_bytes": []},
        }

    t1, t2 = (predict(doc(n))["results"][0]["page_load_ms"] for n in (1_000_000, 3_000_000))
    rate = 8000.0 * 2_000_000 / (t2 - t1)
    assert window_limited_rate_bps(32767, 1460, 640) == pytest.approx(401_500)  # of a 34,368,000 bit/s E3
    closed = window_limited_rate_bps(32767, 1460, 640, link.serialization_ms(1460 + 40, 40, bandwidth_bps))
    assert rate == pytest.approx(closed, rel=0.02)  # the model is 0.7-1.7% slower: its rounds are whole
    s = simulate(resolve(Scenario.model_validate(doc(300_000))), "http10")
    data = [p for p in s.eng.packets if p.dir == 1 and p.n > 0]
    acks = [p for p in s.eng.packets if p.dir == 0]
    flight = [p.seq_end - max((a.ack for a in acks if a.t_a <= p.t_s), default=0) for p in data]
    assert max(flight) <= 32767 and max(flight) >= 22 * 1460
