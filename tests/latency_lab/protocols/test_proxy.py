"""Split proxies (latency_lab.protocols.proxy; seed 003, "US and NZ proxies", "US Proxy Model", table 1)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from latency_lab import Scenario, predict
from latency_lab.analysis.predict import expression, simulate
from latency_lab.engine.core import DOWN
from latency_lab.scenario.params import resolve

#: A satellite round trip (seed 003, table 1: 320 ms each way) on an E3, one 12,925-byte object,
#: legs at either end too short and fast to matter, Nagle off and an ACK per segment.
SAT: dict[str, Any] = {
    "protocols": ["http10"],
    "network": {"rtt_ms": 640, "bandwidth_bps": 34_368_000},
    "tcp": {"mss_bytes": 1460, "receive_window_bytes": 32767, "nagle": False, "delayed_ack_ms": 0},
    "page": {"html_bytes": 12925, "object_bytes": []},
}


def _doc(architecture: str = "split_proxy", **proxy: Any) -> dict[str, Any]:
    d = copy.deepcopy(SAT)
    d["proxy"] = {
        "architecture": architecture,
        "client_leg": {"delay_ms": 0},
        "server_leg": {"delay_ms": 0},
        **proxy,
    }
    return d


def _result(doc: dict[str, Any], protocol: str | None = None) -> dict[str, Any]:
    if protocol is not None:
        doc = {**doc, "protocols": [protocol]}
    return dict(predict(doc, packets=True)["results"][0])


def test_warm_long_haul_costs_one_round_trip() -> None:
    """Seed 003: "the reuse of the international TCP connections saving most of the cost of slow start and
    opening a TCP connection". Direct, the object takes a handshake, the request and two slow-start rounds
    over the satellite; through the proxies one long-haul round trip and the object's transmission."""
    direct = _result(_doc("direct"))
    split = _result(_doc())
    assert direct["counts"]["round_trips"] == 4 and direct["counts"]["slow_start_rounds"] == 2
    assert split["counts"]["round_trips"] == 1 and split["counts"]["slow_start_rounds"] == 0
    assert 640 < split["page_load_ms"] < 640 + 5  # RTT plus a few ms of E3 and leg serialization
    assert split["breakdown_ms"]["slow_start_idle"] == 0
    long_haul = [p for p in split["packets"] if p["leg"] == "long_haul"]
    assert long_haul and not any(p["kind"] in ("SYN", "SYNACK", "FIN") for p in long_haul)
    assert {p["leg"] for p in split["packets"]} == {"client", "long_haul", "server"}
    assert split["counts"]["connections"] == 3  # client - local proxy, the warm long haul, remote proxy - server


def test_multiplexing_overhead_per_relayed_segment() -> None:
    """Seed 003: "The overhead of multiplexing is assumed to be, on average, 20 bytes per HTTP reply segment
    received from an HTTP server": the long haul carries the reply plus 20 bytes for each server segment."""
    for mux in (0, 20, 100):
        r = _result(_doc(mux_overhead_bytes=mux))
        server = [p for p in r["packets"] if p["leg"] == "server" and p["direction"] == "down" and p["bytes"] > 0]
        long_haul = [p for p in r["packets"] if p["leg"] == "long_haul" and p["direction"] == "down"]
        reply = 12925 + 200
        assert sum(p["bytes"] for p in server) == reply
        assert sum(p["bytes"] for p in long_haul) == reply + mux * len(server)
        client = [p for p in r["packets"] if p["leg"] == "client" and p["direction"] == "down"]
        assert sum(p["bytes"] for p in client) == reply  # the local proxy strips the header


def _flights(doc: dict[str, Any], link: int) -> list[float]:
    """Bytes in flight on ``link`` of the first connection using it, at each data segment's departure."""
    s = simulate(resolve(Scenario.model_validate(doc)), doc["protocols"][0])
    pkts = s.eng.packets
    conn = next(p.conn for p in pkts if p.dir == link and p.n > 0)
    data = [p for p in pkts if p.conn == conn and p.dir == link and p.n > 0]
    acks = [p for p in pkts if p.conn == conn and p.dir == link ^ 1]
    out = []
    for p in data:
        acked = max((a.ack for a in acks if a.t_a <= p.t_s), default=0.0)
        out.append(p.seq_end - acked)
    return out


def test_long_haul_window_limits_the_flight() -> None:
    """The proxies' TCP buffer (seed 003, table 1: 32,767 bytes) caps what the warm connection has in flight
    over the satellite: a 200 KB reply is sent a window per round trip, never more."""
    doc = _doc(long_haul_receive_window_bytes=32767)
    doc["page"]["html_bytes"] = 200_000
    flights = _flights(doc, DOWN)
    assert max(flights) <= 32767 and max(flights) > 32767 - 2 * 1480
    r = _result(doc)
    assert r["counts"]["round_trips"] == 7  # 200,200 bytes and headers in windows of 22 segments


def test_more_long_haul_connections_share_the_window_limit() -> None:
    """Seed 003: "performance may be limited by the number of TCP connections available between the proxies".
    Two parallel objects of 100 KB finish sooner over two window-limited connections than over one."""
    doc = _doc(long_haul_receive_window_bytes=32767)
    doc["protocols"] = ["http10_parallel"]
    doc["http"] = {"parallel_connections": 2}
    doc["page"] = {"html_bytes": 1000, "object_bytes": [100_000, 100_000]}
    one = _result(doc)["page_load_ms"]
    doc["proxy"]["long_haul_connections"] = 2
    two = _result(doc)
    assert two["page_load_ms"] < one - 640  # at least one satellite round trip saved
    lanes = {p["connection"] for p in two["packets"] if p["leg"] == "long_haul" and p["bytes"] > 0}
    assert len(lanes) == 2  # each reply took the least loaded connection


def test_replies_reach_the_client_in_order() -> None:
    """Pipelined requests spread over two long-haul connections: the small second reply overtakes the large
    first one on the satellite, and the local proxy holds it until the first has been forwarded."""
    doc = _doc(long_haul_connections=2, long_haul_receive_window_bytes=32767)
    doc["protocols"] = ["pipelined"]
    doc["page"] = {"html_bytes": 500, "object_bytes": [100_000, 500]}
    r = _result(doc)
    down = [p for p in r["packets"] if p["leg"] == "long_haul" and p["direction"] == "down" and p["bytes"] > 0]
    last = {name: max(p["arrival_ms"] for p in down if p["object"] == name) for name in ("obj1", "obj2")}
    assert last["obj2"] < last["obj1"] - 640  # overtook by more than a round trip
    ends = {o["name"]: o["end_ms"] for o in r["objects"]}
    assert ends["obj1"] <= ends["obj2"]
    client = [p for p in r["packets"] if p["leg"] == "client" and p["direction"] == "down" and p["bytes"] > 0]
    order = [p["object"] for p in client]
    assert order.index("obj2") > max(i for i, name in enumerate(order) if name == "obj1")


@pytest.mark.parametrize(("protocol", "server_connections"), [("http10", 4), ("persistent", 1), ("pipelined", 1)])
def test_persistence_is_kept_to_the_server(protocol: str, server_connections: int) -> None:
    """Seed 003, Persistent HTTP: with proxies, persistence is used between the remote proxy and the server;
    HTTP/1.0 opens a server connection for each request."""
    doc = _doc()
    doc["page"] = {"html_bytes": 3000, "object_count": 3, "object_size_bytes": 2000}
    r = _result(doc, protocol)
    opened = {p["connection"] for p in r["packets"] if p["kind"] == "SYN" and p["leg"] == "server"}
    assert len(opened) == server_connections
    assert r["counts"]["connections"] == 1 + 2 * server_connections


def test_long_haul_does_not_restart_after_idle() -> None:
    """Seed 003: with the proxies "slow start only occurs once for each inter-proxy TCP connection": a user who
    waits 10 s between pages finds the long haul's window open, though the legs restart (idle_restart
    slow_start)."""
    doc = _doc()
    doc["protocols"] = ["persistent"]
    doc["tcp"]["idle_restart"] = "slow_start"
    doc["session"] = {"pages": 2, "think_time_ms": 10_000}
    doc["page"]["html_bytes"] = 60_000
    r = _result(doc)
    long_haul = {p["connection"] for p in r["packets"] if p["leg"] == "long_haul"}
    restarted = {e["connection"] for e in r["events"] if e["kind"] == "slow_start_restart"}
    assert restarted and not restarted & long_haul
    assert [p["counts"]["round_trips"] for p in r["pages"]] == [2, 2]  # 60 KB: two windows of 32,767 bytes


def test_direct_ignores_the_legs() -> None:
    """With architecture direct the proxy settings change nothing."""
    plain = predict(SAT)["results"][0]
    doc = _doc("direct", long_haul_connections=4, mux_overhead_bytes=99)
    doc["proxy"]["client_leg"] = {"delay_ms": 50, "bandwidth_bps": 64_000}
    assert predict(doc)["results"][0] == plain


def test_leg_delays_and_windows_have_their_own_symbols() -> None:
    """The formula names each leg: the client and server legs' delays and rates, the long haul's RTT and B;
    HTTP/1.0 on a new client connection crosses the client leg four times and the long haul twice."""
    doc = _doc()
    doc["proxy"]["client_leg"] = {"delay_ms": 2, "bandwidth_bps": 10e6}
    doc["proxy"]["server_leg"] = {"delay_ms": 5, "bandwidth_bps": 10e6}
    e = expression(Scenario.model_validate(doc), "http10")["page_load_ms"]
    names = {str(x) for x in e.free_symbols}
    assert {"RTT", "d_c", "d_s", "B", "B_c", "B_s", "m"} <= names
    d_c = next(x for x in e.free_symbols if str(x) == "d_c")
    rtt = next(x for x in e.free_symbols if str(x) == "RTT")
    assert e.coeff(d_c) == 4 and e.coeff(rtt) == 1


@pytest.mark.parametrize(
    "field", ["client_leg.receive_window_bytes", "server_leg.receive_window_bytes", "long_haul_receive_window_bytes"]
)
def test_a_leg_window_below_one_segment_is_refused(field: str) -> None:
    doc = _doc()
    part, _, name = field.rpartition(".")
    (doc["proxy"][part] if part else doc["proxy"])[name] = 1000
    with pytest.raises(ValidationError, match=f"proxy.{field} \\(1000\\) must be at least tcp.mss_bytes"):
        Scenario.model_validate(doc)


def test_a_split_page_is_limited_by_its_relayed_segments() -> None:
    doc = _doc()
    doc["page"]["html_bytes"] = 5_000_000  # 3,425 segments, relayed over three legs
    with pytest.raises(ValidationError, match="over the three legs"):
        Scenario.model_validate(doc)


def test_split_paths_cost_three_legs_of_work() -> None:
    """The API's work estimate (latency_lab.scenario.limits) counts every segment on each of the three legs, and prices a
    split path's run as any other (the native engine runs it too, latency_lab/engine/native/proxy.cpp)."""
    from latency_lab.scenario.limits import RUN_COSTS, base_units, run_kind, work_units

    direct, split = (Scenario.model_validate(_doc(a)) for a in ("direct", "split_proxy"))
    for protocol in direct.protocols:
        assert base_units(split, protocol) == 3 * base_units(direct, protocol)
    assert run_kind(split) == "plain"
    factor, fixed = RUN_COSTS[run_kind(split)]
    assert work_units(split) == sum(3 * base_units(direct, p) * factor + fixed for p in direct.protocols)
