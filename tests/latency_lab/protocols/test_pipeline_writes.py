"""How the pipelined client writes its requests (``http.pipeline_writes``, issue 16 item 5)."""

from __future__ import annotations

from typing import Any

import pytest

from latency_lab import PRESETS, Scenario, predict


def _pipelined(writes: str, nagle: bool, **page: Any) -> dict[str, Any]:
    doc = {
        "protocols": ["pipelined"],
        "network": {"rtt_ms": 0.5, "bandwidth_bps": 10e6},
        "tcp": {"profile": "bsd", "nagle": nagle},
        "http": {"pipeline_writes": writes},
        "page": page or {"html_bytes": 42_000, "object_count": 42, "object_size_bytes": 3000},
    }
    return predict(doc, packets=True)["results"][0]


def test_one_write_shares_segments() -> None:
    """42 requests of 200 bytes: written each on its own with Nagle off the first 14 leave as segments of their
    own until the client's window is full (the rest coalesce behind it); in one write all 8,400 bytes leave as
    full segments (5 of 1,460 and a tail), so fewer packets in all (196 against 208, 2026-11-25)."""
    each, one = _pipelined("each", False), _pipelined("one", False)
    requests = [
        [p for p in r["packets"] if p["direction"] == "up" and p["bytes"] > 0 and p["object"] != "html"]
        for r in (each, one)
    ]
    assert [p["bytes"] for p in requests[0]][:15] == [200] * 14 + [1460]
    assert [p["bytes"] for p in requests[1]] == [1460] * 5 + [1100]
    assert (one["counts"]["packets"], each["counts"]["packets"]) == (196, 208)


def test_with_nagle_on_the_two_differ_by_up_to_40_percent() -> None:
    """Issue 16: with Nagle on, each request written alone waits for an ACK behind the first (seed 004's
    warning); one write sends full segments at once. On the n97-lan page: 552.2 against 352.3 ms (36%,
    2026-11-25); with Nagle off they are within 1%."""
    doc = PRESETS["n97-lan"].scenario.model_dump()
    doc["protocols"] = ["pipelined"]
    ms = {}
    for writes in ("each", "one"):
        for nagle in (True, False):
            doc["http"]["pipeline_writes"], doc["tcp"]["nagle"] = writes, nagle
            ms[writes, nagle] = predict(doc)["results"][0]["page_load_ms"]
    assert ms["each", True] == pytest.approx(552.2, abs=0.1)
    assert ms["one", True] == pytest.approx(352.3, abs=0.1)
    assert ms["one", False] == pytest.approx(ms["each", False], rel=0.01)


def test_which_seed_presets_use_which() -> None:
    """Seeds 001 and 002 sent their GETs back to back (each); seed 004's libwww buffers them (one)."""
    writes = {name: p.scenario.http.pipeline_writes for name, p in PRESETS.items()}
    assert {n for n, w in writes.items() if w == "one"} == {"n97-lan", "n97-wan", "n97-ppp"}
    assert writes["pm94-remote"] == writes["p98-terrestrial"] == "each"


def test_the_field_is_in_the_one_schema() -> None:
    """The default and the allowed values come from the schema (the form and the API read it: tests/app)."""
    assert Scenario().http.pipeline_writes == "each"
    with pytest.raises(ValueError, match="pipeline_writes"):
        Scenario.model_validate({"http": {"pipeline_writes": "two"}})
    spec = Scenario.model_json_schema()["$defs"]["Http"]["properties"]["pipeline_writes"]
    assert spec["enum"] == ["each", "one"] and "libwww" in spec["description"]
