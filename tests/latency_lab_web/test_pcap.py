"""The TCP header fields of the model's packets (latency_lab_web/web/pcap.py tcp_fields): what the pcap file carries and the
stepping ladder shows."""

from __future__ import annotations

import pytest

from latency_lab import predict, preset
from latency_lab_web.web.pcap import ISN, TcpFields, tcp_fields


def packets(protocol: str) -> list[dict]:
    doc = {**preset("h96-lan").model_dump(), "protocols": [protocol]}
    out: list[dict] = list(predict(doc, packets=True)["results"][0]["packets"])
    return out


@pytest.mark.parametrize("protocol", ["http10", "persistent", "http10_parallel", "pipelined"])
def test_sequence_numbers_count_each_directions_bytes(protocol: str) -> None:
    rows = packets(protocol)
    fields = tcp_fields(rows)
    assert set(fields) == {p["n"] for p in rows}
    for conn in {p["connection"] for p in rows}:
        for direction in ("up", "down"):
            side = sorted(
                (p for p in rows if p["connection"] == conn and p["direction"] == direction),
                key=lambda p: (p["sent_ms"], p["n"]),
            )
            expected = ISN[direction]
            for p in side:
                assert fields[p["n"]].seq == expected
                expected += p["bytes"] + (p["kind"] in ("SYN", "SYNACK")) + bool(p["fin"])


def test_the_handshake_acknowledges_the_syns() -> None:
    rows = packets("http10")
    f = tcp_fields(rows)
    first = rows[0]["connection"]
    syn, synack, ack = (
        next(p for p in rows if p["kind"] == k and p["connection"] == first) for k in ("SYN", "SYNACK", "ACK")
    )
    assert f[syn["n"]] == TcpFields(ISN["up"], None, "SYN", 65535)
    assert f[synack["n"]].ack == ISN["up"] + 1 and f[synack["n"]].flags == "SYN, ACK"
    assert f[ack["n"]].ack == ISN["down"] + 1


def test_an_ack_acknowledges_what_had_arrived_when_it_left() -> None:
    rows = packets("persistent")
    f = tcp_fields(rows, receive_window_bytes=10**9)
    for p in rows:
        if f[p["n"]].ack is None:
            continue
        other = "down" if p["direction"] == "up" else "up"
        arrived = sum(
            q["bytes"] + (q["kind"] in ("SYN", "SYNACK")) + bool(q["fin"])
            for q in rows
            if q["connection"] == p["connection"] and q["direction"] == other and q["arrival_ms"] <= p["sent_ms"]
        )
        assert f[p["n"]].ack == ISN[other] + arrived
        assert f[p["n"]].window == 65535  # capped: no window scaling in the file


@pytest.mark.parametrize("protocol", ["http10_parallel", "persistent"])
def test_the_fields_of_some_packets_are_theirs_among_all(protocol: str) -> None:
    """``only``: the ladder's page asks for the packets it draws; each gets the fields it has among all of them."""
    rows = packets(protocol)
    every = tcp_fields(rows)
    some = {p["n"] for p in rows[1::3]}
    assert tcp_fields(rows, only=some) == {n: f for n, f in every.items() if n in some}
