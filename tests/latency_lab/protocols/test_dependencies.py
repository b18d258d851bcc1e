"""A page's dependencies (issue 28, ``page.object_parents``): an object is discovered when its parent has arrived.

Hand-computed on the textbook's assumptions (:func:`latency_lab.studies.exercises.textbook_scenario`: negligible
transmission, no delayed ACK, a window that never limits, so every request costs one RTT), each on both engines:
the Python engine (the readable reference, :func:`latency_lab.analysis.predict.simulate`) and the native one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import sympy

from latency_lab import ALL_PROTOCOLS, predict
from latency_lab.analysis.predict import evaluate, expression
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import Scenario
from latency_lab.studies.exercises import textbook_scenario
from tests.latency_lab import differential

R = 100.0  # the round-trip time (ms)
#: The textbook's page: HTML -> style sheet (object 1) -> font (object 2), and HTML -> three images (3, 4, 5).
TREE = [0, 1, 0, 0, 0]
#: Transmission at 100 Gbit/s and the requests' bytes: well under a microsecond.
TOL = 1e-3


def _doc(protocol: str, parents: list[int] | None, objects: int = 5, **sections: Any) -> dict[str, Any]:
    doc = textbook_scenario(protocol, R, objects=objects, **sections)
    if parents is not None:
        doc["page"]["object_parents"] = parents
    return doc


#: Both engines' results, checked equal (:func:`tests.latency_lab.differential.both_engines`).
_both = differential.both_engines


def _load(doc: dict[str, Any], protocol: str) -> float:
    return float(_both(doc, protocol)[1]["page_load_ms"])


# (protocol, extra sections, page load without the tree, with it): the chain HTML -> style sheet -> font adds one
# round trip where the font's request waits for the style sheet that the images' round trip does not (the font is one
# level deeper than every other object), and two on http10_parallel (a new connection's handshake and request).
CASES = [
    # one TCP connection: handshake + HTML (2 R), every object's stream in the next round trip (3 R); the font's
    # request leaves when the style sheet has arrived, at 3 R: 4 R
    ("h2", {}, 3 * R, 4 * R),
    # QUIC: the server's 4,000-byte flight exceeds the anti-amplification allowance (3 x 1,200 bytes), so its
    # handshake takes two round trips and the HTML three (3 R); then as h2
    ("h3", {}, 4 * R, 5 * R),
    # the requests written back to back when the HTML arrives (2 R), the font's when the style sheet has (3 R)
    ("pipelined", {}, 3 * R, 4 * R),
    ("pipelined", {"http": {"pipeline_writes": "one"}}, 3 * R, 4 * R),
    # six connections open at the click (preconnect): the style sheet and the images in one round (3 R), the font
    # on the style sheet's connection, free when it arrives (4 R)
    ("persistent_parallel", {"http": {"parallel_connections": 6, "preconnect": True}}, 3 * R, 4 * R),
    # a connection per object, up to six at once: the HTML (2 R), the style sheet and the images each a new
    # connection (4 R), the font's connection opened when the style sheet arrived (6 R)
    ("http10_parallel", {"http": {"parallel_connections": 6}}, 4 * R, 6 * R),
]


@pytest.mark.parametrize(("protocol", "sections", "flat", "tree"), CASES)
def test_the_chain_adds_its_round_trips(protocol: str, sections: dict[str, Any], flat: float, tree: float) -> None:
    assert _load(_doc(protocol, None, **sections), protocol) == pytest.approx(flat, abs=TOL)
    assert _load(_doc(protocol, TREE, **sections), protocol) == pytest.approx(tree, abs=TOL)


@pytest.mark.parametrize("protocol", ["h2", "pipelined", "persistent_parallel", "http10_parallel"])
def test_a_chain_costs_a_round_trip_a_level(protocol: str) -> None:
    """HTML -> 1 -> 2 -> 3 -> 4: each object waits for the one before, a round trip each (two on http10_parallel:
    a new connection each), against all four in one round (http10_parallel: a connection each, at once)."""
    sections: dict[str, Any] = {"http": {"parallel_connections": 6, "preconnect": True}}
    per = 2 * R if protocol == "http10_parallel" else R
    html = 2 * R
    chain = _load(_doc(protocol, [0, 1, 2, 3], objects=4, **sections), protocol)
    flat = _load(_doc(protocol, [0, 0, 0, 0], objects=4, **sections), protocol)
    assert chain == pytest.approx(html + 4 * per, abs=TOL)
    assert flat == pytest.approx(html + per, abs=TOL)


def test_http10_parallel_takes_discovered_objects_in_discovery_order() -> None:
    """Two slots; HTML -> 1, 2 and 1 -> 3, 2 -> 4, plus 5 from the HTML. Discovered with the HTML: 1, 2, 5 (index
    order); 1 and 2 take the slots (2 R to 4 R), 5 waits. At 4 R object 1 arrives and reveals 3, object 2 reveals 4:
    the queue is 5, 3, 4, so 5 and 3 take the slots (to 6 R), and 4 the first slot free (to 8 R)."""
    doc = _doc("http10_parallel", [0, 0, 1, 2, 0], http={"parallel_connections": 2})
    _, got = _both(doc, "http10_parallel")
    ends = {o["name"]: o["end_ms"] for o in got["objects"]}
    assert got["page_load_ms"] == pytest.approx(8 * R, abs=TOL)
    for name, end in (("obj1", 4), ("obj2", 4), ("obj5", 6), ("obj3", 6), ("obj4", 8)):
        assert ends[name] == pytest.approx(end * R, abs=TOL), name


@pytest.mark.parametrize("protocol", ["http10", "persistent", "getall"])
def test_one_at_a_time_and_getall_are_not_delayed(protocol: str) -> None:
    """http10 and persistent fetch one object at a time in index order, so every parent (an earlier object) has
    arrived before its child is asked for; GETALL's server sends every object in its one response. The tree changes
    nothing: the results are equal, byte for byte."""
    flat = _both(_doc(protocol, None), protocol)[1]
    assert _both(_doc(protocol, TREE), protocol)[1] == flat
    assert _both(_doc(protocol, [0, 1, 2, 3, 4]), protocol)[1] == flat


def _presets_page(doc: dict[str, Any]) -> int:
    return len(Scenario.model_validate(doc).page.sizes())


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_no_parents_is_every_object_the_htmls(protocol: str) -> None:
    """Leaving ``object_parents`` out and giving every object the HTML as parent compute the same, byte for byte,
    on a default page over a lossy link with a session of two pages."""
    base: dict[str, Any] = {
        "protocols": [protocol],
        "network": {"rtt_ms": 70, "bandwidth_bps": 1_544_000, "loss_rate": 0.01},
        "session": {"pages": 2, "think_time_ms": 1000},
    }
    zeros = json.loads(json.dumps(base))
    zeros["page"] = {"object_parents": [0] * _presets_page(base)}
    a, b = predict(base)["results"], predict(zeros)["results"]
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert _both(base, protocol)[0] == _both(zeros, protocol)[0]


LOSSY = [
    # (protocol, sections): a lossy page with a tree, on both engines, direct and through split proxies
    (
        name,
        {
            "network": {"rtt_ms": R, "bandwidth_bps": 1_544_000, "packet_overhead_bytes": 40, "loss_rate": 0.02},
            # six connections: with the default four the fifth object waits for a connection all the same, and the
            # font takes its place (the same page load time)
            "http": {"parallel_connections": 6},
        },
    )
    for name in ALL_PROTOCOLS
] + [
    (
        name,
        {
            "network": {"rtt_ms": R, "bandwidth_bps": 1_544_000, "loss_rate": 0.02},
            "proxy": {"architecture": "split_proxy", "long_haul_connections": 2},
        },
    )
    for name in ("http10", "http10_parallel", "persistent", "pipelined", "getall", "persistent_parallel")
]


@pytest.mark.parametrize(("protocol", "sections"), LOSSY)
def test_a_lossy_tree_runs_natively_as_in_python(protocol: str, sections: dict[str, Any]) -> None:
    """With loss the analysis reads the schedule (the path back from each page's last byte crosses the parents'
    arrivals): the native engine's expected time with loss equals the Python engine's (compared by :func:`_both`),
    and a session of two pages loads the same tree twice."""
    doc = _doc(protocol, TREE, object_bytes=4000, **sections, session={"pages": 2, "think_time_ms": 500})
    flat = _doc(protocol, None, object_bytes=4000, **sections, session={"pages": 2, "think_time_ms": 500})
    _, got = _both(doc, protocol)
    _, base = _both(flat, protocol)
    assert got["expected_with_loss"]["page_load_ms"] > got["page_load_ms"]
    objects = {o["name"]: o for o in got["objects"]}
    for prefix in ("", "p2:"):  # every page's font is asked for once its style sheet has arrived (getall: one request)
        if protocol != "getall":
            assert objects[prefix + "obj2"]["start_ms"] >= objects[prefix + "obj1"]["end_ms"]
    if protocol in ("http10", "persistent", "getall"):
        assert got == base
    else:  # the font waits for the style sheet: never sooner than the flat page
        assert got["page_load_ms"] >= base["page_load_ms"]
        if "proxy" not in sections:  # and later on a direct path, where the images do not hide its round trip
            assert got["page_load_ms"] > base["page_load_ms"]


@pytest.mark.parametrize(("protocol", "flat", "chain"), [("h2", 3, 4), ("pipelined", 3, 4), ("http10_parallel", 4, 6)])
def test_the_formula_counts_the_chains_round_trips(protocol: str, flat: int, chain: int) -> None:
    """The symbolic path (a traced run of the Python engine, POST /api/v1/formulas/{protocol}) on a small page: HTML ->
    object 1 -> object 2 has one more RTT in its formula than both objects named by the HTML (two on
    http10_parallel: a new connection's handshake and request), and evaluates to the page load time."""
    for parents, trips in ((None, flat), ([0, 1], chain)):
        scenario = Scenario.model_validate(_doc(protocol, parents, objects=2))
        formula = expression(scenario, protocol)["page_load_ms"]
        (rtt,) = [x for x in formula.free_symbols if x.name == "RTT"]
        assert sympy.expand(formula).coeff(rtt) == trips
        assert evaluate(formula, resolve(scenario)) == pytest.approx(
            _load(_doc(protocol, parents, objects=2), protocol), rel=1e-9
        )
