"""The trace analysis on traces ns-3 produced (stored in data/): no ns-3 needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario
from validation.analyze import analyze, parse
from validation.sim import SimulationError, as_scenario, setup_text, unsupported

pytestmark = pytest.mark.validation

DATA = Path(__file__).with_name("data")


def _case(name: str) -> tuple[str, Scenario]:
    doc = json.loads((DATA / f"{name}.json").read_text())
    return (DATA / f"{name}.trace").read_text(), Scenario.model_validate(doc)


def test_one_object_http10() -> None:
    """One 6000-byte HTML over HTTP/1.0, ns-3 profile: every packet of the schedule is counted."""
    trace, s = _case("http10_one_object")
    r = analyze(trace, resolve(s))
    assert r["page_load_ms"] == pytest.approx(223.937827, abs=1e-6)
    c = r["counts"]
    # SYN, SYN-ACK, FIN (server's FIN rides on its last data segment); 12 response segments + request
    assert (c["control_packets"], c["data_packets"], c["ack_packets"]) == (3, 13, 8)
    assert c["packets"] == 24 and c["connections"] == 1
    # 46-byte SYN and SYN-ACK (window-scale option), 42 bytes of headers on every other packet
    assert c["bytes_on_wire"] == 2 * 46 + 22 * 42 + 200 + 6000 + 200
    assert (c["delayed_ack_stalls"], c["nagle_stalls"], c["slow_start_rounds"], c["timer_acks"]) == (0, 0, 1, 0)
    assert [e["kind"] for e in r["events"]] == ["slow_start_idle"]
    assert r["objects"] == [
        {"name": "html", "bytes": 6000, "connection": 0, "start_ms": 0.0, "end_ms": pytest.approx(223.937827)}
    ]


def test_nagle_stalls_are_found() -> None:
    """Persistent connection, Nagle on: each response's short tail waits for the client's delayed ACK."""
    trace, s = _case("persistent_nagle")
    r = analyze(trace, resolve(s))
    c = r["counts"]
    assert c["nagle_stalls"] == 3 and c["timer_acks"] == 3 and c["delayed_ack_stalls"] == 0
    stalls = [e for e in r["events"] if e["kind"] == "nagle_stall"]
    assert all(e["sender"] == "server" for e in stalls)
    # the last two wait a whole 200 ms timer plus the ACK's trip: 200 + 70.2 ms
    assert [round(e["duration_ms"], 2) for e in stalls] == [70.22, 270.22, 270.22]


def test_delayed_ack_stalls_are_found() -> None:
    """IW 1 and a flushed 200-byte header: ns-3's window waits for delayed ACKs (twice, see the report)."""
    trace, s = _case("header_flush_iw1")
    r = analyze(trace, resolve(s))
    stalls = [e for e in r["events"] if e["kind"] == "delayed_ack_stall"]
    assert [round(e["duration_ms"], 6) for e in stalls] == [200.0, 200.0]
    assert r["counts"]["slow_start_rounds"] == 2


def test_parse_maps_packets_to_connections() -> None:
    trace, _ = _case("persistent_nagle")
    tr = parse(trace)
    assert tr.drops == 0 and tr.unused == 0
    assert {pk.conn for pk in tr.pkts} == {0}
    assert [pk.kind for pk in tr.pkts[:3]] == ["SYN", "ACK", "DATA"]  # uplink first: SYN, handshake ACK, request


def test_drops_are_refused() -> None:
    trace, s = _case("http10_one_object")
    with pytest.raises(ValueError, match="dropped"):
        analyze(trace.replace("DROPS 0", "DROPS 1"), resolve(s))


def test_setup_text_carries_the_resolved_numbers() -> None:
    _, s = _case("persistent_nagle")
    text = setup_text(resolve(s), "persistent")
    fields = text.split()
    kv = dict(zip(fields[0::2], fields[1::2], strict=False))
    assert kv["protocol"] == "persistent" and kv["mss"] == "1460" and kv["iw"] == "2" and kv["nagle"] == "1"
    assert kv["d_up_ms"] == "35.0" and kv["d_down_ms"] == "35.0"
    assert text.endswith("sizes 3 6000 2544 2544")


def test_setup_text_flushes_the_header_only_where_the_model_does() -> None:
    """header_flush_persistent_only (Apache 1.1b4, seed 000, 2.2): ns-3 gets the flush on a persistent
    connection, not on HTTP/1.0's one-request connections, as the model schedules them."""
    from latency_lab import PRESETS

    p = resolve(Scenario.model_validate(PRESETS["h96-lan"].document))
    flush = {}
    for protocol in ("http10", "http10_parallel", "persistent", "pipelined", "getall"):
        fields = setup_text(p, protocol).split()
        flush[protocol] = dict(zip(fields[0::2], fields[1::2], strict=False))["header_flush"]
    assert flush == {"http10": "0", "http10_parallel": "0", "persistent": "1", "pipelined": "1", "getall": "1"}


def test_unsupported_features_are_named() -> None:
    _, s = _case("persistent_nagle")
    assert unsupported(resolve(s)) == []
    if "ttcp" in str(Scenario.model_json_schema()):
        doc = json.loads((DATA / "persistent_nagle.json").read_text())
        doc["tcp"]["handshake"] = "ttcp"
        p = resolve(Scenario.model_validate(doc))
        with pytest.raises(SimulationError, match="T/TCP"):
            setup_text(p, "persistent")


def test_split_proxies_are_refused_by_name() -> None:
    """The harness builds one client-server path: a split-proxy scenario (seed 003) is refused, naming the field,
    before ns-3 is started."""
    doc = json.loads((DATA / "persistent_nagle.json").read_text())
    doc["proxy"] = {"architecture": "split_proxy"}
    p = resolve(Scenario.model_validate(doc))
    assert unsupported(p) == [
        "proxy.architecture 'split_proxy' (the harness builds one client-server path, no proxies)"
    ]
    with pytest.raises(SimulationError, match=r"proxy\.architecture 'split_proxy'"):
        setup_text(p, "persistent")


def test_an_origins_own_path_is_refused_by_name() -> None:
    """The harness builds one client-server path: an origin on a path of its own (page.origins[].rtt_ms; issue 28) is
    refused, naming the fields, before ns-3 is started; the same origins on the network's path are not."""
    doc = json.loads((DATA / "persistent_nagle.json").read_text())
    sizes = doc["page"].get("object_bytes") or [1000]
    doc["page"].update({"object_bytes": sizes, "origins": [{}], "object_origins": [1] * len(sizes)})
    assert unsupported(resolve(Scenario.model_validate(doc))) == []
    doc["page"]["origins"] = [{"rtt_ms": 20}]
    p = resolve(Scenario.model_validate(doc))
    assert unsupported(p) == [
        "page.origins[].rtt_ms or bandwidth_bps, an origin's own path (the harness builds one client-server path: "
        "every origin's server on it)"
    ]
    with pytest.raises(SimulationError, match=r"page\.origins\[\]\.rtt_ms or bandwidth_bps"):
        setup_text(p, "persistent")


def test_tls_and_dns_reach_the_harness_as_the_model_defines_them() -> None:
    """Each handshake's flights (latency_lab.mechanisms.tls.handshake), which connection resumes first, and the DNS lookup time."""
    doc = json.loads((DATA / "persistent_nagle.json").read_text())
    doc["tls"] = {"version": "1.3", "resumption": "after_first", "early_data": True, "server_flight_bytes": 5000}
    doc["dns"] = {"lookup": "resolver", "resolver_rtt_ms": 25}
    fields = setup_text(resolve(Scenario.model_validate(doc)), "persistent").split()
    text = " ".join(fields)
    assert "tls_full 3 512 5000 64 2" in text  # ClientHello, server flight, Finished with the request
    assert "tls_resumed 3 512 230 90 0" in text  # 0-RTT: the request with the ClientHello, EndOfEarlyData after
    assert "tls_resume_from 1" in text and "dns_ms 25.0" in text
    doc["tls"] = {"version": "1.2", "resumption": "none"}
    del doc["dns"]
    text = setup_text(resolve(Scenario.model_validate(doc)), "persistent")
    assert "tls_full 4 512 4000 126 51 4" in text  # the request after the server's Finished: 2 round trips
    assert f"tls_resume_from {1 << 30}" in text and "dns_ms" not in text
    doc["tls"] = {"version": "none"}
    assert "tls_" not in setup_text(resolve(Scenario.model_validate(doc)), "persistent")


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"protocols": ["h2", "h3"]}, "protocols ['h3']"),
        ({"protocols": ["persistent", "h3"]}, "protocols ['h3']"),
        ({"tcp": {"profile": "linux"}}, "the linux profile"),
        ({"tcp": {"profile": "rfc5681"}}, "the rfc5681 profile"),
    ],
)
def test_variants_ns3_cannot_simulate_are_refused_by_name(change: dict, named: str) -> None:
    doc = {"protocols": ["persistent"], "tls": {"version": "1.3"}, "dns": {"lookup": "resolver"}, **change}
    with pytest.raises(ValueError, match=re.escape(named)):
        as_scenario(doc)


def test_fast_open_is_accepted() -> None:
    """Issue 7: TCP Fast Open runs in ns-3 (harness.cc's TfoSocket); the SYN's data limit comes from the model."""
    s = as_scenario({"tcp": {"profile": "ns3", "handshake": "fast_open", "mss_bytes": 1460}, "tls": {"version": "1.3"}})
    text = setup_text(resolve(s), "persistent")
    assert "handshake 1 fast_open 1 tfo_syn_max 1444" in text  # 1460 less the cookie (12) and window scale (4)
    assert "fast_open 0" in setup_text(resolve(as_scenario({"tcp": {"profile": "ns3"}})), "persistent")


def test_tls_and_dns_are_accepted() -> None:
    for version in ("1.2", "1.3"):
        s = as_scenario({"tls": {"version": version, "resumption": "all"}, "dns": {"lookup": "resolver"}})
        assert s.tls.version == version and s.dns.lookup == "resolver"
