"""persistent_parallel (issue 28): persistent connections in parallel, each object on the first free one."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from latency_lab import predict
from latency_lab.analysis.symbolic import textbook
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario
from latency_lab.studies.exercises import textbook_scenario


def _one(doc: dict[str, Any], protocol: str = "persistent_parallel") -> dict[str, Any]:
    results = {r["protocol"]: r for r in predict({**doc, "protocols": [protocol]})["results"]}
    return dict(results[protocol])


def _rounds_doc(objects: int, m: int, *, preconnect: bool, rtt_ms: float = 100.0) -> dict[str, Any]:
    return textbook_scenario(
        "persistent_parallel",
        rtt_ms,
        objects=objects,
        http={"parallel_connections": m, "preconnect": preconnect},
    )


# Kurose & Ross, "DNS and HTTP delays" (the interactive end-of-chapter problem of Computer Networking's chapter 2,
# gaia.cs.umass.edu/kurose_ross/interactive/DNS_HTTP_delay.php, question 4): "the client is configured to support a
# maximum of 5 parallel TCP connections, with persistent HTTP": the lookup (the DNS servers' RTTs, summed), 2 RTT_HTTP
# for the base file, then one RTT_HTTP per round of 5 very small objects on the open connections. The instance
# shown there: DNS RTTs 4, 36 and 34 ms, RTT_HTTP 41 ms, 10 objects: 74 + 2 x 41 + 2 x 41 = 238 ms. Their
# assumptions as the model's settings (latency_lab.studies.exercises.textbook_scenario): negligible transmission
# (100 Gbit/s, no header bytes), no delayed ACK, the rfc5681 profile, Nagle off, a window that never limits; the
# lookup is one wait of dns.resolver_rtt_ms (the visits' sum); the parallel connections are open when the HTML
# has arrived (http.preconnect: the textbook does not count their handshakes).
KUROSE_ROSS = [
    # (DNS visits' RTTs, RTT_HTTP, objects, connections, the textbook's answer in ms)
    ((4.0, 36.0, 34.0), 41.0, 10, 5, 238.0),  # the instance on the problem's page
    ((20.0, 30.0, 50.0), 90.0, 10, 5, 460.0),  # 100 + 2 x 90 + 2 x 90
    ((2.0, 15.0, 16.0, 33.0), 5.0, 6, 5, 86.0),  # 66 + 2 x 5 + 2 x 5: 6 objects are two rounds of 5
    ((3.0,), 13.0, 4, 5, 42.0),  # 3 + 2 x 13 + 13: fewer objects than connections
]


def _dns_doc(visits: tuple[float, ...], rtt_ms: float, objects: int, m: int, preconnect: bool) -> dict[str, Any]:
    doc = _rounds_doc(objects, m, preconnect=preconnect, rtt_ms=rtt_ms)
    doc["dns"] = {"lookup": "resolver", "resolver_rtt_ms": sum(visits)}
    return doc


@pytest.mark.parametrize(("visits", "rtt_ms", "objects", "m", "answer"), KUROSE_ROSS)
def test_kurose_ross_persistent_with_parallel_connections(
    visits: tuple[float, ...], rtt_ms: float, objects: int, m: int, answer: float
) -> None:
    """Preconnected, the model gives Kurose & Ross's answer, sum(RTT_i) + 2 RTT_HTTP + ceil(n/m) RTT_HTTP, up to
    the requests' and responses' serialization at 100 Gbit/s (well under a microsecond)."""
    assert sum(visits) + 2 * rtt_ms + math.ceil(objects / m) * rtt_ms == answer
    got = _one(_dns_doc(visits, rtt_ms, objects, m, preconnect=True))["page_load_ms"]
    assert got == pytest.approx(answer, abs=1e-3)


@pytest.mark.parametrize(("visits", "rtt_ms", "objects", "m", "answer"), KUROSE_ROSS)
def test_without_preconnect_the_new_connections_pay_their_handshakes(
    visits: tuple[float, ...], rtt_ms: float, objects: int, m: int, answer: float
) -> None:
    """Opened only when the HTML has arrived, the other connections cost a handshake's round trip before their
    first request; the HTML's connection meanwhile takes a second object. First-free assignment: after the HTML
    the HTML's connection serves an object per RTT from the first, the m - 1 new ones from the second RTT on."""
    rounds, served = 0, 0
    while served < objects:
        rounds += 1
        served += 1 + (m - 1 if rounds >= 2 else 0)
    expected = sum(visits) + 2 * rtt_ms + rounds * rtt_ms
    got = _one(_dns_doc(visits, rtt_ms, objects, m, preconnect=False))["page_load_ms"]
    assert got == pytest.approx(expected, abs=1e-3)
    if objects > 1:
        assert got > answer  # the extra handshakes


@pytest.mark.parametrize("objects", [0, 1, 3, 4, 5, 8, 9, 12])
@pytest.mark.parametrize("m", [1, 2, 4])
def test_the_textbook_form_is_the_model_preconnected(objects: int, m: int) -> None:
    """latency_lab.analysis.symbolic.textbook's form for persistent_parallel (preconnected) is the model's time under the
    textbook's assumptions, up to the (negligible) transmission times."""
    doc = _rounds_doc(objects, m, preconnect=True)
    book = textbook(resolve(Scenario.model_validate(doc)), "persistent_parallel")
    assert book is not None
    assert book["ms"] == pytest.approx((2 + math.ceil(objects / m)) * 100.0, abs=0.01)
    assert _one(doc)["page_load_ms"] == pytest.approx(book["ms"], abs=0.01)


def test_no_textbook_form_without_preconnect() -> None:
    doc = _rounds_doc(5, 2, preconnect=False)
    assert textbook(resolve(Scenario.model_validate(doc)), "persistent_parallel") is None


SHAPES: list[dict[str, Any]] = [
    {},
    {"tls": {"version": "1.3"}, "dns": {"lookup": "resolver"}},
    {"tls": {"version": "1.2"}, "tcp": {"handshake": "fast_open"}},
    {"tcp": {"handshake": "ttcp", "delayed_ack_ms": 200, "nagle": True}},
    {"session": {"pages": 3, "think_time_ms": 500}},
    {"session": {"pages": 3, "think_time_ms": 500, "server_idle_timeout_ms": 100}},
    {"proxy": {"architecture": "split_proxy"}},
    {"network": {"rtt_ms": 20, "bandwidth_bps": 1e6}, "http": {"server_write_bytes": 4096, "header_flush": True}},
]


def _shape(shape: dict[str, Any], **http: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"page": {"object_count": 7, "object_size_bytes": 5000}, **shape}
    doc["http"] = {**shape.get("http", {}), **http}
    return doc


@pytest.mark.parametrize("preconnect", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=[str(i) for i in range(len(SHAPES))])
def test_one_connection_is_persistent(shape: dict[str, Any], preconnect: bool) -> None:
    """With http.parallel_connections 1, persistent_parallel is persistent HTTP/1.1: the same schedule."""
    doc = _shape(shape, parallel_connections=1, preconnect=preconnect)
    ours, theirs = _one(doc), _one(doc, "persistent")
    assert ours["page_load_ms"] == theirs["page_load_ms"]
    assert ours["breakdown_ms"] == theirs["breakdown_ms"]
    assert ours["counts"] == theirs["counts"]
    assert ours["objects"] == theirs["objects"]


@pytest.mark.parametrize("preconnect", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=[str(i) for i in range(len(SHAPES))])
def test_at_most_m_connections_html_first_objects_in_order(shape: dict[str, Any], preconnect: bool) -> None:
    """At most http.parallel_connections connections per page load (the split proxies' long-haul ones aside), the
    HTML first and alone on connection 0, no object asked for before the HTML has arrived, and each connection
    serving one response at a time."""
    m = 3
    r = _one(_shape(shape, parallel_connections=m, preconnect=preconnect))
    pages = shape.get("session", {}).get("pages", 1)
    by_page: dict[str, list[dict[str, Any]]] = {}
    for o in r["objects"]:
        by_page.setdefault(o["name"].split(":")[0] if ":" in o["name"] else "p1", []).append(o)
    assert len(by_page) == pages
    for objs in by_page.values():
        html, rest = objs[0], objs[1:]
        assert html["name"].endswith("html")
        assert len({o["connection"] for o in objs}) <= m
        for o in rest:
            assert o["start_ms"] >= html["end_ms"] - 1e-9
        for conn in {o["connection"] for o in rest}:
            mine = sorted((o for o in rest if o["connection"] == conn), key=lambda o: o["start_ms"])
            for a, b in itertools.pairwise(mine):
                assert b["start_ms"] >= a["end_ms"] - 1e-9
    if "proxy" not in shape:
        timeout = shape.get("session", {}).get("server_idle_timeout_ms")
        assert r["counts"]["connections"] == (m * pages if timeout is not None else m)


def test_parallel_beats_one_connection_and_preconnect_helps() -> None:
    """Seven 5,000-byte objects at 70 ms: three connections load the page sooner than one, and opening them at the
    click sooner still."""
    doc = _shape({}, parallel_connections=3)
    one = _one(doc, "persistent")["page_load_ms"]
    late = _one(doc)["page_load_ms"]
    early = _one(_shape({}, parallel_connections=3, preconnect=True))["page_load_ms"]
    assert early < late < one


def test_the_loss_analysis_reads_the_parallel_connections() -> None:
    """The expected time with loss (latency_lab.analysis.expected_loss) reads the schedule per connection, so it
    handles persistent_parallel as it is: with one connection it is persistent's, with several it costs the
    connections the page waited for, more than the lossless time and rising with the loss rate."""
    lossy: dict[str, Any] = {"network": {"loss_rate": 0.02}}
    one = _shape(lossy, parallel_connections=1)
    assert _one(one)["expected_with_loss"] == _one(one, "persistent")["expected_with_loss"]
    low = _one(_shape({"network": {"loss_rate": 0.01}}, parallel_connections=4))
    high = _one(_shape({"network": {"loss_rate": 0.05}}, parallel_connections=4))
    for r in (low, high):
        block = r["expected_with_loss"]
        assert block["page_load_ms"] > r["page_load_ms"]
        assert len(block["connections"]) >= 2  # the HTML's connection and the one that brought the last object
    assert high["expected_with_loss"]["page_load_ms"] > low["expected_with_loss"]["page_load_ms"]
