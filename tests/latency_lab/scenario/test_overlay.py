"""One query means one scenario everywhere (latency_lab.scenario.overlay; issue 15 defect 5, issue 17).

The calculator (``/?...``), the API (``GET /api/v1/predict?...``), the sweep (its point for the same value) and
the command line (``--preset`` with a file) all combine a preset with given fields through
:func:`latency_lab.scenario.overlay.overlay`; each case below is asked of all four and must give the same scenario.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from werkzeug.datastructures import MultiDict

from latency_lab import PRESETS, Scenario
from latency_lab.analysis.sweep import SweepRequest, points
from latency_lab.cli import predict_document
from latency_lab.scenario.overlay import copy_json, deep_merge, mean_size, overlay

#: (preset or "", the one given field, its value): the fields whose rules differ from a plain merge, and one without.
CASES: list[tuple[str, str, Any]] = [
    ("p98-satellite", "network.rtt_ms", 600),  # issue 15 #5: the API ignored the RTT, the calculator did not
    ("n97-wan", "network.rtt_ms", 20),
    ("h96-lan", "page.object_count", 5),  # objects of two sizes: the count takes their mean size
    ("n97-wan", "page.object_size_bytes", 1000),  # 42 objects of 1,000 bytes
    ("", "page.object_count", 7),  # the default page's objects (issue 15 #4: this answered 400)
    ("", "page.object_size_bytes", 10_000),
    ("pm94-remote", "network.bandwidth_bps", 1_000_000),
    ("m98-ss", "tcp.mss_bytes", 536),
]


def _doc(field: str, value: Any) -> dict[str, Any]:
    section, name = field.split(".")
    return {section: {name: value}}


def _calculator(client: Any, preset: str, field: str, value: Any) -> dict[str, Any]:
    from latency_lab_web.web.form import read

    args = MultiDict([("preset", preset)] if preset else [])
    args.add(field, str(value))
    state = read(args)
    assert state.scenario is not None, state.errors
    return state.scenario.model_dump(mode="json")


def _api(client: Any, preset: str, field: str, value: Any) -> dict[str, Any]:
    query = urlencode(([("preset", preset)] if preset else []) + [(field, value), ("protocols", "http10")])
    r = client.get(f"/api/v1/predict?{query}")
    assert r.status_code == 200, r.get_json()
    scenario: dict[str, Any] = r.get_json()["scenario"]
    return scenario


def _sweep(preset: str, field: str, value: Any) -> dict[str, Any]:
    base = Scenario.model_validate(PRESETS[preset].document) if preset else Scenario()
    [(_, point)] = points(SweepRequest(scenario=base, field=field, values=[value]))
    return point.model_dump(mode="json")


def _cli(preset: str, field: str, value: Any) -> dict[str, Any]:
    doc = predict_document(_doc(field, value), preset=preset or None)
    return doc["scenario"]


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize(("preset", "field", "value"), CASES, ids=[f"{p or 'defaults'}-{f}" for p, f, _ in CASES])
def test_calculator_api_sweep_and_cli_give_one_scenario(client: Any, preset: str, field: str, value: Any) -> None:
    calc = _calculator(client, preset, field, value)
    seen = {
        "api": _api(client, preset, field, value),
        "sweep": _sweep(preset, field, value),
        "cli": _cli(preset, field, value),
    }
    seen = {
        k: {**v, "protocols": calc["protocols"]} for k, v in seen.items()
    }  # protocols: each front end's own default
    for name, scenario in seen.items():
        assert _same(scenario, calc), f"{name} reads {preset}+{field}={value} differently from the calculator"
    section, name = field.split(".")
    assert calc[section][name] == value  # the given field took effect


def test_rtt_replaces_the_presets_one_way_delays() -> None:
    base = PRESETS["p98-satellite"].document
    assert "uplink_delay_ms" in base["network"]
    out = Scenario.model_validate(overlay(base, {"network": {"rtt_ms": 600}}))
    assert out.network.uplink_delay_ms is None and out.network.rtt_ms == 600
    # ...unless a one-way delay is given too: then the given fields win as given
    both = overlay(base, {"network": {"rtt_ms": 600, "uplink_delay_ms": 10}})
    assert both["network"]["uplink_delay_ms"] == 10 and both["network"]["downlink_delay_ms"] == 300


def test_object_rules() -> None:
    base = {"page": {"html_bytes": 100, "object_bytes": [1000, 2000, 4000]}}
    assert overlay(base, {"page": {"object_count": 10}})["page"] == {
        "html_bytes": 100,
        "object_count": 10,
        "object_size_bytes": 2333,
    }
    assert overlay(base, {"page": {"object_size_bytes": 50}})["page"]["object_count"] == 3
    given = {"page": {"object_bytes": [1]}}
    assert overlay({"page": {"object_count": 2, "object_size_bytes": 9}}, given)["page"] == {"object_bytes": [1]}
    # a page without objects: the default page's object size
    assert overlay({"page": {"object_bytes": []}}, {"page": {"object_count": 2}})["page"]["object_size_bytes"] == 2544
    assert mean_size([1, 2]) == 2 and mean_size([]) == 2544
    assert base == {"page": {"html_bytes": 100, "object_bytes": [1000, 2000, 4000]}}  # inputs untouched


def test_without_a_base_the_rules_apply_against_the_defaults() -> None:
    given = {"page": {"object_count": 3}, "network": {"rtt_ms": 5}}
    out = overlay(None, given)
    assert out == {"page": {"object_count": 3, "object_size_bytes": 2544}, "network": {"rtt_ms": 5}}
    assert given == {"page": {"object_count": 3}, "network": {"rtt_ms": 5}}
    assert deep_merge({"a": {"b": 1, "c": [1]}}, {"a": {"c": [2]}}) == {"a": {"b": 1, "c": [2]}}


def test_a_sweep_of_the_count_of_unequal_objects_takes_their_mean_size() -> None:
    base = Scenario.model_validate({"page": {"object_bytes": [1000, 3000]}})
    pts = points(SweepRequest(scenario=base, field="page.object_count", values=[1, 4]))
    assert [(v, s.page.sizes()) for v, s in pts] == [(1, [2000]), (4, [2000] * 4)]


def test_a_copy_shares_no_list_or_dict_with_its_original() -> None:
    """Lists of numbers are copied in one step and numbers shared (they cannot change): still a deep copy."""
    doc: dict[str, Any] = {
        "page": {"object_bytes": [1, 2.5, 3], "origins": [{"dns_ms": 5}, {"dns_ms": None}], "flags": [True, "x"]},
        "nested": [[1, [2, {"a": [3]}]]],
    }
    copied = copy_json(doc)
    assert copied == doc
    copied["page"]["object_bytes"].append(4)
    copied["page"]["origins"][0]["dns_ms"] = 6
    copied["page"]["flags"][0] = False
    copied["nested"][0][1][1]["a"].append(4)
    assert doc == {
        "page": {"object_bytes": [1, 2.5, 3], "origins": [{"dns_ms": 5}, {"dns_ms": None}], "flags": [True, "x"]},
        "nested": [[1, [2, {"a": [3]}]]],
    }
