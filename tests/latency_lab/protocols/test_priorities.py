"""RFC 9218 priorities on h2 and h3 (issue 28, ``page.object_urgency`` and ``page.object_incremental``): of the
responses a server writes together, the more urgent first; within one urgency the non-incremental ones whole in
request order, then the incremental ones a frame each in turn (:func:`latency_lab.protocols.multiplex.frame_order`).

Hand-computed on the textbook's assumptions (:func:`latency_lab.studies.exercises.textbook_scenario`: no delayed ACK,
Nagle off, no header bytes on the wire; an initial window of 100 segments holds each batch) on an 8 Mbit/s link, so a byte takes 1 us and a
full 1,460-byte segment 1.46 ms: the objects of one batch leave back to back, and an object is complete when the
segment holding its last byte arrives. Each on both engines, compared field by field
(:func:`tests.latency_lab.differential.both_engines`).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from latency_lab import predict
from latency_lab.protocols.multiplex import frame_order, round_robin
from latency_lab.scenario.errors import ScenarioError
from latency_lab.scenario.schema import MAX_URGENCY, Scenario
from latency_lab.studies.exercises import textbook_scenario
from tests.latency_lab import differential

R = 100.0  # the round-trip time (ms)
MSS = 1460
HEADER = 100  # http.response_header_bytes: a response's HEADERS frame, written with its first DATA frame
FRAME = 16_384  # multiplex.frame_bytes
IMAGE = 50_000
CSS = 10_000
MS_PER_BYTE = 8 / 8e6 * 1000  # 8 Mbit/s
TOL = 1e-6
MULTIPLEXED = ("h2", "h3")


def _doc(protocol: str, sizes: list[int], **page: Any) -> dict[str, Any]:
    doc = textbook_scenario(protocol, R, initial_window=100, objects=len(sizes))
    doc["network"]["bandwidth_bps"] = 8e6
    doc["page"] = {"html_bytes": 1000, "object_bytes": sizes, **page}
    return doc


def _ends(result: dict[str, Any]) -> dict[str, float]:
    return {o["name"]: o["end_ms"] for o in result["objects"]}


def _segment_end(offset: int) -> float:
    """When the segment holding the batch's byte ``offset`` (counted from 1) has arrived, from the batch's start,
    less the propagation both share: whole segments back to back."""
    return math.ceil(offset / MSS) * MSS * MS_PER_BYTE


def test_frame_order_by_urgency_then_whole_then_in_turns() -> None:
    sizes = [40_000.0, 20_000.0, 5_000.0, 30_000.0]
    # none given: every stream of one urgency and incremental, in turns
    assert frame_order(sizes, FRAME, [(3, True)] * 4) == round_robin(sizes, FRAME)
    got = frame_order(sizes, FRAME, [(3, True), (3, False), (0, False), (3, True)])
    streams = [i for i, _ in got]
    # object 2 (urgency 0) whole first; then object 1 whole (urgency 3, not incremental); then 0 and 3 in turns
    assert streams == [2, 1, 1, 0, 3, 0, 3, 0]
    for i, size in enumerate(sizes):  # every stream's bytes are written, in frames of at most FRAME
        assert sum(n for k, n in got if k == i) == size
        assert all(0 < n <= FRAME for k, n in got if k == i)


@pytest.mark.parametrize("protocol", MULTIPLEXED)
def test_none_given_is_every_stream_in_turns(protocol: str) -> None:
    """No priorities and every object of one urgency and incremental are the same schedule, on both engines."""
    sizes = [IMAGE, IMAGE, CSS]
    _, none = differential.both_engines(_doc(protocol, sizes), protocol)
    _, turns = differential.both_engines(
        _doc(protocol, sizes, object_urgency=[5, 5, 5], object_incremental=[True] * 3), protocol
    )
    assert none == turns


@pytest.mark.parametrize("protocol", MULTIPLEXED)
def test_an_urgent_style_sheet_goes_before_the_images(protocol: str) -> None:
    """Two 50 KB images and a 10 KB style sheet requested together. In turns, the style sheet's last byte is the
    batch's byte 16,384 + 16,384 + 10,100 = 42,868 (the images' first frames, headers in them, go first); at
    urgency 0 ahead of the images' 3 it is byte 10,100: 30 segments against 7, 33.58 ms sooner on h2 (h3's
    packets are QUIC's datagrams: sooner too). The page ends when the last image does, at the batch's byte
    110,300 either way."""
    sizes = [IMAGE, IMAGE, CSS]
    _, turns = differential.both_engines(_doc(protocol, sizes), protocol)
    _, urgent = differential.both_engines(
        _doc(protocol, sizes, object_urgency=[3, 3, 0], object_incremental=[True, True, False]), protocol
    )
    first_frames = 2 * FRAME + CSS + HEADER
    sooner = _segment_end(first_frames) - _segment_end(CSS + HEADER)
    assert sooner == pytest.approx(23 * MSS * MS_PER_BYTE)
    if protocol == "h2":
        assert _ends(turns)["obj3"] - _ends(urgent)["obj3"] == pytest.approx(sooner, abs=TOL)
    else:
        assert _ends(turns)["obj3"] - _ends(urgent)["obj3"] > 0.9 * sooner
    assert urgent["page_load_ms"] == pytest.approx(turns["page_load_ms"], abs=TOL)


@pytest.mark.parametrize("protocol", MULTIPLEXED)
def test_non_incremental_responses_go_whole_in_request_order(protocol: str) -> None:
    """Two 50 KB images at RFC 9218's default priority (urgency 3, not incremental) go one after the other: on h2 the
    first ends at the batch's byte 50,100 (35 segments), not at 99,252 as in turns (three frames each, then the
    first's last 848 + 100 bytes: 68 segments); h3's datagrams alike. The second ends at byte 100,200 either way."""
    sizes = [IMAGE, IMAGE]
    _, turns = differential.both_engines(_doc(protocol, sizes), protocol)
    _, whole = differential.both_engines(_doc(protocol, sizes, object_incremental=[False, False]), protocol)
    in_turns = 3 * 2 * FRAME + (IMAGE + HEADER - 3 * FRAME)
    assert in_turns == 99_252
    sooner = _segment_end(in_turns) - _segment_end(IMAGE + HEADER)
    if protocol == "h2":
        assert _ends(turns)["obj1"] - _ends(whole)["obj1"] == pytest.approx(sooner, abs=TOL)
    else:
        assert _ends(turns)["obj1"] - _ends(whole)["obj1"] > 0.9 * sooner
    assert _ends(whole)["obj2"] == pytest.approx(_ends(turns)["obj2"], abs=TOL)
    assert _ends(whole)["obj1"] < _ends(whole)["obj2"]


@pytest.mark.parametrize("protocol", ("http10", "persistent", "persistent_parallel", "pipelined", "getall"))
def test_priorities_leave_one_response_at_a_time_alone(protocol: str) -> None:
    """HTTP/1's responses never share a connection's link frame by frame: priorities change nothing."""
    sizes = [IMAGE, IMAGE, CSS]
    plain = predict(_doc(protocol, sizes))
    given = predict(_doc(protocol, sizes, object_urgency=[7, 3, 0], object_incremental=[True, False, False]))
    assert given["results"] == plain["results"]


@pytest.mark.parametrize(
    ("page", "field", "words"),
    [
        ({"object_urgency": [0, MAX_URGENCY + 1]}, "page.object_urgency", "between 0 (the most urgent) and 7"),
        ({"object_urgency": [-1, 0]}, "page.object_urgency", "between 0 (the most urgent) and 7"),
        ({"object_urgency": [0]}, "page.object_urgency", "one value per embedded object: 2 objects, 1 values"),
        ({"object_incremental": [True, False, True]}, "page.object_incremental", "2 objects, 3 values"),
    ],
)
def test_refusals_name_the_field_and_the_range(page: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(ScenarioError) as info:
        predict(_doc("h2", [CSS, CSS], **page))
    text = str(info.value)
    assert field in text and words in text


def test_refused_beside_fields_that_change_the_objects() -> None:
    doc = textbook_scenario("h2", R, objects=2)
    doc["page"].update(css_bytes=5000, object_urgency=[0, 1])
    with pytest.raises(ScenarioError, match=r"object_urgency cannot be used with page.css_bytes above 0"):
        predict(doc)


def test_either_list_gives_the_other_its_default() -> None:
    page = Scenario.model_validate(_doc("h2", [CSS, CSS], object_urgency=[1, 2])).page
    assert page.priorities() == ((1, False), (2, False))  # RFC 9218 4.2: not incremental by default
    page = Scenario.model_validate(_doc("h2", [CSS, CSS], object_incremental=[True, False])).page
    assert page.priorities() == ((3, True), (3, False))  # RFC 9218 4.1: urgency 3 by default
    assert Scenario.model_validate(_doc("h2", [CSS, CSS])).page.priorities() == ()
