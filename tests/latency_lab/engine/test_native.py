"""The native engine (C++, latency_lab/engine/native/; issue 13): built, used for every numeric prediction (it hands
no feature to the Python engine), honouring the budget.

Its equality with the Python reference over every preset, the validation grid and thousands of random scenarios is
``test_engine_backends.py``'s; here, the cheap in-process checks: the same predictions with the native engine on and
off (``LATENCY_LAB_NATIVE=0`` runs the Python engine in this process).
"""

from __future__ import annotations

from typing import Any

import pytest

import latency_lab
from latency_lab.analysis import native
from latency_lab.scenario import limits
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import ALL_PROTOCOLS, Scenario
from tests.latency_lab.scenarios import every_feature


def _both(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch, **kw: Any) -> tuple[Any, Any]:
    fast = latency_lab.predict(doc, **kw)
    with monkeypatch.context() as m:
        m.setenv(native.ENV, "0")
        slow = latency_lab.predict(doc, **kw)
    return fast, slow


def test_native_engine_is_built_and_used() -> None:
    assert latency_lab.engine_backend() == "native", "pip install -e . (the README's commands) builds the engine"
    assert native.available(), "the native engine (latency_lab/engine/native) is not built: pip install -e ."


def test_no_feature_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every feature runs natively: a prediction of every_feature's draws (split proxies and loss among them) never
    calls the Python engine's schedule (no feature is handed to it since split proxies and the loss costing were
    ported; until 2026-11-29 ``limits.fallback_reason`` named the ones that were)."""
    from latency_lab.analysis import predict

    def python_engine(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a scenario ran on the Python engine")

    monkeypatch.setattr(predict, "_run", python_engine)
    runs = proxies = lossy = 0
    for doc in every_feature(300, 20261127):
        s = Scenario.model_validate(doc)
        proxies += resolve(s).proxy is not None
        lossy += s.network.loss_rate > 0
        try:
            latency_lab.predict(s)
        except limits.WorkLimitExceeded:
            continue
        runs += 1
    assert runs > 250 and proxies > 30 and lossy > 30


def test_a_split_proxy_scenario_runs_natively(monkeypatch: pytest.MonkeyPatch) -> None:
    """Split proxies (seed 003) run on the native engine (latency_lab/engine/native/proxy.cpp), lossless and lossy, every
    protocol they relay: a prediction of one never calls the Python engine's schedule. Their equality with it is
    ``test_native_proxy.py``'s."""
    from latency_lab.analysis import predict

    def python_engine(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a split-proxy scenario ran on the Python engine")

    monkeypatch.setattr(predict, "_run", python_engine)
    ran: list[str] = []
    native_run = native.run
    monkeypatch.setattr(
        native, "run", lambda prep, protocol, packets=False: ran.append(protocol) or native_run(prep, protocol, packets)
    )
    for name in ("m98-tt-proxy", "m98-ss-proxy", "m98-st-proxy"):
        doc = latency_lab.PRESETS[name].document
        doc = {**doc, "protocols": ["http10", "http10_parallel", "persistent", "pipelined", "getall",
                                    "persistent_parallel"]}  # fmt: skip
        s = Scenario.model_validate(doc)
        assert s.proxy.architecture == "split_proxy"
        for rate in (0.0, 0.01):
            out = latency_lab.predict({**doc, "network": {**doc.get("network", {}), "loss_rate": rate}}, packets=True)
            assert len(out["results"]) == 6 and len(ran) == 6
            ran.clear()
            assert all({p["leg"] for p in r["packets"]} == {"client", "long_haul", "server"} for r in out["results"])


@pytest.mark.parametrize("name", sorted(latency_lab.PRESETS))
def test_preset_same_on_and_off(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = latency_lab.PRESETS[name].document
    fast, slow = _both(doc, monkeypatch, packets=True)
    assert fast == slow


def test_microscape_all_protocols_same_on_and_off(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = latency_lab.preset("n97-wan").model_dump()
    doc["protocols"] = list(ALL_PROTOCOLS)
    fast, slow = _both(doc, monkeypatch, packets=True)
    assert fast == slow
    assert sum(len(r["packets"]) for r in fast["results"]) > 1000


@pytest.mark.parametrize("nagle", [False, True])
def test_headers_alone_and_pingpong_same_on_and_off(nagle: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The linux profile's pingpong ACK rule and multiplex.headers_alone (issue 18), in both engines: h2 and h3
    with a batch of responses, the HEADERS frames written first, and a persistent connection whose client
    answers within the delayed-ACK time."""
    doc = {
        "protocols": ["h2", "h3", "persistent", "http10"],
        "network": {"rtt_ms": 30, "bandwidth_bps": 10e6, "uplink_bandwidth_bps": 1e6},
        "tcp": {"profile": "linux", "nagle": nagle, "receive_window_bytes": 1_000_000},
        "http": {"response_header_bytes": 150, "header_flush": True},
        "multiplex": {"headers_alone": True},
        "page": {"html_bytes": 9000, "object_bytes": [0, 300, 2000, 40000, 1460]},
    }
    fast, slow = _both(doc, monkeypatch, packets=True)
    assert fast == slow
    plain, _ = _both({**doc, "multiplex": {"headers_alone": False}}, monkeypatch)
    assert [r["page_load_ms"] for r in plain["results"]] != [r["page_load_ms"] for r in fast["results"]]


@pytest.mark.parametrize("resumption", ["none", "after_first"])
def test_tls13_session_tickets_same_on_and_off(resumption: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """tls.session_tickets (issue 18): TLS 1.3's NewSessionTickets, each a packet of its own after the client's
    last flight, in both engines; two more server packets per connection than without them."""
    doc = {
        "protocols": ["http10", "persistent", "http10_parallel", "h2"],
        "network": {"rtt_ms": 50, "bandwidth_bps": 10e6},
        "tcp": {"profile": "linux"},
        "tls": {"version": "1.3", "resumption": resumption, "session_tickets": 2, "session_ticket_bytes": 79},
        "page": {"html_bytes": 6000, "object_bytes": [2000, 15000, 40000]},
    }
    fast, slow = _both(doc, monkeypatch, packets=True)
    assert fast == slow
    plain, _ = _both({**doc, "tls": {**doc["tls"], "session_tickets": 0}}, monkeypatch)
    for with_, without in zip(fast["results"], plain["results"], strict=True):
        down = [p for p in with_["packets"] if p["direction"] == "down" and p["bytes"] == 79]
        if resumption == "none":  # (with 0-RTT an HTTP/1.0 server may have closed before the client's last flight)
            assert len(down) == 2 * with_["counts"]["connections"], with_["protocol"]
        assert with_["counts"]["bytes_on_wire"] > without["counts"]["bytes_on_wire"]


def test_budget_counts_native_steps() -> None:
    """The budget counts native steps, and a step of the Python engine costs PYTHON_STEP_COST of them
    (latency_lab.scenario.limits)."""
    assert limits.python_step_cost() == limits.PYTHON_STEP_COST
    assert limits.python_step_cost(traced=True) == limits.PYTHON_STEP_COST * limits.TRACED_STEP_COST
    with limits.request_budget(packets=True):  # a budget of the answer's size: a step is a step
        assert limits.python_step_cost() == 1


@pytest.mark.parametrize("protocol", ALL_PROTOCOLS)
def test_budget_refused_by_both(protocol: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run past the request's step budget is refused by both engines, naming the same limit; the native engine at
    its steps, the Python one at PYTHON_STEP_COST a step."""
    doc = {"protocols": [protocol], "page": {"html_bytes": 20000, "object_bytes": [30000] * 40}}
    errors = []
    for flag in ("1", "0"):
        monkeypatch.setenv(native.ENV, flag)
        with limits.budget(800), pytest.raises(limits.WorkLimitExceeded) as info:
            latency_lab.predict(doc)
        errors.append(info.value.limit)
    assert [e.name for e in errors] == ["max_engine_steps"] * 2
    assert [e.maximum for e in errors] == [800, 800]
    assert all(e.actual > 800 for e in errors)  # the step past it, or a batch of writes refused before it is built
    assert errors[1].actual % limits.PYTHON_STEP_COST == 0


def test_budget_spent_by_both(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both engines run the same steps: the Python one spends PYTHON_STEP_COST times the native one's from a budget."""
    spent = []
    for flag in ("1", "0"):
        monkeypatch.setenv(native.ENV, flag)
        with limits.budget():
            latency_lab.predict({"protocols": list(ALL_PROTOCOLS), "page": {"object_bytes": [5000] * 5}})
            spent.append(limits.MAX_ENGINE_STEPS - limits.allowance())
    assert spent[1] == spent[0] * limits.PYTHON_STEP_COST > 0
