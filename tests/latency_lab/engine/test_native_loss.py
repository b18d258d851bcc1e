"""The native engine's reading of the schedule for the loss analysis (latency_lab/engine/native/loss.cpp) equals the Python
reference's (:func:`latency_lab.analysis.expected_loss.structure`) field by field, exactly: every run's window, follow,
penalties, rest and timeout, the other connections' slack, the SYN exchanges page by page.

Both sides run in this process on the same resolved scenario: the Python engine's session read
by ``expected_loss.structure``, and the native run's numbers made into a ``Structure`` by
``expected_loss.from_native``. The whole documents, lossy ones included, are compared with the Python reference in a
subprocess by ``test_engine_backends.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import latency_lab
from latency_lab.analysis import expected_loss, native
from latency_lab.analysis.predict import simulate
from latency_lab.engine.native import _native
from latency_lab.mechanisms import quic
from latency_lab.scenario import limits
from latency_lab.scenario.params import Params, resolve
from latency_lab.scenario.schema import ALL_PROTOCOLS, BROWSER_PROTOCOLS, SEED_PROTOCOLS, Scenario
from tests.latency_lab.engine.test_engine_backends import LOSS_RATES, lossy

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built (pip install -e .)")


def _pair(p: Params, protocol: str) -> tuple[Any, Any]:
    """(Python reference, native) structures of one protocol's schedule, or None where the run does not complete."""
    try:
        s = simulate(p, protocol)
    except AssertionError:  # an object never completes (a window smaller than a QUIC packet): both alike
        s = None
    r = _native.run(_native.Prepared(p, quic.QUIC_PROFILE), protocol, limits.MAX_ENGINE_STEPS, False, True)
    assert (s is None) == (r.status != 0), protocol
    if s is None:
        return None, None
    return expected_loss.structure(s, protocol), expected_loss.from_native(p, protocol, r.loss)


def _diff(a: expected_loss.Structure, b: expected_loss.Structure) -> list[str]:
    out = []
    for name in a.__dataclass_fields__:
        x, y = getattr(a, name), getattr(b, name)
        if x != y:
            if name == "runs":
                out += [f"run {i}: {u} != {v}" for i, (u, v) in enumerate(zip(x, y, strict=False)) if u != v][:3]
                out.append(f"runs: {len(x)} vs {len(y)}")
            else:
                out.append(f"{name}: {str(x)[:300]} != {str(y)[:300]}")
    return out


def _check(doc: dict[str, Any]) -> int:
    s = Scenario.model_validate(doc)
    p = resolve(s)
    n = 0
    for protocol in s.protocols:
        ref, got = _pair(p, protocol)
        assert _diff(ref, got) == [] if ref is not None else got is None, (protocol, doc, _diff(ref, got))
        n += ref is not None and len(ref.runs) + len(ref.others)
    return n


@pytest.mark.parametrize("name", sorted(latency_lab.PRESETS))
@pytest.mark.parametrize("rate", [0.01, 0.05])
def test_every_preset_with_loss(name: str, rate: float) -> None:
    doc = latency_lab.PRESETS[name].document
    doc = {**doc, "protocols": list(ALL_PROTOCOLS), "network": {**doc.get("network", {}), "loss_rate": rate}}
    try:
        Scenario.model_validate(doc)
    except ValueError:  # a path that relays HTTP/1.x only (split proxies: only the long haul is lossy)
        doc["protocols"] = [*SEED_PROTOCOLS, *BROWSER_PROTOCOLS]
    assert _check(doc) > 0


def test_microscape_runs_and_parallel_connections() -> None:
    doc = latency_lab.preset("n97-wan").model_dump()
    doc["protocols"] = list(ALL_PROTOCOLS)
    doc["network"]["loss_rate"] = 0.01
    assert _check(doc) > 100  # runs and other connections compared


def test_random_lossy_scenarios() -> None:
    compared = sum(_check(doc) for doc in lossy(400, 7))
    assert compared > 1000
    assert min(LOSS_RATES) > 0


def test_walks_across_many_unequal_responses() -> None:
    """A kept window (``tcp.idle_restart`` keep) on a persistent connection of many responses: after a loss the walk
    (loss_recovery.penalty) goes to the connection's end, through runs of equal responses and unequal ones; loss.cpp
    shares a walk only where it enters its first run of equal bursts and goes burst by burst after that. The page of
    ``bench/cases/lossy_keep_368.json`` (1.04 s of CPU on the native engine before, 0.14 s after) cut to 24 responses,
    with runs of 5 equal responses put between its unequal ones (39 in all), on protocols whose connections carry
    several."""
    doc = json.loads((Path(__file__).resolve().parents[3] / "bench/cases/lossy_keep_368.json").read_text())
    sizes = doc["page"]["object_bytes"][:24]
    doc["page"]["object_bytes"] = sizes[:8] + [4_000] * 5 + sizes[8:16] + [20_000] * 5 + sizes[16:] + [900] * 5
    doc["protocols"] = ["persistent", "persistent_parallel", "pipelined", "h2"]
    for rate in (0.001, 0.0106):
        doc["network"]["loss_rate"] = rate
        assert _check(doc) > 100
