"""One account of the time (latency_lab.analysis.account, issue 25): the breakdown, the stalls on the critical path, the
formula's parts and the ladder's stall marks are the same numbers, on every preset and on 500 random scenarios."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

from latency_lab import PRESETS, Scenario, expression, predict
from latency_lab.analysis import native
from latency_lab.analysis.account import _overlaps, account
from latency_lab.analysis.critical_path import CATEGORIES, STALL_COUNT_NAMES, STALL_PARTS

_spec = importlib.util.spec_from_file_location("scenarios", Path(__file__).parents[1] / "scenarios.py")
assert _spec and _spec.loader
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)

#: Every preset with every protocol it asks for, then 500 random scenarios (all seven protocols each).
PRESET_CASES = [(name, PRESETS[name].document) for name in PRESETS]
RANDOM = scenarios.spread(500, seed=25)


def _runs(doc: dict[str, Any]) -> list[tuple[Scenario, str]]:
    out = []
    for protocol in doc.get("protocols") or Scenario().protocols:
        try:
            out.append((Scenario.model_validate({**doc, "protocols": [protocol]}), protocol))
        except ValueError:  # a protocol the scenario cannot run (h2 through split proxies)
            continue
    return out


def _same_stalls(a: list[Any], b: list[Any], tol: float) -> None:
    """Two results' path stalls are the same stalls (times within ``tol``)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert (x["page"], x["kind"], x["connection"], x["object"]) == (
            y["page"],
            y["kind"],
            y["connection"],
            y["object"],
        )
        assert (x["start_ms"], x["duration_ms"]) == pytest.approx((y["start_ms"], y["duration_ms"]), abs=tol)
        assert x["parts_ms"] == pytest.approx(y["parts_ms"], abs=tol)
        assert [s[0] for s in x["segments"]] == [s[0] for s in y["segments"]]
        assert [s[1:] for s in x["segments"]] == [pytest.approx(list(s[1:]), abs=tol) for s in y["segments"]]


def _check(scenario: Scenario, protocol: str) -> Any:
    acct = account(scenario, protocol)
    r = acct["result"]
    total = r["page_load_ms"]
    tol = 1e-9 * max(1.0, total)
    # the account's result is predict's (whichever engine predict runs), path stalls included
    predicted = predict(scenario)["results"][0]
    assert r["breakdown_ms"] == pytest.approx(predicted["breakdown_ms"], abs=tol)
    _same_stalls(predicted["path_stalls"], r["path_stalls"], tol)
    assert predicted["counts"] == r["counts"]
    # ... and the Python engine's walk gives the same path stalls as the native one's
    if native.available():
        saved = os.environ.get(native.ENV)
        os.environ[native.ENV] = "0"
        try:
            py = account(scenario, protocol)["result"]
        finally:
            if saved is None:
                del os.environ[native.ENV]
            else:
                os.environ[native.ENV] = saved
        _same_stalls(py["path_stalls"], r["path_stalls"], tol)
        assert py["counts"] == r["counts"]
    # the panel's path stalls are the result's, with the engine's events matched to them
    assert [{k: v for k, v in st.items() if k != "events"} for st in acct["path_stalls"]] == r["path_stalls"]
    # the stall counts count the path stalls (a stall under each part it has), page by page too
    for part, name in STALL_COUNT_NAMES.items():
        assert r["counts"][name] == sum(1 for st in r["path_stalls"] if part in st["parts_ms"]), name
        for page in r.get("pages", []):
            on_page = [st for st in r["path_stalls"] if st["page"] == page["page"]]
            assert page["counts"][name] == sum(1 for st in on_page if part in st["parts_ms"]), name
            assert sum(st["parts_ms"].get(part, 0.0) for st in on_page) == pytest.approx(
                page["breakdown_ms"][part], abs=tol
            )
    assert sum(r["breakdown_ms"].values()) == pytest.approx(total, abs=tol)
    # the stalls on the critical path add up to the breakdown's stall parts, part by part
    for part in STALL_PARTS:
        listed = sum(st["parts_ms"].get(part, 0.0) for st in acct["path_stalls"])
        assert listed == pytest.approx(r["breakdown_ms"][part], abs=tol), part
    # ... and their segments to their parts; in time order, inside the page, not overlapping
    end = -1.0
    for st in acct["path_stalls"]:
        assert sum(ms for _, _, ms in st["segments"]) == pytest.approx(st["duration_ms"], abs=tol)
        assert st["start_ms"] >= end - tol and st["duration_ms"] > 0
        end = st["start_ms"] + st["duration_ms"]
        assert -tol <= st["start_ms"] and end <= max(o["end_ms"] for o in r["objects"]) + tol
    # every stall event is either on the path (matched to a path stall) or listed as off it
    on = {i for st in acct["path_stalls"] for i in st["events"]}
    stall_events = {i for i, e in enumerate(r["events"]) if e["kind"] in STALL_PARTS}
    assert on | set(acct["off_path"]) == stall_events and not on & set(acct["off_path"])
    # ... matched by the rule itself, every event against every path stall (account bisects its candidates)
    for st in acct["path_stalls"]:
        assert st["events"] == [i for i in sorted(stall_events) if _overlaps(r["events"][i], st)]
    return acct


@pytest.mark.parametrize(("name", "doc"), PRESET_CASES, ids=[n for n, _ in PRESET_CASES])
def test_presets_one_account(name: str, doc: dict[str, Any]) -> None:
    for scenario, protocol in _runs(doc):
        _check(scenario, protocol)


@pytest.mark.parametrize("chunk", range(10))
def test_random_scenarios_one_account(chunk: int) -> None:
    for doc in RANDOM[chunk::10]:
        for scenario, protocol in _runs(doc):
            _check(scenario, protocol)


def _formula_check(scenario: Scenario, protocol: str) -> None:
    r = predict(scenario)["results"][0]
    forms = expression(scenario, protocol)
    values = forms["substitutions"]
    assert set(forms["breakdown_ms"]) == set(CATEGORIES)
    tol = 1e-6 * max(1.0, r["page_load_ms"])
    for c, x in forms["breakdown_ms"].items():
        assert float(x.subs(values)) == pytest.approx(r["breakdown_ms"][c], abs=tol)
    # the formula's stall terms are the path stalls' parts
    for part in STALL_PARTS:
        listed = sum(st["parts_ms"].get(part, 0.0) for st in r["path_stalls"])
        assert float(forms["breakdown_ms"][part].subs(values)) == pytest.approx(listed, abs=tol), part


@pytest.mark.parametrize(("name", "doc"), PRESET_CASES, ids=[n for n, _ in PRESET_CASES])
def test_formula_parts_are_the_breakdown(name: str, doc: dict[str, Any]) -> None:
    """The formula's part of each breakdown category, evaluated with the scenario's numbers, is that part."""
    for scenario, protocol in _runs(doc)[:3]:
        _formula_check(scenario, protocol)


def test_formula_parts_on_a_sample_of_the_random_scenarios() -> None:
    """The formula terms on the random scenarios: sympy is too slow for all 500 x 7 (one protocol each of 25)."""
    for k, doc in enumerate(RANDOM[::20]):
        runs = _runs(doc)
        scenario, protocol = runs[k % len(runs)]
        _formula_check(scenario, protocol)


def test_propagation_and_serialization_are_apart() -> None:
    """Issue 25: "transmission" held the data's flight too (at 100 Gb/s with 100-byte objects persistent showed 550 ms
    of it while the formula gave 0.0001 ms of serialization). The breakdown has the two parts under their names."""
    doc = {
        "protocols": ["persistent"],
        "network": {"rtt_ms": 70, "bandwidth_bps": 100e9},
        "page": {"html_bytes": 100, "object_bytes": [100] * 10},
    }
    r = predict(doc)["results"][0]
    b = r["breakdown_ms"]
    assert "transmission" not in b
    assert b["serialization"] < 0.01
    assert b["propagation"] == pytest.approx(11 * 35, rel=1e-9)  # each response's one-way flight to the client
    assert sum(b.values()) == pytest.approx(r["page_load_ms"], rel=1e-12)
    # on a slow link the serialization is the bytes at the rate, the propagation unchanged
    slow = predict({**doc, "network": {"rtt_ms": 70, "bandwidth_bps": 28_800}})["results"][0]["breakdown_ms"]
    assert slow["propagation"] == pytest.approx(b["propagation"], rel=1e-9)
    assert slow["serialization"] > 100 * 11 * 8000 / 28_800
