"""Each protocol's schedule (latency_lab.protocols): where two protocols must coincide, they do."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from latency_lab import predict

_spec = importlib.util.spec_from_file_location("scenarios", Path(__file__).parents[1] / "scenarios.py")
assert _spec and _spec.loader
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)

SPREAD = scenarios.spread(25, seed=3)


def _ms(doc: dict) -> dict[str, float]:
    return {r["protocol"]: r["page_load_ms"] for r in predict(doc)["results"]}


@pytest.mark.parametrize("doc", SPREAD, ids=[f"s{i}" for i in range(len(SPREAD))])
def test_one_parallel_connection_is_http10(doc: dict) -> None:
    """HTTP/1.0 with at most one connection at a time is HTTP/1.0 (seed 002, section 3)."""
    doc = {**doc, "protocols": ["http10", "http10_parallel"], "http": {**doc["http"], "parallel_connections": 1}}
    ms = _ms(doc)
    assert ms["http10_parallel"] == pytest.approx(ms["http10"], rel=1e-12)


@pytest.mark.parametrize("doc", SPREAD, ids=[f"s{i}" for i in range(len(SPREAD))])
def test_a_page_without_objects_is_one_exchange(doc: dict) -> None:
    """With the HTML alone, persistent, pipelined and GETALL make the same single exchange, and HTTP/1.0
    differs only in closing (which sends what Nagle holds)."""
    doc = {**doc, "page": {"html_bytes": doc["page"]["html_bytes"], "object_bytes": []}}
    ms = _ms(doc)
    assert ms["pipelined"] == pytest.approx(ms["persistent"], rel=1e-12)
    assert ms["getall"] == pytest.approx(ms["persistent"], rel=1e-12)
    assert ms["http10_parallel"] == pytest.approx(ms["http10"], rel=1e-12)
    assert ms["http10"] <= ms["persistent"] + 1e-9


def test_open_connections_save_the_handshake() -> None:
    """handshake: none saves one round trip per connection (seed 002, section 4)."""
    doc = {
        "network": {"rtt_ms": 100, "bandwidth_bps": 1e9},
        "tcp": {"nagle": False},
        "page": {"object_count": 3, "object_size_bytes": 1000},
    }
    cold = _ms(doc)
    warm = _ms({**doc, "tcp": {"nagle": False, "handshake": "none"}})
    assert cold["http10"] - warm["http10"] == pytest.approx(4 * 100, rel=1e-3)  # four connections
    for proto in ("persistent", "pipelined", "getall"):
        assert cold[proto] - warm[proto] == pytest.approx(100, rel=1e-3)


def test_parallel_connections_overlap_objects() -> None:
    """Four connections at once fetch four objects in about the time of one, on a fast link."""
    doc = {"network": {"rtt_ms": 100, "bandwidth_bps": 1e9}, "page": {"object_count": 4, "object_size_bytes": 1000}}
    ms = _ms(doc)
    one_object = _ms({**doc, "page": {"object_count": 1, "object_size_bytes": 1000}})
    assert ms["http10_parallel"] == pytest.approx(one_object["http10"], rel=0.01)
    out = predict({**doc, "protocols": ["http10_parallel"]})["results"][0]
    starts = sorted(o["start_ms"] for o in out["objects"][1:])
    assert starts[0] == starts[-1]  # all four open when the HTML has arrived
    assert out["counts"]["connections"] == 5
