"""DNS, TLS 1.2/1.3 and TCP Fast Open before the first request (latency_lab.mechanisms.dns, latency_lab.mechanisms.tls, latency_lab.protocols.secure_setup).

On a path with no serialization cost, each setup adds the round trips RFC 8446 (TLS 1.3: 1, 0 with early
data on resumption), RFC 5246 (TLS 1.2: 2, 1 when resumed) and RFC 7413 (Fast Open: the request on the
SYN saves the TCP round trip) give it, and the handshake bytes are real packets filed as tls_setup.
"""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab import predict
from latency_lab.mechanisms import connection_setup, dns, tls
from latency_lab.mechanisms.connection_setup import FAST_OPEN_OPTION_BYTES

RTT = 100.0


def run(proto: str = "persistent", objects: list[int] | None = None, **parts: Any) -> dict:
    doc: dict[str, Any] = {
        "protocols": [proto],
        "network": {"rtt_ms": RTT, "bandwidth_bps": 100e9, "packet_overhead_bytes": 40},
        "tcp": {"profile": "linux", **parts.pop("tcp", {})},
        "page": {"html_bytes": 1000, "object_bytes": objects or []},
        **parts,
    }
    return predict(doc, packets=True)["results"][0]


def ttfb(r: dict) -> float:
    """Arrival of the HTML's first response byte (ms)."""
    return min(p["arrival_ms"] for p in r["packets"] if p["direction"] == "down" and p["object"] == "html")


@pytest.mark.parametrize(
    ("tls_doc", "handshake", "round_trips"),
    [
        ({"version": "none"}, "three_way", 2),
        ({"version": "1.3", "resumption": "none"}, "three_way", 3),
        ({"version": "1.2", "resumption": "none"}, "three_way", 4),
        ({"version": "1.2", "resumption": "none", "false_start": True}, "three_way", 3),  # RFC 7918
        ({"version": "1.2", "resumption": "all", "false_start": True}, "three_way", 3),  # abbreviated: no change
        ({"version": "1.3", "resumption": "all"}, "three_way", 2),  # 0-RTT early data
        ({"version": "1.3", "resumption": "all", "early_data": False}, "three_way", 3),
        ({"version": "1.2", "resumption": "all"}, "three_way", 3),  # abbreviated handshake
        ({"version": "none"}, "fast_open", 1),
        ({"version": "1.3", "resumption": "none"}, "fast_open", 2),
        ({"version": "1.3", "resumption": "all"}, "fast_open", 1),  # TFO + 0-RTT: the request on the SYN
    ],
)
def test_round_trips_to_first_byte(tls_doc: dict, handshake: str, round_trips: int) -> None:
    r = run(tls=tls_doc, tcp={"handshake": handshake})
    assert ttfb(r) == pytest.approx(round_trips * RTT, abs=0.01)
    assert r["counts"]["round_trips"] == round_trips
    version = tls_doc["version"]
    if version != "none":
        resumed = tls_doc.get("resumption") == "all"
        hs = tls.handshake(
            version, resumed, tls_doc.get("early_data", True), 512, 4000, tls_doc.get("false_start", False)
        )
        tcp_trips = 0 if handshake == "fast_open" else 1
        assert ttfb(r) == pytest.approx(tls.first_byte_ms(RTT, hs.round_trips, tcp_trips), abs=0.01)
        assert r["counts"]["tls_handshakes"] == 1 and r["counts"]["tls_bytes"] == sum(hs.flights)


def test_tls_flights_are_packets_with_their_sizes() -> None:
    """TLS 1.3: a 512-byte ClientHello, the server's 4,000-byte flight in three segments (it fits Linux's
    initial window), and the client's Finished sent with the request; the handshake's round trip is
    tls_setup in the breakdown."""
    r = run(tls={"version": "1.3", "resumption": "none"})
    hs = [p for p in r["packets"] if p["object"] == "tls"]
    assert [(p["direction"], p["bytes"]) for p in hs] == [("up", 512), ("down", 1460), ("down", 1460), ("down", 1080)]
    finished_and_request = next(p for p in r["packets"] if p["direction"] == "up" and p["object"] == "html")
    assert finished_and_request["bytes"] == tls.CLIENT_FINISHED_13_BYTES + 200
    assert r["breakdown_ms"]["tls_setup"] == pytest.approx(RTT, abs=0.01)
    assert r["breakdown_ms"]["connection_setup"] == pytest.approx(RTT, abs=0.01)


def test_certificate_larger_than_the_initial_window_costs_a_round() -> None:
    """With an initial window of 2 segments a 4 KB server flight takes two rounds: one RTT more."""
    small = run(tls={"version": "1.3"}, tcp={"initial_window_segments": 2})
    fits = run(tls={"version": "1.3", "server_flight_bytes": 2000}, tcp={"initial_window_segments": 2})
    assert ttfb(small) - ttfb(fits) == pytest.approx(RTT, abs=0.01)


def test_later_connections_resume() -> None:
    """HTTP/1.0 with TLS 1.3: the first connection runs the full handshake, later ones resume with 0-RTT
    (resumption after_first, the default): 3 round trips for the HTML, 2 for each later object."""
    r = run("http10", [1000, 1000], tls={"version": "1.3"})
    assert r["counts"]["tls_handshakes"] == 3
    assert r["page_load_ms"] == pytest.approx((3 + 2 + 2) * RTT, abs=0.01)


def test_dns_lookup_before_the_first_connection_only() -> None:
    """dns.lookup resolver: one resolver round trip (T_dns) before the session's first SYN; the address is
    cached for the other connections."""
    r = run("http10", [1000], dns={"lookup": "resolver", "resolver_rtt_ms": 30})
    assert dns.lookup_ms("resolver", 30) == 30 and dns.lookup_ms("cached", 30) == 0
    assert r["breakdown_ms"]["dns"] == pytest.approx(30, abs=0.01) and r["counts"]["dns_lookups"] == 1
    assert r["page_load_ms"] == pytest.approx(30 + 4 * RTT, abs=0.01)


def test_fast_open_syn_data_and_options_fill_one_mss() -> None:
    """RFC 7413 4.2: the SYN's data and its options (the 12-byte cookie, the 4-byte window scale) fit one MSS, so
    the SYN is no larger than a full data segment (it must fit the path's MTU: ns-3 cannot send a larger one);
    the rest of the request follows the SYN-ACK."""
    r = run(tcp={"handshake": "fast_open", "mss_bytes": 536}, http={"request_bytes": 1000})
    syn = r["packets"][0]
    options = FAST_OPEN_OPTION_BYTES + connection_setup.syn_option_bytes(131_072)  # the linux profile's window
    assert connection_setup.fast_open_syn_data_bytes(536, options) == 536 - options == 520
    assert (syn["kind"], syn["bytes"], syn["wire_bytes"]) == ("SYN", 520, 536 + 40)
    assert sum(p["bytes"] for p in r["packets"] if p["direction"] == "up") == 1000
    assert ttfb(r) == pytest.approx(2 * RTT, abs=0.01)  # the request completes only after the SYN-ACK
    # without window scaling only the cookie: 1,448 bytes at MSS 1460
    assert connection_setup.fast_open_syn_data_bytes(1460, FAST_OPEN_OPTION_BYTES) == 1448
    small = run(
        tcp={"handshake": "fast_open", "mss_bytes": 1460, "receive_window_bytes": 65535}, http={"request_bytes": 3000}
    )
    assert (small["packets"][0]["bytes"], small["packets"][0]["wire_bytes"]) == (1448, 1460 + 40)


def test_fast_open_spill_keeps_ns3_quick_ack() -> None:
    """ns3 profile: data that did not fit on the SYN leaves with the handshake's ACK, and ns-3 still ACKs the
    first response segment at once (ProcessSynSent sends what waited, then fills the delayed-ACK count);
    found by the validation grid's Fast Open block."""
    doc = {"tcp": {"profile": "ns3", "handshake": "fast_open", "mss_bytes": 536}, "http": {"request_bytes": 1000}}
    r = run(**doc)
    down = [p for p in r["packets"] if p["direction"] == "down" and p["kind"] == "DATA"]
    up_acks = [p for p in r["packets"] if p["direction"] == "up" and p["kind"] == "ACK"]
    first = down[0]
    # an ACK leaves the client the instant the first response segment arrives
    assert any(abs(a["sent_ms"] - first["arrival_ms"]) < 1e-6 for a in up_acks)


def test_tls12_false_start_sends_the_request_with_the_client_finished() -> None:
    """RFC 7918: the client's ClientKeyExchange, ChangeCipherSpec and Finished leave in one segment with the
    request, and the server's ChangeCipherSpec and Finished come ahead of the response; one round trip saved."""
    slow = run(tls={"version": "1.2", "resumption": "none"})
    fast = run(tls={"version": "1.2", "resumption": "none", "false_start": True})
    up = [p for p in fast["packets"] if p["direction"] == "up" and p["bytes"] > 0]
    assert [p["bytes"] for p in up] == [512, tls.CLIENT_KEY_EXCHANGE_12_BYTES + 200]  # the request is 200 bytes
    assert fast["counts"]["tls_bytes"] == slow["counts"]["tls_bytes"]
    assert slow["page_load_ms"] - fast["page_load_ms"] == pytest.approx(RTT, abs=0.01)
    assert fast["breakdown_ms"]["tls_setup"] == pytest.approx(slow["breakdown_ms"]["tls_setup"] - RTT, abs=0.01)
    hs = tls.handshake("1.2", False, True, 512, 4000, True)
    assert (hs.ready, hs.round_trips, hs.flights) == (2, 1, tls.handshake("1.2", False, True, 512, 4000).flights)
    assert tls.handshake("1.3", False, True, 512, 4000, True) == tls.handshake("1.3", False, True, 512, 4000)
