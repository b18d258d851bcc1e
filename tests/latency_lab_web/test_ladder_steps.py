"""The stepping ladder's events (latency_lab_web/figures/ladder.py steps), the run's pcap (GET /explain.pcap) and lecture mode
(GET /explain?...&lecture=1): the events are the drawing's own packets and holds at the drawing's own places, their TCP
fields are the capture's, the capture holds the model's packets."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from scapy.layers.inet import IP, TCP, UDP
from scapy.utils import rdpcap

from latency_lab import ALL_PROTOCOLS, predict
from latency_lab import preset as preset_of
from latency_lab.analysis.account import account
from latency_lab.scenario.schema import Scenario
from latency_lab_web.figures.ladder import GROUPS, kind_of, ladder
from latency_lab_web.web.pcap import capture_time_ms

#: Seed 000's LAN: delayed-ACK timers and, with persistent connections, Nagle holds.
LAN = "preset=h96-lan"


def steps_of(html: str) -> list[dict[str, Any]]:
    m = re.search(r'<script type="application/json" id="explain-ladder-steps">(.*?)</script>', html, re.S)
    assert m, "no steps block"
    out: list[dict[str, Any]] = json.loads(m.group(1))
    return out


def figure_of(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="explain-ladder-figure">(.*?)</script>', html, re.S)
    assert m
    out: dict[str, Any] = json.loads(m.group(1))
    return out


def run(preset: str, protocol: str) -> tuple[dict[str, Any], list[Any], Scenario]:
    scenario = Scenario.model_validate({**preset_of(preset).model_dump(), "protocols": [protocol]})
    acct = account(scenario, protocol)
    return dict(acct["result"]), list(acct["path_stalls"]), scenario


@pytest.mark.parametrize("protocol", ["http10", "persistent", "pipelined", "http10_parallel", "h2", "h3"])
def test_steps_are_the_drawings_packets_and_holds_at_its_places(client: FlaskClient, protocol: str) -> None:
    r = client.get(f"/explain?{LAN}&protocol={protocol}", headers={"HX-Request": "true"})
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    steps, fig = steps_of(html), figure_of(html)
    packets = [t for t in fig["data"] if (t.get("meta") or {}).get("role") == "packet"]
    holds = [t for t in fig["data"] if (t.get("meta") or {}).get("role") in ("delayed_ack", "nagle")]
    assert len(steps) == len(packets) + len(holds) > 0
    by_packet = {t["meta"]["n"]: t for t in packets}
    for s in steps:
        if "hold" in s:
            bar = next(t for t in holds if t["meta"]["role"] == s["hold"] and t["meta"]["packet"] == s["packet"])
            assert s["y"] == pytest.approx(bar["y"][0]) and s["group"] == "timer"
        else:
            line = by_packet[s["packet"]]
            assert s["y"] == pytest.approx(line["y"][0])  # where the drawing starts the packet's line
            assert s["group"] == line["meta"]["group"] == GROUPS[line["meta"]["kind"]]
            assert s["why"] and all(isinstance(w, str) and w for w in s["why"])
    assert [s["t_ms"] for s in steps] == sorted(s["t_ms"] for s in steps)
    # the event list is the steps, in the same order
    items = re.findall(r'<li id="ladder-event-(\d+)" data-step="\d+" data-group="(\w+)">', html)
    assert [(int(i), g) for i, g in items] == [(i, s["group"]) for i, s in enumerate(steps)]


def test_steps_times_are_the_models_packets() -> None:
    result, path, _ = run("h96-lan", "persistent")
    drawing = ladder(result, path_stalls=path)
    sent = {p["n"]: p for p in result["packets"]}
    for s in drawing.steps:
        if "hold" not in s:
            p = sent[s["packet"]]
            assert (s["t_ms"], s["end_ms"]) == (p["sent_ms"], p["arrival_ms"])
    groups = {s["group"] for s in drawing.steps}
    assert groups == {"data", "ack", "handshake", "timer"}  # seed 000's LAN holds ACKs with the timer


def test_why_a_packet_left_names_the_timer_and_nagle() -> None:
    result, path, _ = run("h96-lan", "persistent")
    drawing = ladder(result, path_stalls=path)
    held = [p["n"] for p in result["packets"] if p["ack_held_ms"] > 0]
    assert held
    for s in drawing.steps:
        if "hold" not in s and s["packet"] in held:
            assert "delayed-ACK timer held this ACK" in " ".join(s["why"])
    nagle = [e for e in result["events"] if e["kind"] == "nagle_stall"]
    nagle_steps = [s for s in drawing.steps if s.get("hold") == "nagle"]
    if nagle:
        assert nagle_steps and all(s["why"][0] in {e["why"] for e in nagle} for s in nagle_steps)
        held_segments = {s["packet"] for s in nagle_steps}
        for s in drawing.steps:
            if "hold" not in s and s["packet"] in held_segments:
                assert "Nagle's algorithm held it" in " ".join(s["why"])


def test_a_timer_runs_from_its_start_to_the_packet_it_held() -> None:
    result, path, _ = run("h96-lan", "persistent")
    drawing = ladder(result, path_stalls=path)
    by_n = {p["n"]: p for p in result["packets"]}
    timers = [s for s in drawing.steps if s.get("hold") == "delayed_ack"]
    assert timers
    for s in timers:
        p = by_n[s["packet"]]
        assert s["end_ms"] == p["sent_ms"] and s["t_ms"] == pytest.approx(p["sent_ms"] - p["ack_held_ms"])


@pytest.mark.parametrize("protocol", ["persistent", "http10_parallel"])
def test_packet_fields_are_the_captures(client: FlaskClient, protocol: str) -> None:
    """The sequence, acknowledgement and window a step shows are the TCP header of the same packet in the pcap."""
    html = client.get(f"/explain?{LAN}&protocol={protocol}", headers={"HX-Request": "true"}).get_data(as_text=True)
    steps = [s for s in steps_of(html) if "hold" not in s]
    r = client.get(f"/explain.pcap?{LAN}&protocol={protocol}")
    assert r.status_code == 200 and r.mimetype == "application/vnd.tcpdump.pcap"
    captured = {int(p[IP].id): p[TCP] for p in rdpcap(io.BytesIO(r.data))}
    for s in steps:
        tcp = captured[s["packet"]]
        f = s["fields"]
        assert f["sequence"] == f"{tcp.seq:,}"
        assert f["window"].startswith(f"{tcp.window:,} bytes")
        if "A" in str(tcp.flags):
            assert f["acknowledgement"] == f"{tcp.ack:,}"
        else:
            assert f["acknowledgement"].startswith("none")
        assert f["size"].startswith(f"{len(bytes(tcp.payload)):,} bytes of payload")


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_the_runs_pcap_holds_the_models_packets(client: FlaskClient, protocol: str) -> None:
    query = f"{LAN}&protocol={protocol}"
    r = client.get(f"/explain.pcap?{query}")
    assert r.status_code == 200
    assert f"latency-lab-{protocol}.pcap" in r.headers["Content-Disposition"]
    scenario = Scenario.model_validate({**preset_of("h96-lan").model_dump(), "protocols": [protocol]})
    model = sorted(predict(scenario, packets=True)["results"][0]["packets"], key=lambda p: (capture_time_ms(p), p["n"]))
    captured = list(rdpcap(io.BytesIO(r.data)))
    assert len(captured) == len(model) > 0
    for got, want in zip(captured, model, strict=True):
        assert float(got.time) * 1000 == pytest.approx(capture_time_ms(want), abs=1e-3)
        assert (UDP if protocol == "h3" else TCP) in got


def test_the_panel_links_the_pcap_and_lecture_mode(client: FlaskClient) -> None:
    html = client.get(f"/explain?{LAN}&protocol=persistent").get_data(as_text=True)
    m = re.search(r'<a href="([^"]+)" download>The run\'s ([\d,]+) packets as a pcap file</a>', html)
    assert m and m.group(1).startswith("/explain.pcap?") and "protocol=persistent" in m.group(1)
    lecture = re.search(r'<a href="([^"]+)" class="explain-lecture-link">', html)
    assert lecture and "lecture=1" in lecture.group(1)
    r = client.get(lecture.group(1).replace("&amp;", "&"))
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert "lecture.css" in page and 'class="explain lecture"' in page and 'data-lecture="true"' in page
    assert "Leave lecture mode" in page and "explain-lecture-link" not in page
    assert figure_of(page)["layout"]["font"]["size"] == 18  # large type on the projector
    assert steps_of(page) == steps_of(html)


@pytest.mark.parametrize("bad", ["2", "yes", ""])
def test_a_bad_lecture_flag_is_a_400_naming_it(client: FlaskClient, bad: str) -> None:
    r = client.get(f"/explain?{LAN}&lecture={bad}")
    assert r.status_code == 400
    assert "lecture" in r.get_data(as_text=True)


def test_the_scrolling_event_list_is_keyboard_reachable_before_any_script(client: FlaskClient) -> None:
    """The event list scrolls (max-height, overflow auto): focusable in the markup itself (axe's
    scrollable-region-focusable), not only once ladder-step.js has run; a browser test caught axe between the two."""
    html = client.get(f"/explain?{LAN}&protocol=persistent").get_data(as_text=True)
    m = re.search(r'<ol class="ladder-events"[^>]*>', html)
    assert m and 'tabindex="0"' in m.group(0) and "aria-label=" in m.group(0)


def test_a_bad_pcap_query_is_a_400_naming_the_field(client: FlaskClient) -> None:
    r = client.get(f"/explain.pcap?{LAN}&protocol=http11")
    assert r.status_code == 400 and "protocol" in r.get_data(as_text=True)
    r = client.get(f"/explain.pcap?{LAN}&network.rtt_ms=-3")
    assert r.status_code == 400 and "rtt_ms" in r.get_data(as_text=True)


def test_kind_groups_cover_every_kind_drawn() -> None:
    for protocol in ALL_PROTOCOLS:
        result, _, _ = run("h96-lan", protocol)
        assert {kind_of(p) for p in result["packets"]} <= set(GROUPS)
