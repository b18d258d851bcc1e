"""HTML parsed as it streams (issue 28, ``page.object_named_at_bytes``): an object is discovered when the packet
carrying the byte of its parent that names it has arrived, not the whole parent.

Hand-computed on the brief's page, each on both engines (:func:`tests.latency_lab.differential.both_engines`): a
100,000-byte HTML naming a 10,000-byte image at byte 1,000, over a 100 ms RTT at 1 Mbit/s (8 ms per 1,000 bytes), the
default BSD TCP (a 1,460-byte MSS, 40 bytes of headers a packet) and a 200-byte response header.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from latency_lab import ALL_PROTOCOLS
from latency_lab.analysis.predict import evaluate, expression
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario
from tests.latency_lab import differential

RTT = 100.0
MS_PER_BYTE = 8e-3  # 1 Mbit/s
OVERHEAD, MSS, REQUEST, HEADER = 40, 1460, 200, 200
HTML, IMAGE = 100_000, 10_000
#: Floats summed along the schedule: far below a microsecond.
TOL = 1e-6

#: The protocols whose requests can leave before the HTML has arrived: the ones that do not ask for one object at a
#: time after the previous one (http10, persistent) nor for the page in one request (getall).
STREAMED = ["h2", "pipelined", "persistent_parallel", "http10_parallel"]


def _doc(protocol: str, at: int | None, **page: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "protocols": [protocol],
        "network": {"rtt_ms": RTT, "bandwidth_bps": 1_000_000},
        "page": {"html_bytes": HTML, "object_bytes": [IMAGE], **page},
    }
    if at is not None:
        doc["page"]["object_named_at_bytes"] = [at]
    return doc


def _objects(doc: dict[str, Any], protocol: str) -> tuple[float, dict[str, dict[str, Any]]]:
    _, got = differential.both_engines(doc, protocol)
    return float(got["page_load_ms"]), {o["name"]: o for o in got["objects"]}


def _first_segment_arrives() -> float:
    """When the HTML response's first full segment has arrived at the client, by hand: the SYN and SYN-ACK (40 bytes
    each, half an RTT each way), the client's ACK and its request behind it on the uplink, half an RTT, then the
    first segment of the response (1,460 bytes + 40) and half an RTT."""
    syn = OVERHEAD * MS_PER_BYTE
    ready = 2 * syn + RTT  # the SYN-ACK has arrived
    request_in = ready + syn + (REQUEST + OVERHEAD) * MS_PER_BYTE + RTT / 2
    return request_in + (MSS + OVERHEAD) * MS_PER_BYTE + RTT / 2


@pytest.mark.parametrize("protocol", STREAMED)
def test_the_image_is_asked_for_when_the_first_segment_has_arrived(protocol: str) -> None:
    """Byte 1,000 of the body is in the first segment (200 header bytes + 1,000 <= 1,460): the image's request leaves
    when that segment arrives (214.88 ms), long before the HTML's end, and the page loads sooner."""
    whole, whole_objs = _objects(_doc(protocol, None), protocol)
    streamed, objs = _objects(_doc(protocol, 1_000), protocol)
    first = _first_segment_arrives()
    assert first == pytest.approx(214.88, abs=TOL)
    assert objs["obj1"]["start_ms"] == pytest.approx(first, abs=TOL)
    assert whole_objs["obj1"]["start_ms"] == pytest.approx(whole_objs["html"]["end_ms"], abs=TOL)
    assert whole_objs["html"]["end_ms"] - objs["obj1"]["start_ms"] > (HTML - MSS) * MS_PER_BYTE
    assert streamed < whole - 100


def test_a_byte_past_the_first_segment_waits_for_the_segment_that_carries_it() -> None:
    """Byte 1,261 of the body is the 1,461st of the response: it comes in the second segment, later than the first."""
    _, first = _objects(_doc("h2", MSS - HEADER), "h2")
    _, second = _objects(_doc("h2", MSS - HEADER + 1), "h2")
    assert first["obj1"]["start_ms"] == pytest.approx(_first_segment_arrives(), abs=TOL)
    assert second["obj1"]["start_ms"] > first["obj1"]["start_ms"] + (MSS + OVERHEAD) * MS_PER_BYTE - TOL


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_the_parents_end_is_as_when_omitted(protocol: str) -> None:
    """An offset at the parent's end (its size) computes what omitting the field does, byte for byte, on a page with
    a tree and a session of two pages; so does an offset anywhere on http10, persistent and getall."""
    page: dict[str, Any] = {"html_bytes": 6_000, "object_bytes": [3_000, 2_000, 5_000], "object_parents": [0, 1, 0]}
    base: dict[str, Any] = {
        "protocols": [protocol],
        "network": {"rtt_ms": 70, "bandwidth_bps": 1_544_000},
        "session": {"pages": 2, "think_time_ms": 1000},
        "page": page,
    }
    at_end = json.loads(json.dumps(base))
    at_end["page"]["object_named_at_bytes"] = [6_000, 3_000, 6_000]
    ref = differential.both_engines(base, protocol)[0]
    assert differential.both_engines(at_end, protocol)[0] == ref
    early = json.loads(json.dumps(base))
    early["page"]["object_named_at_bytes"] = [10, 0, 500]
    if protocol in ("http10", "persistent", "getall"):
        assert differential.both_engines(early, protocol)[0] == ref
    else:
        streamed = differential.both_engines(early, protocol)[0]
        assert streamed["page_load_ms"] < ref["page_load_ms"]


def test_compression_scales_the_offset_on_the_wire() -> None:
    """With http.html_compression_ratio 0.25 the HTML's 100,000 bytes are 25,000 on the wire: byte 1,000 is named
    once 250 compressed bytes have arrived (the compression taken as even through the document), byte 1,001 after 251
    (rounded up), and byte 99,999 at the end (24,999.75 rounds up to 25,000), as when omitted."""

    def named(at: int) -> tuple[int, ...]:
        doc = _doc("h2", at)
        doc["http"] = {"html_compression_ratio": 0.25}
        return resolve(Scenario.model_validate(doc)).object_named_at

    assert named(1_000) == (250,)
    assert named(1_001) == (251,)
    assert named(99_999) == ()
    assert named(0) == (0,)


def test_a_child_of_an_object_is_named_at_its_offset_in_that_object() -> None:
    """A style sheet (object 1, 20,000 bytes) names a font (object 2) at its byte 100: the font's request leaves once
    the style sheet's first segment has arrived, before the style sheet's end, on both engines."""
    doc = _doc("h2", None, object_bytes=[20_000, 5_000], object_parents=[0, 1], object_named_at_bytes=[60_000, 100])
    _, objs = _objects(doc, "h2")
    assert objs["obj1"]["start_ms"] < objs["obj2"]["start_ms"] < objs["obj1"]["end_ms"]
    plain = _doc("h2", None, object_bytes=[20_000, 5_000], object_parents=[0, 1])
    _, whole = _objects(plain, "h2")
    assert whole["obj2"]["start_ms"] == pytest.approx(whole["obj1"]["end_ms"], abs=TOL)


@pytest.mark.parametrize("protocol", [*STREAMED, "h3"])
def test_the_formula_follows_the_streamed_schedule(protocol: str) -> None:
    """The traced (symbolic) run goes through the same schedule: its formula evaluates to the streamed page load time,
    which differs from the whole-parent one."""
    doc = _doc(protocol, 1_000)
    scenario = Scenario.model_validate(doc)
    formula = expression(scenario, protocol)["page_load_ms"]
    streamed, _ = _objects(doc, protocol)
    whole, _ = _objects(_doc(protocol, None), protocol)
    assert evaluate(formula, resolve(scenario)) == pytest.approx(streamed, rel=1e-9)
    assert abs(streamed - whole) > 50
