"""A page's origins (issue 28, ``page.origins`` and ``page.object_origins``): each origin beside the HTML's has its own
DNS lookup, TCP (and TLS, or QUIC) handshake and connections; a preconnected one has them done at the click.

Hand-computed on the textbook's assumptions (:func:`latency_lab.studies.exercises.textbook_scenario`: negligible
transmission, no delayed ACK, Nagle off, a window that never limits, so a handshake and a request cost one RTT each),
each on both engines: the Python engine (the readable reference, :func:`latency_lab.analysis.predict.simulate`) and
the native one, their results compared field by field (:func:`tests.latency_lab.differential.compare`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from latency_lab import ALL_PROTOCOLS, predict
from latency_lab.scenario import limits
from latency_lab.scenario.errors import ScenarioError
from latency_lab.scenario.schema import MAX_DNS_MS, MAX_ORIGINS, Scenario
from latency_lab.studies.exercises import textbook_scenario
from tests.latency_lab import differential

R = 100.0  # the round-trip time (ms)
DNS = 50.0  # origin 1's DNS lookup (ms)
#: Transmission at 100 Gbit/s and the requests' bytes: well under a microsecond.
TOL = 1e-3


def _doc(
    protocol: str,
    origins: list[dict[str, Any]] | None,
    object_origins: list[int] | None,
    objects: int = 2,
    **sections: Any,
) -> dict[str, Any]:
    doc = textbook_scenario(protocol, R, objects=objects, **sections)
    if origins is not None:
        doc["page"]["origins"] = origins
    if object_origins is not None:
        doc["page"]["object_origins"] = object_origins
    return doc


def _both(doc: dict[str, Any], protocol: str) -> dict[str, Any]:
    """``protocol``'s result on the native engine, checked equal to the Python engine's."""
    return differential.both_engines(doc, protocol)[1]


# (protocol, extra sections, the page without origins, both images from origin 1 (DNS 50 ms), the same preconnected).
# The HTML arrives at 2 R (handshake, request; h3: 3 R, QUIC's handshake takes two round trips as the server's
# 4,000-byte flight is over the anti-amplification allowance). Origin 1's connection then costs its DNS lookup and
# its handshake before the images' request round trip: + DNS + R (h3: + DNS + 2 R). Preconnected, its lookup and
# handshake run from the click beside the HTML's and end before the HTML arrives: the images cost what they cost
# on the HTML's origin where they go in one round trip.
PARALLEL = {"http": {"parallel_connections": 6}}
CASES = [
    # streams on one connection an origin: the images' round trip after the HTML's 2 R (3 R); on origin 1 at
    # 2 R + DNS + R (handshake) + R (request)
    ("h2", {}, 3 * R, 4 * R + DNS, 3 * R),
    ("h3", {}, 4 * R, 6 * R + DNS, 4 * R),
    # both requests pipelined on origin 1's connection once it is ready
    ("pipelined", {}, 3 * R, 4 * R + DNS, 3 * R),
    # one GETALL to origin 1 for its two images once the HTML has arrived; without origins the HTML's one response
    # holds them (2 R)
    ("getall", {}, 2 * R, 4 * R + DNS, 3 * R),
    # one request at a time: image 1 at 2 R + DNS + 2 R, image 2 a round trip later on the same connection
    ("persistent", {}, 4 * R, 5 * R + DNS, 4 * R),
    # a connection an object: image 1's pays the lookup (+ DNS), image 2's its own handshake (cached address);
    # preconnected, image 1 goes on the preconnected connection (3 R) and image 2 on a new one (5 R)
    ("http10", {}, 6 * R, 6 * R + DNS, 5 * R),
    # both images at once: two connections to origin 1 that wait for the one lookup (4 R + DNS); preconnected, one
    # is ready (3 R) and the other opens at 2 R (4 R)
    ("http10_parallel", PARALLEL, 4 * R, 4 * R + DNS, 4 * R),
    ("persistent_parallel", PARALLEL, 4 * R, 4 * R + DNS, 4 * R),
]


@pytest.mark.parametrize(("protocol", "sections", "flat", "other", "preconnected"), CASES)
def test_another_origin_costs_its_lookup_and_handshake(
    protocol: str, sections: dict[str, Any], flat: float, other: float, preconnected: float
) -> None:
    got = {
        name: _both(_doc(protocol, origins, at, **sections), protocol)
        for name, origins, at in (
            ("flat", None, None),
            ("other", [{"dns_ms": DNS}], [1, 1]),
            ("preconnected", [{"dns_ms": DNS, "preconnected": True}], [1, 1]),
        )
    }
    assert got["flat"]["page_load_ms"] == pytest.approx(flat, abs=TOL)
    assert got["other"]["page_load_ms"] == pytest.approx(other, abs=TOL)
    assert got["preconnected"]["page_load_ms"] == pytest.approx(preconnected, abs=TOL)
    for name in ("other", "preconnected"):  # origin 1 is looked up once, whatever its connections
        assert got[name]["counts"]["dns_lookups"] == 1
    # the lookup is on the page's critical path unless it was preconnected
    assert got["other"]["breakdown_ms"]["dns"] == pytest.approx(DNS, abs=TOL)
    assert got["preconnected"]["breakdown_ms"]["dns"] == pytest.approx(0.0, abs=TOL)
    for r in got.values():  # one account of time: the breakdown adds up to the page load
        assert sum(r["breakdown_ms"].values()) == pytest.approx(r["page_load_ms"], rel=1e-9)


# (protocol, the images from origin 1 coalesced with the HTML's, the same preconnected): h2 and h3 put them on the
# HTML's connection once origin 1's lookup has ended (the HTML's arrival + DNS + a request round trip: h2 3 R + DNS,
# h3 4 R + DNS), no handshake of its own; preconnected, the lookup ran at the click and they go as the HTML's own
# objects do. HTTP/1.x protocols do not coalesce: as uncoalesced (CASES).
COALESCED = [("h2", 3 * R + DNS, 3 * R), ("h3", 4 * R + DNS, 4 * R), ("pipelined", 4 * R + DNS, 3 * R)]


@pytest.mark.parametrize(("protocol", "coalesced", "preconnected"), COALESCED)
def test_h2_and_h3_coalesce_an_origin_on_the_htmls_connection(
    protocol: str, coalesced: float, preconnected: float
) -> None:
    got = {
        pre: _both(_doc(protocol, [{"dns_ms": DNS, "coalesce_with_html": True, "preconnected": pre}], [1, 1]), protocol)
        for pre in (False, True)
    }
    assert got[False]["page_load_ms"] == pytest.approx(coalesced, abs=TOL)
    assert got[True]["page_load_ms"] == pytest.approx(preconnected, abs=TOL)
    for r in got.values():
        assert r["counts"]["dns_lookups"] == 1
        assert r["counts"]["connections"] == (1 if protocol in ("h2", "h3") else 2)
        assert sum(r["breakdown_ms"].values()) == pytest.approx(r["page_load_ms"], rel=1e-9)


@pytest.mark.parametrize("protocol", ["h2", "h3", "pipelined", "persistent", "getall"])
def test_one_connection_an_origin(protocol: str) -> None:
    """Six images over the HTML's origin and two others: h2, h3 and the single-connection HTTP/1.1 protocols open one
    connection each origin, three in all (one without origins)."""
    flat = _both(_doc(protocol, None, None, objects=6), protocol)
    three = _both(_doc(protocol, [{"dns_ms": 0}, {"dns_ms": 20}], [0, 1, 2, 1, 2, 0], objects=6), protocol)
    assert flat["counts"]["connections"] == 1
    assert three["counts"]["connections"] == 3
    assert three["counts"]["dns_lookups"] == 1  # origin 1's address is cached (dns_ms 0)
    assert {o["connection"] for o in three["objects"] if o["name"] in ("obj1", "obj6")} == {0}
    assert len({o["connection"] for o in three["objects"] if o["name"] in ("obj2", "obj4")}) == 1


def test_persistent_parallel_keeps_a_pool_an_origin() -> None:
    """Two connections an origin (``http.parallel_connections`` 2): four images from origin 1 get two connections of
    their own beside the HTML's (3 in all), opened when the HTML has arrived, after the lookup (2 R + DNS + R), and
    take two request rounds (ending at 2 R + DNS + 2 R and 2 R + DNS + 3 R). On the HTML's origin the same images
    share the HTML's connection and one more: image 1 on the HTML's at 3 R, image 2 on a new one at 4 R, images 3 and 4
    a round trip after them (4 R and 5 R)."""
    sections = {"http": {"parallel_connections": 2}}
    flat = _both(_doc("persistent_parallel", None, None, objects=4, **sections), "persistent_parallel")
    other = _both(_doc("persistent_parallel", [{"dns_ms": DNS}], [1] * 4, objects=4, **sections), "persistent_parallel")
    assert flat["counts"]["connections"] == 2
    assert flat["page_load_ms"] == pytest.approx(5 * R, abs=TOL)
    assert other["counts"]["connections"] == 3
    assert other["page_load_ms"] == pytest.approx(5 * R + DNS, abs=TOL)
    ends = sorted(o["end_ms"] for o in other["objects"] if o["name"] != "html")
    assert ends == pytest.approx([4 * R + DNS, 4 * R + DNS, 5 * R + DNS, 5 * R + DNS], abs=TOL)


def test_http10_parallel_limits_connections_per_origin() -> None:
    """One connection at a time per origin (``http.parallel_connections`` 1): an image from the HTML's origin and one
    from origin 1 (its address cached) load side by side (4 R), where on one origin the second waits for the first
    (6 R)."""
    sections = {"http": {"parallel_connections": 1}}
    flat = _both(_doc("http10_parallel", None, None, **sections), "http10_parallel")
    two = _both(_doc("http10_parallel", [{"dns_ms": 0}], [0, 1], **sections), "http10_parallel")
    assert flat["page_load_ms"] == pytest.approx(6 * R, abs=TOL)
    assert two["page_load_ms"] == pytest.approx(4 * R, abs=TOL)


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_origins_no_object_uses_change_nothing(protocol: str) -> None:
    """Origins declared but every object the HTML's origin's (``object_origins`` all 0 or left out, none preconnected)
    compute what a page without origins does, byte for byte, over a lossy link with a session of two pages."""
    base: dict[str, Any] = {
        "protocols": [protocol],
        "network": {"rtt_ms": 70, "bandwidth_bps": 1_544_000, "loss_rate": 0.01},
        "session": {"pages": 2, "think_time_ms": 1000},
    }
    declared = json.loads(json.dumps(base))
    declared["page"] = {"origins": [{"dns_ms": 30}], "object_origins": [0, 0, 0]}
    unused = json.loads(json.dumps(base))
    unused["page"] = {"origins": [{"dns_ms": 30}]}
    a = json.dumps(predict(base)["results"], sort_keys=True)
    assert json.dumps(predict(declared)["results"], sort_keys=True) == a
    assert json.dumps(predict(unused)["results"], sort_keys=True) == a


LOSSY = [
    (
        name,
        {
            "network": {"rtt_ms": R, "bandwidth_bps": 1_544_000, "packet_overhead_bytes": 40, "loss_rate": 0.02},
            "http": {"parallel_connections": 2},
            "tls": {"version": "1.3"} if name != "h3" else {},
            "session": {"pages": 2, "think_time_ms": 2000, "server_idle_timeout_ms": 1000},
        },
    )
    for name in ALL_PROTOCOLS
] + [
    (
        name,
        {
            "network": {"rtt_ms": R, "bandwidth_bps": 1_544_000, "loss_rate": 0.02},
            "proxy": {"architecture": "split_proxy", "long_haul_connections": 2},
            "session": {"pages": 2, "think_time_ms": 500},
        },
    )
    for name in ("http10", "http10_parallel", "persistent", "pipelined", "getall", "persistent_parallel")
]


@pytest.mark.parametrize(("protocol", "sections"), LOSSY)
def test_a_lossy_multi_origin_session_runs_natively_as_in_python(protocol: str, sections: dict[str, Any]) -> None:
    """Four origins (one preconnected, one coalesced with the HTML's on h2 and h3), a tree of dependencies across them, loss, TLS or split proxies, and a second
    page after the server's idle timeout closed every connection (or on the connections kept): the native engine
    equals the Python one (:func:`_both`), the breakdown adds up, and no object is asked for before its origin's
    lookup has ended."""
    origins = [{"dns_ms": 40}, {"dns_ms": 120, "preconnected": True}, {"dns_ms": 30, "coalesce_with_html": True}]
    doc = _doc(protocol, origins, [1, 2, 0, 1, 2, 3], objects=6, object_bytes=4000, **sections)
    doc["page"]["object_parents"] = [0, 1, 0, 2, 0, 4]
    got = _both(doc, protocol)
    assert got["expected_with_loss"]["page_load_ms"] > got["page_load_ms"]
    assert sum(got["breakdown_ms"].values()) == pytest.approx(got["page_load_ms"], rel=1e-9)
    assert got["counts"]["dns_lookups"] == 3  # once each, the second page using the cached addresses
    for o in got["objects"]:
        if o["name"] in ("obj1", "obj4"):  # origin 1: looked up when its first object was discovered
            assert o["end_ms"] >= 40 + 2 * R


def test_origins_are_refused_naming_the_field() -> None:
    page = {"object_count": 2, "object_size_bytes": 1000}
    cases = [
        ({"origins": [{"dns_ms": 5}], "object_origins": [0, 2]}, "page.object_origins", "must be between 0 and 1"),
        ({"origins": [{"dns_ms": 5}], "object_origins": [1]}, "page.object_origins", "one origin per embedded object"),
        ({"object_origins": [0, 1]}, "page.object_origins", "must be between 0 and 0"),
        ({"origins": [{"dns_ms": -1}], "object_origins": [1, 1]}, "page.origins[0].dns_ms", f"0 to {MAX_DNS_MS:,} ms"),
        ({"origins": [{"dns_ms": MAX_DNS_MS + 1}]}, "page.origins[0].dns_ms", f"0 to {MAX_DNS_MS:,} ms"),
        ({"origins": [{"dns_ms": 0}] * (MAX_ORIGINS + 1)}, "page.origins", str(MAX_ORIGINS)),
        ({"origins": [{"rate_mbps": 5}]}, "page.origins[0].rate_mbps", "unknown field"),  # bandwidth_bps is its name
        (
            {"origins": [{"dns_ms": 5}], "object_origins": [1, 1], "css_bytes": 100},
            "page.object_origins",
            "css_bytes",
        ),
    ]
    for extra, field, words in cases:
        with pytest.raises(ScenarioError) as err:
            Scenario.model_validate({"page": {**page, **extra}})
        text = str(err.value)
        assert field in text and words in text, (extra, text)


def test_the_estimate_counts_the_origins_connections() -> None:
    """Each origin's connection costs its handshakes in the work estimate, so fifty origins with TLS stay within the
    plain kind's 5 budget steps a unit on h2 (one connection each) and persistent (one each too)."""
    origins = [{"dns_ms": 10}] * 50
    for protocol in ("h2", "persistent", "persistent_parallel", "http10"):
        s = Scenario.model_validate(
            {
                "protocols": [protocol],
                "page": {
                    "object_count": 50,
                    "object_size_bytes": 3,
                    "origins": origins,
                    "object_origins": list(range(1, 51)),
                },
                "tls": {"version": "1.2", "session_tickets": 0},
            }
        )
        alone = Scenario.model_validate({**s.model_dump(), "page": {"object_count": 50, "object_size_bytes": 3}})
        if protocol != "http10":  # a connection an object already
            assert limits.base_units(s, protocol) > limits.base_units(alone, protocol)
        with limits.budget(10**12):
            start = limits.allowance()
            predict(s)
            steps = start - limits.allowance()
        assert steps <= limits.PLAIN_STEPS_PER_UNIT * limits.base_units(s, protocol), protocol
