"""The native engine (C++, model/engine/native/; issue 13): built, used, honouring the budget, and exactly which
features it hands to the Python engine.

Its equality with the Python reference over every preset, the validation grid and thousands of random scenarios is
``test_engine_backends.py``'s; here, the cheap in-process checks: the same predictions with the native engine on and
off (``LATENCY_LAB_NATIVE=0`` runs the Cython-compiled Python engine in this process).
"""

from __future__ import annotations

from typing import Any

import pytest

import model
from model.analysis import native
from model.scenario import limits
from model.scenario.params import resolve
from model.scenario.schema import ALL_PROTOCOLS, Scenario
from tests.model.scenarios import every_feature

#: The features the native engine does not cover: a scenario with any of them runs on the Python engine. The issue's
#: goal is none; these two remain (split proxies, seed 003, relay between two connections; a loss rate above 0 makes
#: the loss analysis read the whole schedule's packets).
FALLBACK_FEATURES = {"split_proxy", "loss"}


def _both(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch, **kw: Any) -> tuple[Any, Any]:
    fast = model.predict(doc, **kw)
    with monkeypatch.context() as m:
        m.setenv(native.ENV, "0")
        slow = model.predict(doc, **kw)
    return fast, slow


def test_native_engine_is_built_and_used() -> None:
    assert model.engine_backend() == "compiled", "pip install -e . (the README's commands) builds the engines"
    assert native.available(), "the native engine (model/engine/native) is not built: pip install -e ."


def test_exactly_these_features_fall_back() -> None:
    seen: set[str] = set()
    runs_native = 0
    for doc in every_feature(800, 20261127):
        p = resolve(Scenario.model_validate(doc))
        reason = native.fallback_reason(p)
        expected = "split_proxy" if p.proxy is not None else "loss" if p.loss > 0 else None
        assert reason == expected, doc
        if reason is None:
            runs_native += 1
        else:
            seen.add(reason)
    assert seen == FALLBACK_FEATURES
    assert runs_native > 400  # most of every feature's draws run natively


@pytest.mark.parametrize("name", sorted(model.PRESETS))
def test_preset_same_on_and_off(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = model.PRESETS[name].document
    fast, slow = _both(doc, monkeypatch, packets=True)
    assert fast == slow


def test_microscape_all_protocols_same_on_and_off(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = model.preset("n97-wan").model_dump()
    doc["protocols"] = list(ALL_PROTOCOLS)
    fast, slow = _both(doc, monkeypatch, packets=True)
    assert fast == slow
    assert sum(len(r["packets"]) for r in fast["results"]) > 1000


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_budget_refused_alike(protocol: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run past the request's step budget is refused by both engines with the same limit and the same count."""
    doc = {"protocols": [protocol], "page": {"html_bytes": 20000, "object_bytes": [30000] * 12}}
    errors = []
    for flag in ("1", "0"):
        monkeypatch.setenv(native.ENV, flag)
        with limits.budget(200), pytest.raises(limits.WorkLimitExceeded) as info:
            model.predict(doc)
        errors.append(info.value.limit)
    assert errors[0] == errors[1]
    assert errors[0].name == "max_engine_steps"


def test_budget_spent_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both engines take the same steps from a budget (what is left after a prediction is the same)."""
    left = []
    for flag in ("1", "0"):
        monkeypatch.setenv(native.ENV, flag)
        with limits.budget():
            model.predict({"protocols": list(ALL_PROTOCOLS), "page": {"object_bytes": [5000] * 5}})
            left.append(limits.allowance())
    assert left[0] == left[1] < limits.MAX_ENGINE_STEPS
