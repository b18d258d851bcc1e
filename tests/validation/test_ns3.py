"""Scenarios run through ns-3 and compared with the model (ns3 TCP profile).

These need the ``ns3`` package and skip without it. The model's ns3 profile follows ns-3's own rules
(byte-counted slow start, the server's immediate ACK of the first request, a FIN on data ACKed alone),
so ns-3 runs as it is and the cases below agree packet for packet.
"""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab.scenario.params import resolve
from validation.compare import compare
from validation.sim import SimulationError, as_scenario, setup_text

pytestmark = [pytest.mark.validation, pytest.mark.ns3]

NS3 = {"profile": "ns3"}
LINK = {"rtt_ms": 70, "bandwidth_bps": 1_544_000}


def _rows(sim: Any, doc: dict[str, Any], quickack: bool = True) -> dict[str, dict[str, Any]]:
    return {r["protocol"]: r for r in compare(doc, sim, quickack=quickack)["rows"]}


def test_one_object_http10_agrees(ns3_sim: Any) -> None:
    rows = _rows(ns3_sim, {"protocols": ["http10"], "network": LINK, "tcp": NS3, "page": {"object_bytes": []}})
    r = rows["http10"]
    assert abs(r["error"]) < 0.001
    assert r["ns3"]["packets"] == r["model"]["packets"]
    assert r["ns3"]["data_packets"] == r["model"]["data_packets"]


def test_persistent_few_objects_agree(ns3_sim: Any) -> None:
    doc = {"protocols": ["persistent", "pipelined", "getall"], "network": LINK, "tcp": NS3}
    for r in _rows(ns3_sim, doc).values():
        assert abs(r["error"]) < 0.001, r["protocol"]
        assert r["ns3"]["packets"] == r["model"]["packets"], r["protocol"]
        for o in r["objects"]:
            assert o["ns3_end_ms"] == pytest.approx(o["model_end_ms"], abs=0.1)


def test_nagle_stalls_agree(ns3_sim: Any) -> None:
    doc = {
        "protocols": ["persistent", "pipelined"],
        "network": LINK,
        "tcp": {"profile": "ns3", "nagle": True, "mss_bytes": 1460, "initial_window_segments": 2},
    }
    for r in _rows(ns3_sim, doc).values():
        assert r["ns3"]["nagle_stalls"] == r["model"]["nagle_stalls"] > 0, r["protocol"]
        assert abs(r["error"]) < 0.001, r["protocol"]


@pytest.mark.parametrize("writes", ["each", "one"])
def test_pipelined_request_writes_agree(ns3_sim: Any, writes: str) -> None:
    """Issue 16, item 5: the pipelined requests written each on its own or all in one write (libwww's, seed
    004), with Nagle on at the client: packet for packet with ns-3 either way, and one write sends the eight
    requests in fewer segments (harness.cc RequestsInOneWrite)."""
    doc = {
        "protocols": ["pipelined"],
        "network": LINK,
        "tcp": {"profile": "ns3", "nagle": True, "initial_window_segments": 2},
        "http": {"pipeline_writes": writes},
        "page": {"html_bytes": 6000, "object_count": 8, "object_size_bytes": 2544},
    }
    r = _rows(ns3_sim, doc)["pipelined"]
    assert abs(r["error"]) < 1e-6
    for key in ("packets", "data_packets", "nagle_stalls", "delayed_ack_stalls"):
        assert r["ns3"][key] == r["model"][key], key
    assert "pipeline_one " + str(int(writes == "one")) in setup_text(resolve(as_scenario(doc)), "pipelined")


def test_close_sends_what_nagle_holds(ns3_sim: Any) -> None:
    """HTTP/1.0 with Nagle on: the short tail leaves with the FIN, not an ACK later (seed 000, 2.3)."""
    doc = {
        "protocols": ["http10"],
        "network": LINK,
        "tcp": {"profile": "ns3", "nagle": True, "mss_bytes": 1460, "initial_window_segments": 10},
        "page": {"html_bytes": 2800, "object_bytes": []},
    }
    r = _rows(ns3_sim, doc)["http10"]
    assert r["ns3"]["nagle_stalls"] == 0
    assert abs(r["error"]) < 0.001


def test_handshake_none_and_asymmetric_path(ns3_sim: Any) -> None:
    doc = {
        "protocols": ["http10_parallel", "persistent"],
        "network": {"uplink_delay_ms": 10, "downlink_delay_ms": 40, "bandwidth_bps": 10e6, "uplink_bandwidth_bps": 1e6},
        "tcp": {"profile": "ns3", "handshake": "none"},
    }
    rows = _rows(ns3_sim, doc)
    for r in rows.values():
        assert r["ns3"]["control_packets"] == r["model"]["control_packets"], r["protocol"]  # FINs only
    assert abs(rows["persistent"]["error"]) < 0.0005
    assert abs(rows["http10_parallel"]["error"]) < 0.0005


def test_quickack_costs_one_ack_per_connection(ns3_sim: Any) -> None:
    """ns-3 as it is: the request of every new connection is ACKed at once by a pure ACK."""
    doc = {"protocols": ["http10"], "network": LINK, "tcp": NS3}
    stock = _rows(ns3_sim, doc, quickack=True)["http10"]
    plain = _rows(ns3_sim, doc, quickack=False)["http10"]
    assert stock["ns3"]["ack_packets"] - plain["ns3"]["ack_packets"] == stock["ns3"]["connections"]


TLS_VARIANTS = [
    {"version": "1.2", "resumption": "none"},
    {"version": "1.2", "resumption": "after_first"},
    {"version": "1.3", "resumption": "none"},
    {"version": "1.3", "resumption": "after_first", "early_data": False},
    {"version": "1.3", "resumption": "all", "early_data": True},
    {"version": "1.2", "resumption": "none", "false_start": True},
    {"version": "1.2", "resumption": "after_first", "false_start": True},
]


@pytest.mark.parametrize(
    "tls",
    TLS_VARIANTS,
    ids=lambda t: f"{t['version']}-{t['resumption']}-{t.get('early_data')}" + ("-fs" if t.get("false_start") else ""),
)
def test_tls_handshakes_agree_packet_for_packet(ns3_sim: Any, tls: dict[str, Any]) -> None:
    """ns-3 runs each handshake's flights as application writes (issue 7): the same packets, the same times."""
    doc = {
        "protocols": ["http10_parallel", "persistent"],
        "network": LINK,
        "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 2},
        "page": {"html_bytes": 3000, "object_bytes": [2000, 8000, 500]},
        "tls": {**tls, "client_hello_bytes": 1800, "server_flight_bytes": 6000},
    }
    for r in _rows(ns3_sim, doc).values():
        assert abs(r["error"]) < 1e-5, r["protocol"]
        assert r["ns3"] == r["model"], r["protocol"]


@pytest.mark.parametrize("protocol", ["http10", "persistent", "h2"])
def test_false_start_agrees_and_saves_a_round_trip(ns3_sim: Any, protocol: str) -> None:
    """Issue 16: TLS 1.2 False Start (RFC 7918) in ns-3 as in the model: the request leaves with the client's
    Finished, before the server's Finished arrives; the same packets and times, about a round trip saved on each
    full handshake, and nothing changed where the handshake is resumed or 1.3."""
    doc = {
        "protocols": [protocol],
        "network": LINK,
        "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 2},
        "page": {"html_bytes": 3000, "object_bytes": [2000, 8000, 500]},
    }
    tls = {"version": "1.2", "resumption": "none", "client_hello_bytes": 512, "server_flight_bytes": 6000}
    result = compare({**doc, "tls": {**tls, "false_start": True}}, ns3_sim)
    row = result["rows"][0]
    assert abs(row["error"]) < 1e-5
    assert row["ns3"] == row["model"]
    # on the first connection the client's second segment is its Finished flight (126 bytes) with the 200-byte
    # request; without False Start the Finished flight leaves alone
    plain_result = compare({**doc, "tls": tls}, ns3_sim)
    plain = plain_result["rows"][0]
    for res, second in ((result, 126 + 200), (plain_result, 126)):
        pkts = ns3_sim.run(res["scenario"], protocol)["packets"]
        up = [pk for pk in pkts if pk["connection"] == 0 and pk["bytes"] > 0 and pk["direction"] == "up"]
        assert [pk["bytes"] for pk in up[:2]] == [512, second]
    saved = plain["ns3_ms"] - row["ns3_ms"]
    assert plain["model_ms"] - row["model_ms"] == pytest.approx(saved, abs=1e-5)
    # at least a round trip on each connection (they open one after another here), less the server Finished's
    # serialization ahead of the response (h2 saved 77.8 ms here in a run on 2026-11-27)
    assert saved >= 0.95 * 70 * row["ns3"]["connections"]
    for other in ({**tls, "resumption": "all"}, {**tls, "version": "1.3"}):
        fs = _rows(ns3_sim, {**doc, "tls": {**other, "false_start": True}})[protocol]
        assert fs["ns3"] == fs["model"]
        assert fs["ns3_ms"] == _rows(ns3_sim, {**doc, "tls": other})[protocol]["ns3_ms"]


def test_0rtt_rst_after_last_ack(ns3_sim: Any) -> None:
    """ns-3 forgets a LAST_ACK connection at the first ACK; the ACK of the FIN then draws an RST (latency_lab.scenario.profiles,
    last_ack_any_ack). TLS 1.3 0-RTT on HTTP/1.0, ACKing every segment: the server's ACK of EndOfEarlyData comes
    after its FIN."""
    doc = {
        "protocols": ["http10"],
        "network": LINK,
        "tcp": {"profile": "ns3", "delayed_ack_segments": 1},
        "tls": {"version": "1.3", "resumption": "all", "early_data": True},
    }
    result = compare(doc, ns3_sim)
    r = result["rows"][0]
    rst = [pk for pk in ns3_sim.run(result["scenario"], "http10")["packets"] if pk["kind"] == "RST"]
    assert 0 < len(rst) < r["ns3"]["connections"]  # not the first: its EndOfEarlyData is ACKed before the FIN
    assert r["ns3"] == r["model"]
    assert abs(r["error"]) < 1e-5


def test_dns_lookup_delays_the_first_connection_only(ns3_sim: Any) -> None:
    """A UDP query to a resolver node `resolver_rtt_ms` away: the page ends that much later, nothing else changes."""
    base = {
        "protocols": ["http10", "pipelined"],
        "network": LINK,
        "tcp": NS3,
        "tls": {"version": "1.3"},
    }
    plain = _rows(ns3_sim, base)
    looked = _rows(ns3_sim, {**base, "dns": {"lookup": "resolver", "resolver_rtt_ms": 33.3}})
    for proto, r in looked.items():
        assert abs(r["error"]) < 1e-5, proto
        assert r["ns3"] == r["model"] == plain[proto]["ns3"], proto  # the lookup's packets are not on the path
        assert r["ns3_ms"] - plain[proto]["ns3_ms"] == pytest.approx(33.3, abs=1e-5), proto


# --------------------------------------------------------------------------------------------- Fast Open
def _fast_open(sim: Any, doc: dict[str, Any], protocol: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The comparison row and ns-3's packets of one protocol."""
    result = compare({**doc, "protocols": [protocol]}, sim)
    return result["rows"][0], sim.run(result["scenario"], protocol)["packets"]


@pytest.mark.parametrize("protocol", ["http10", "persistent", "pipelined"])
def test_fast_open_agrees_and_saves_the_handshake_round_trip(ns3_sim: Any, protocol: str) -> None:
    """Issue 7: ns-3 runs TCP Fast Open (harness.cc's TfoSocket): the request on the SYN, the response before the
    handshake completes; the same packets and times as the model, and one round trip per connection saved."""
    doc = {
        "network": LINK,
        "tcp": {"profile": "ns3", "mss_bytes": 1460, "initial_window_segments": 2, "handshake": "fast_open"},
        "page": {"html_bytes": 3000, "object_bytes": [2000, 8000]},
    }
    row, pkts = _fast_open(ns3_sim, doc, protocol)
    assert abs(row["error"]) < 1e-5
    assert row["ns3"] == row["model"]
    syns = [pk for pk in pkts if pk["kind"] == "SYN"]
    assert syns and all(pk["bytes"] == 200 for pk in syns)  # the whole 200-byte request rides on every SYN
    assert all(pk["wire_bytes"] == 200 + 42 + 12 + 4 for pk in syns)  # cookie option (12) and window scale (4)
    # the response's first segment leaves before the handshake's ACK reaches the server
    first_data = min(pk["queued_ms"] for pk in pkts if pk["kind"] == "DATA" and pk["direction"] == "down")
    hs_ack = min(pk["arrival_ms"] for pk in pkts if pk["kind"] == "ACK" and pk["direction"] == "up")
    assert first_data < hs_ack
    three_way = _rows(ns3_sim, {**doc, "protocols": [protocol], "tcp": {**doc["tcp"], "handshake": "three_way"}})
    # at least the handshake's round trip on each connection (they open one after another here); pipelined
    # saves a second one, its response's first flight no longer waiting a slow-start round
    saved = three_way[protocol]["ns3_ms"] - row["ns3_ms"]
    assert saved >= 0.95 * row["ns3"]["connections"] * 70


def test_fast_open_request_past_the_syn(ns3_sim: Any) -> None:
    """A request larger than the SYN can carry: MSS less the options on the SYN, the rest after the SYN-ACK; ns-3's
    client still ACKs the first response segment at once (found by the grid's Fast Open block, now in the ns3
    profile), and TLS 1.3 with 0-RTT puts the ClientHello and the request's start on the SYN."""
    doc = {
        "network": LINK,
        "tcp": {"profile": "ns3", "mss_bytes": 536, "initial_window_segments": 4, "handshake": "fast_open"},
        "http": {"request_bytes": 1500},
        "page": {"html_bytes": 5000, "object_bytes": [3000, 3000]},
    }
    for extra in ({}, {"tls": {"version": "1.3", "resumption": "all", "early_data": True}}):
        for protocol in ("http10", "pipelined"):
            row, pkts = _fast_open(ns3_sim, {**doc, **extra}, protocol)
            assert abs(row["error"]) < 1e-5, (extra, protocol)
            assert row["ns3"] == row["model"], (extra, protocol)
            assert {pk["bytes"] for pk in pkts if pk["kind"] == "SYN"} == {536 - 12 - 4}


def test_fast_open_with_loss_is_refused(ns3_sim: Any) -> None:
    """The Fast Open socket is built for lossless runs (no retransmission of data on a SYN)."""
    s = as_scenario({"protocols": ["http10"], "tcp": {"profile": "ns3", "handshake": "fast_open"}})
    text = setup_text(resolve(s), "http10") + " loss_rate 0.01 seed 1"
    with pytest.raises(SimulationError, match="without loss only"):
        ns3_sim.run_trace(text)
    assert ns3_sim.run_trace(setup_text(resolve(s), "http10"))  # the worker lives on


# ------------------------------------------------------------------------------------------------- h2
@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"tls": {"version": "1.3"}},
        {"tcp": {**NS3, "handshake": "fast_open", "mss_bytes": 536}},
        {"http": {"server_think_ms": 3.0, "client_think_ms": 2.0, "connection_overhead_ms": 5.0}},
    ],
    ids=["plain", "tls13", "fast_open", "think"],
)
def test_h2_streams_agree_packet_for_packet(ns3_sim: Any, extra: dict[str, Any]) -> None:
    """Issue 7: HTTP/2 in ns-3 as latency_lab/protocols/multiplex.py defines it (harness.cc's StreamRequests/StreamRespond): 30
    object requests of 40 bytes in one write after the HTML (more than one segment at MSS 536, so the server
    answers them in several batches), responses interleaved round-robin by 16 KB frame; each object ends when
    its last frame arrives."""
    sizes = [300 + 997 * (i % 7) * (i % 5) for i in range(30)] + [70_000]
    doc = {
        "protocols": ["h2"],
        "network": LINK,
        "tcp": {**NS3, "mss_bytes": 536, "nagle": True},
        "page": {"html_bytes": 6000, "object_bytes": sizes},
        **extra,
    }
    result = compare(doc, ns3_sim)
    r = result["rows"][0]
    assert abs(r["error"]) < 1e-5
    assert r["ns3"] == r["model"]
    sim = ns3_sim.run(result["scenario"], "h2")
    ends = [o["end_ms"] for o in sim["objects"]]
    assert max(ends) == ends[-1]  # the 70 KB object, interleaved with the others, ends last
    served = [line for line in ns3_sim.run_trace(setup_text(resolve(as_scenario(doc)), "h2")).splitlines()]
    assert sum(1 for line in served if line.startswith("RESP ")) >= 3  # the HTML's batch and at least two more


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"http": {"parallel_connections": 3, "preconnect": True}},
        {"http": {"parallel_connections": 6}, "tls": {"version": "1.3"}},
        {"http": {"parallel_connections": 4, "preconnect": True}, "tcp": {**NS3, "handshake": "none"}},
        {
            "http": {"parallel_connections": 2, "server_think_ms": 3.0, "client_think_ms": 2.0},
            "dns": {"lookup": "resolver"},
        },
        {
            "http": {"parallel_connections": 3},
            "tcp": {**NS3, "nagle": True, "mss_bytes": 1460, "initial_window_segments": 2},
        },
    ],
    ids=["plain", "preconnect", "tls13", "none_preconnect", "think_dns", "nagle"],
)
def test_persistent_parallel_agrees_packet_for_packet(ns3_sim: Any, extra: dict[str, Any]) -> None:
    """Issue 28: persistent connections in parallel in ns-3 as latency_lab/protocols/persistent_parallel.py defines them
    (harness.cc's Ready and Preconnect): the HTML on one connection, then each object on the first free one, new
    connections opened while fewer than http.parallel_connections are; every packet and every object's end agree.
    Not with tcp.handshake fast_open: there the HTML's connection's next response and a new connection's first one
    (its request on the SYN) leave the server at the same instant, and ns-3 puts them on the link in the other order
    (page load 0.4 % apart on this page, 2026-11-28)."""
    doc = {
        "protocols": ["persistent_parallel"],
        "network": LINK,
        "tcp": NS3,
        "page": {"html_bytes": 6000, "object_bytes": [300 + 997 * (i % 7) * (i % 5) for i in range(11)]},
        **extra,
    }
    doc["http"] = {"parallel_connections": 4, **extra.get("http", {})}
    r = _rows(ns3_sim, doc)["persistent_parallel"]
    assert abs(r["error"]) < 1e-5
    assert r["ns3"] == r["model"]
    for o in r["objects"]:
        assert o["ns3_end_ms"] == pytest.approx(o["model_end_ms"], abs=0.01)
