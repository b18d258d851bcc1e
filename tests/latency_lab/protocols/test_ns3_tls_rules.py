"""Two ns-3 rules the ns3 profile follows once TLS is on (found by the validation grid's TLS block).

1. A TLS flight written in answer to arriving data leaves after that arrival's ACK (ns-3's ``Send()`` defers
   the transmission by one time step), as the server's responses do (latency_lab.protocols.secure_setup.Dialogue).
2. A client in LAST_ACK closes at the first ACK that arrives, whatever it acknowledges; the ACK of its FIN
   then draws an RST (``profiles.last_ack_any_ack``). With TLS 1.3 early data on HTTP/1.0 the server's ACK of
   EndOfEarlyData can arrive after the client's FIN.

tests/validation/test_ns3.py runs the same cases through ns-3.
"""

from __future__ import annotations

from typing import Any

from latency_lab import predict


def packets(profile: str, proto: str, tls: dict[str, Any], **tcp: Any) -> list[dict[str, Any]]:
    doc: dict[str, Any] = {
        "protocols": [proto],
        "network": {"rtt_ms": 70, "bandwidth_bps": 1_544_000, "packet_overhead_bytes": 42},
        "tcp": {"profile": profile, **tcp},
        "tls": tls,
    }
    out: list[dict[str, Any]] = predict(doc, packets=True)["results"][0]["packets"]
    return out


def test_ns3_server_acks_the_client_hello_before_its_flight() -> None:
    pk = packets("ns3", "persistent", {"version": "1.3", "resumption": "none"})
    down = [p for p in pk if p["direction"] == "down" and p["kind"] != "SYNACK"]
    # ns-3 ACKs the first data segment at once; the server's flight follows that ACK on the link
    assert down[0]["kind"] == "ACK" and down[1]["kind"] == "DATA" and down[1]["object"] == "tls"
    assert down[1]["sent_ms"] >= down[0]["sent_ms"]


def test_bsd_server_flight_carries_the_ack() -> None:
    pk = packets("bsd", "persistent", {"version": "1.3", "resumption": "none"})
    down = [p for p in pk if p["direction"] == "down" and p["kind"] != "SYNACK"]
    assert down[0]["kind"] == "DATA" and down[0]["object"] == "tls"


def test_ns3_last_ack_closed_by_a_stray_ack_answers_with_rst() -> None:
    # 0-RTT on every connection: the request leaves with the ClientHello, the response (and the server's FIN)
    # can be under way before EndOfEarlyData arrives; its ACK then reaches the client after the client's FIN
    tls = {"version": "1.3", "resumption": "all", "early_data": True}
    ns3 = packets("ns3", "http10", tls, delayed_ack_segments=1)
    bsd = packets("bsd", "http10", tls, delayed_ack_segments=1)
    rst = [p for p in ns3 if p["kind"] == "RST"]
    assert rst and all(p["direction"] == "up" for p in rst)
    assert not [p for p in bsd if p["kind"] == "RST"]
    for p in rst:  # the RST answers the ACK of the client's FIN, the connection's last packet from the server
        conn = [q for q in ns3 if q["connection"] == p["connection"]]
        fin = next(q for q in conn if q["direction"] == "up" and q["kind"] == "FIN")
        assert p["queued_ms"] > fin["arrival_ms"]
        assert conn[-1] is p


def test_ns3_without_a_stray_ack_no_rst() -> None:
    pk = packets("ns3", "http10", {"version": "1.3", "resumption": "none"})
    assert not [p for p in pk if p["kind"] == "RST"]
    pk = packets("ns3", "http10", {"version": "none"})
    assert not [p for p in pk if p["kind"] == "RST"]
