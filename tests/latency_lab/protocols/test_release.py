"""Session.release: once a prediction's result is read, its schedule is freed by reference counting, not left in
reference cycles for Python's cyclic collector (which cost about a fifth of a prediction: a gc pass of 0.91 ms
after a 4.2 ms Microscape prediction before, 0.18 ms after, 2026-11-25)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from latency_lab import ALL_PROTOCOLS, PRESETS, predict, preset
from latency_lab.analysis.predict import result, simulate
from latency_lab.scenario.params import resolve


def packets_left() -> int:
    """Packets of a schedule found unreachable by a full collection (the collector then frees them). Under
    :func:`collector_paused` the objects from before the module are frozen (``gc.freeze``), so the collection examines
    what the module made: a cycle of the test's packets holds no frozen object (an object from before cannot be made to
    point at a new one and be part of its garbage, or the packet is reachable from it) and is found the same; the
    collection costs what the test made, not the process's whole heap (218 collections: 10.8 s of CPU over a heap of
    74,000 objects, 0.02 s frozen, 2026-11-29; the gate's xdist worker has a larger heap, more modules loaded)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return sum(1 for o in gc.garbage if type(o).__name__ == "Packet")
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@pytest.fixture(scope="module")
def heap_frozen() -> Iterator[None]:
    """The process's objects from before this module frozen (``gc.freeze``): see :func:`packets_left`."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture
def collector_paused(heap_frozen: None) -> Iterator[None]:
    gc.collect()  # what the module's earlier tests left (not frozen)
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def protocols(name: str) -> list[str]:
    relayed = preset(name).proxy.architecture == "split_proxy"  # the split proxies relay HTTP/1.x only
    return [p for p in ALL_PROTOCOLS if not (relayed and p in ("h2", "h3"))]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_prediction_leaves_almost_nothing_to_the_cyclic_collector(name: str, collector_paused: None) -> None:
    doc = preset(name).model_dump()
    for protocol in protocols(name):
        doc["protocols"] = [protocol]
        out = predict(doc)
        counts = out["results"][0]["counts"]
        objects = len(out["results"][0]["objects"])
        # a protocol's own closures that call themselves keep their scope until a collector pass: a connection
        # shell, the points of its requests and the packets they were made from, not the schedule behind them
        left = packets_left()
        assert left <= 2 * (counts["connections"] + objects) + 4, (protocol, left, counts)
        assert left < counts["packets"] / 2 or counts["packets"] < 20, (protocol, left, counts)


def test_without_release_the_schedule_is_left_in_cycles(collector_paused: None) -> None:
    """The bound above can fail: the same run without release leaves the whole schedule to the collector."""
    p = resolve(preset("n97-wan"))
    s = simulate(p, "http10")
    r = result(s, "http10")
    del s
    assert packets_left() == r["counts"]["packets"] > 10 * r["counts"]["connections"]


def test_release_happens_after_the_result_is_read() -> None:
    """A released session's result equals one read from a session never released."""
    doc = preset("pm94-remote").model_dump()
    doc["protocols"] = ["persistent"]
    p = resolve(preset("pm94-remote"))
    kept = result(simulate(p, "persistent"), "persistent", packets=True)
    assert predict(doc, packets=True)["results"][0] == kept
