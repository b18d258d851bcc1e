"""h2 and h3: streams on one connection (latency_lab.protocols.multiplex, latency_lab.mechanisms.quic, latency_lab.protocols.h2/h3)."""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab import predict, preset
from latency_lab.mechanisms import quic
from latency_lab.protocols.multiplex import round_robin

RTT = 100.0


def run(protos: list[str], objects: list[int], **parts: Any) -> dict[str, dict]:
    doc: dict[str, Any] = {
        "protocols": protos,
        "network": {"rtt_ms": RTT, "bandwidth_bps": parts.pop("bandwidth_bps", 100e9), "packet_overhead_bytes": 40},
        "tcp": {"profile": "linux", **parts.pop("tcp", {})},
        "page": {"html_bytes": 1000, "object_bytes": objects},
        **parts,
    }
    return {r["protocol"]: r for r in predict(doc, packets=True)["results"]}


def ttfb(r: dict) -> float:
    return min(p["arrival_ms"] for p in r["packets"] if p["direction"] == "down" and p["object"] == "html")


def test_round_robin_frames() -> None:
    """RFC 9113 5: streams interleave frame by frame; a stream of n bytes takes ceil(n / frame) turns."""
    assert round_robin([5, 12, 3], 4) == [(0, 4), (1, 4), (2, 3), (0, 1), (1, 4), (1, 4)]
    assert round_robin([], 4) == []


def test_h2_interleaves_responses_so_small_ones_finish_first() -> None:
    """A large image asked for before a small one: pipelined HTTP/1.1 delivers them in order, h2 interleaves
    16 KB frames, so the small one completes in the first frame round (1.5 Mb/s: serialization dominates)."""
    out = run(["pipelined", "h2"], [60_000, 500], bandwidth_bps=1.5e6)
    ends = {p: {o["name"]: o["end_ms"] for o in r["objects"]} for p, r in out.items()}
    assert ends["pipelined"]["obj2"] > ends["pipelined"]["obj1"]
    assert ends["h2"]["obj2"] < ends["h2"]["obj1"]
    assert ends["h2"]["obj1"] - ends["h2"]["obj2"] > 200  # most of the large image follows the small one


def test_h2_requests_are_compressed_and_packed() -> None:
    """After the HTML, 40 requests of 40 bytes (HPACK) leave in two segments, not 40 of 200 bytes."""
    out = run(["pipelined", "h2"], [500] * 40, tcp={"nagle": False})
    up = {p: [x for x in r["packets"] if x["direction"] == "up" and x["bytes"] > 0] for p, r in out.items()}
    assert sum(x["bytes"] for x in up["h2"]) == 200 + 40 * 40
    assert len(up["h2"]) == 1 + 2 and len(up["pipelined"]) > len(up["h2"])  # the HTML's, then two
    assert out["h2"]["counts"]["connections"] == 1


@pytest.mark.parametrize(
    ("tls_doc", "trips"),
    [
        ({"resumption": "none", "server_flight_bytes": 3000}, 2),  # a compressed chain: under the allowance
        ({"resumption": "none"}, 3),  # the default 4,000-byte flight waits for the client's ACK (RFC 9000 8.1)
        ({"resumption": "all"}, 1),
        ({"resumption": "all", "early_data": False}, 2),  # the resumed flight (230 bytes) fits
    ],
)
def test_h3_first_byte_after_one_handshake_round_trip(tls_doc: dict, trips: int) -> None:
    """QUIC's handshake is transport and TLS 1.3 in one round trip (RFC 9000 7, RFC 9001): the first byte after
    2 RTT on a cold connection whose server flight fits the anti-amplification allowance (TCP + TLS 1.3: 3),
    3 RTT when it does not, after 1 RTT with 0-RTT resumption."""
    out = run(["h2", "h3"], [], tls={"version": "1.3", **tls_doc})
    assert ttfb(out["h3"]) == pytest.approx(trips * RTT, abs=0.01)
    tcp_trips = 2 if tls_doc.get("resumption") == "all" and tls_doc.get("early_data", True) else 3
    assert ttfb(out["h2"]) == pytest.approx(tcp_trips * RTT, abs=0.01)
    assert out["h3"]["counts"]["round_trips"] == trips and out["h3"]["breakdown_ms"]["connection_setup"] == 0


def test_quic_amplification_allowance() -> None:
    """RFC 9000 8.1: 3 times the client's padded Initial, in packets of D - 30 crypto bytes: 3,510 for D = 1,200."""
    assert quic.AMPLIFICATION_FACTOR == 3
    assert quic.amplification_allowance_bytes(1200) == 3510
    assert quic.amplification_allowance_bytes(1350) == 3960
    assert quic.handshake(False, True, 1200, 3510).round_trips == 1
    assert quic.handshake(False, True, 1200, 3511).round_trips == 2
    assert quic.handshake(False, True, 1350, 3960).round_trips == 1  # Firefox's 1,350-byte Initial lets 3,960 go
    assert quic.handshake(True, True, 1200, 12_000).round_trips == 0  # resumed: no certificate


@pytest.mark.parametrize(("flight", "datagram"), [(4000, 1200), (3511, 1200), (12_000, 1200), (4000, 1350)])
def test_quic_server_flight_split_at_the_amplification_limit(flight: int, datagram: int) -> None:
    """The server sends 3 (D - 30) bytes of its flight, then the rest when the client's ACK of its first
    packet arrives (that Handshake packet validates the address, RFC 9000 8.1): the rest leaves one round
    trip (and the first packet's and the ACK's sending times) after the first part."""
    out = run(
        ["h3"], [], tls={"resumption": "none", "server_flight_bytes": flight}, quic={"max_datagram_bytes": datagram}
    )
    r = out["h3"]
    pkts = r["packets"]
    allowance = quic.amplification_allowance_bytes(datagram)
    down = [p for p in pkts if p["direction"] == "down" and p["object"] == "tls" and p["bytes"] > 0]
    sent, n = [], 0
    for p in down:
        n += p["bytes"]
        sent.append(n)
    split = sent.index(allowance if allowance < flight else flight)
    assert sent[-1] == flight and r["counts"]["tls_bytes"] == (datagram - 30) + flight + 58
    if flight <= allowance:
        return
    first, rest = down[: split + 1], down[split + 1 :]
    assert sum(p["bytes"] for p in first) == allowance
    # the client's ACK of the flight's first packet, filed as TLS setup, releases the rest when it arrives
    ack = next(p for p in pkts if p["direction"] == "up" and p["kind"] == "ACK" and p["object"] == "tls")
    assert ack["sent_ms"] == pytest.approx(first[0]["arrival_ms"], abs=1e-9)
    assert rest[0]["sent_ms"] == pytest.approx(ack["arrival_ms"], abs=1e-9)
    assert rest[0]["sent_ms"] - first[0]["sent_ms"] == pytest.approx(RTT, abs=0.5)
    assert r["breakdown_ms"]["tls_setup"] == pytest.approx(2 * RTT, abs=1.0)


def test_quic_bigger_flight_grows_the_window_in_slow_start() -> None:
    """The README's h3 paragraph (2026-11-27): the server flight's packets are in flight like data and their ACKs
    grow the window in slow start (RFC 9002 7.3.1), so on one side of the amplification limit a bigger flight
    leaves the responses a bigger window and the page comes a little sooner; crossing the limit costs about a
    round trip. 100 ms, 10 Mb/s, five 20 KB objects."""

    def load(flight: int) -> float:
        doc = {
            "protocols": ["h3"],
            "network": {"rtt_ms": 100, "bandwidth_bps": 10_000_000},
            "page": {"html_bytes": 10_000, "object_bytes": [20_000] * 5},
            "tls": {"server_flight_bytes": flight},
        }
        out: float = predict(doc)["results"][0]["page_load_ms"]
        return out

    small, under, over, big = load(1000), load(3500), load(3750), load(12_000)
    assert under < small and big < over  # more certificate, more window: sooner on each side of the limit
    assert over - under == pytest.approx(100, abs=5)  # the amplification wait: one round trip
    assert (small - under) < 10 and (over - big) < 20  # a few ms of serialization and window, no round trip
    assert (small, under, over, big) == pytest.approx((543.1, 539.3, 637.7, 624.2), abs=0.05)


def test_quic_amplification_wait_is_tls_setup_in_words() -> None:
    """The whole extra round trip is handshake time: the breakdown's tls_setup grows by one RTT, nothing else."""
    big = run(["h3"], [], tls={"resumption": "none", "server_flight_bytes": 4000})["h3"]
    small = run(["h3"], [], tls={"resumption": "none", "server_flight_bytes": 3510})["h3"]
    diff = {k: big["breakdown_ms"][k] - small["breakdown_ms"][k] for k in big["breakdown_ms"]}
    assert diff["tls_setup"] == pytest.approx(RTT, abs=1.0)
    assert all(abs(v) < 1e-6 for k, v in diff.items() if k != "tls_setup")


def test_quic_constants() -> None:
    """RFC 9002 7.2: IW = min(10 D, max(14720, 2 D)); RFC 9000 14.1: a 1200-byte Initial datagram."""
    assert quic.initial_window_bytes(1200) == 12000 and quic.initial_window_segments(1200) == 10
    assert quic.initial_window_bytes(1500) == 14720 and quic.initial_window_segments(1500) == 9
    assert quic.stream_payload_bytes(1200) == 1170
    out = run(["h3"], [], page={"html_bytes": 30_000, "object_bytes": []})
    first = next(p for p in out["h3"]["packets"] if p["direction"] == "up")
    assert first["bytes"] == 1170  # the ClientHello fills the padded Initial
    data = [p for p in out["h3"]["packets"] if p["direction"] == "down" and p["kind"] == "DATA"]
    assert max(p["bytes"] for p in data) == 1170


def test_quic_acks_every_second_packet_or_after_max_ack_delay() -> None:
    """A lone packet's ACK waits max_ack_delay (25 ms, RFC 9000 18.2), not TCP's delayed-ACK timer."""
    out = run(["h3"], [], tcp={"delayed_ack_ms": 200}, page={"html_bytes": 3000, "object_bytes": []})
    held = [p["ack_held_ms"] for p in out["h3"]["packets"] if p["ack_held_ms"] > 0]
    assert held and max(held) <= 25 + 1e-9


def test_modern_protocols_on_the_lighthouse_preset() -> None:
    """With TLS 1.3 everywhere: h2 about as fast as pipelining with fewer packets; h3 saves TCP's round trip
    but, with the default uncompressed 4,000-byte server flight, spends one waiting for the client's ACK
    (anti-amplification limit, RFC 9000 8.1), so it is about as fast as h2; with a compressed chain that fits
    the limit it is about one round trip faster (115 ms of the 150 ms RTT: at 1.6 Mb/s the wait overlaps the
    sending of the flight's first three packets, and the page after it is partly bandwidth-bound)."""
    doc = preset("lighthouse-mobile").model_dump()
    doc["protocols"] = ["pipelined", "h2", "h3"]
    out = {r["protocol"]: r for r in predict(doc)["results"]}
    assert out["h2"]["counts"]["packets"] < out["pipelined"]["counts"]["packets"]
    assert abs(out["h3"]["page_load_ms"] - out["h2"]["page_load_ms"]) < 10
    doc["tls"]["server_flight_bytes"] = 3000
    small = {r["protocol"]: r for r in predict(doc)["results"]}
    assert small["h3"]["page_load_ms"] < small["h2"]["page_load_ms"] - 100
    assert 100 < out["h3"]["page_load_ms"] - small["h3"]["page_load_ms"] < 150
