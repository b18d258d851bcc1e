"""Split proxies (seed 003) on the native engine (latency_lab/engine/native/proxy.cpp) equal the Python engine, exactly.

The relay (warm long-haul connections, the least-loaded choice, per-segment relaying with ``proxy.mux_overhead_bytes``,
in-order delivery per client connection, the closing rules) and what is read off its schedule (packets with their legs,
events with the legs' ends' names, the critical path, counts, and with a loss rate above 0 the loss analysis, which
sees only the long-haul connections as lossy) are compared as whole output documents (``packets=True``), each
prediction made twice in this process: with the native engine, and with ``LATENCY_LAB_NATIVE=0`` on the Python engine
(``test_engine_backends.py`` compares the native engine with the Python one in a subprocess too).
An error must be the same error on both. The cases: the seed 003 presets with every protocol the split path relays,
lossless and lossy, and :data:`RANDOM` random split-proxy scenarios of every feature
(:func:`tests.latency_lab.scenarios.every_feature`), each lossless and lossy.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

import latency_lab
from latency_lab.analysis import native
from latency_lab.scenario.schema import BROWSER_PROTOCOLS, SEED_PROTOCOLS
from tests.latency_lab import differential
from tests.latency_lab.engine.test_engine_backends import LOSS_RATES
from tests.latency_lab.scenarios import every_feature

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built (pip install -e .)")

#: The protocols a split path relays (HTTP/1.x: latency_lab.scenario.schema refuses h2 and h3 there).
RELAYED = [*SEED_PROTOCOLS, *BROWSER_PROTOCOLS]
#: The seed 003 presets with split proxies.
PROXY_PRESETS = sorted(
    name for name, p in latency_lab.PRESETS.items() if p.document.get("proxy", {}).get("architecture") == "split_proxy"
)
#: Random split-proxy scenarios compared, each lossless and lossy.
RANDOM = 400
SEED = 20261129


def _both(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], dict[str, Any]]:
    """``doc``'s record (:func:`tests.latency_lab.differential.record`: the document with packets, or the error) on the
    native engine and on the Python engine, without the engine's name (``backend``)."""
    fast = differential.record(0, doc)
    with monkeypatch.context() as m:
        m.setenv(native.ENV, "0")
        slow = differential.record(0, doc)
    assert (fast.pop("backend"), slow.pop("backend")) == ("native", "python")
    return fast, slow


def _same(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    fast, slow = _both(doc, monkeypatch)
    if fast != slow:
        diffs = differential.compare(fast, slow) or ["equal within 1e-9, not exactly"]
        pytest.fail("native (a) vs Python (b):\n  " + "\n  ".join(diffs[:20]) + f"\nscenario: {json.dumps(doc)}")
    return fast


def _with_loss(doc: dict[str, Any], rate: float) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    out.setdefault("network", {})["loss_rate"] = rate
    return out


def split_scenarios(n: int, seed: int) -> list[dict[str, Any]]:
    """The first ``n`` split-proxy scenarios among :func:`every_feature`'s draws (about one in five)."""
    out: list[dict[str, Any]] = []
    k = 0
    while len(out) < n:
        out += [d for d in every_feature(500, seed + k) if d.get("proxy", {}).get("architecture") == "split_proxy"]
        k += 1
    return out[:n]


def test_the_seed_003_presets_are_found() -> None:
    assert len(PROXY_PRESETS) == 3


@pytest.mark.parametrize("rate", [0.0, 0.01, 0.1])
@pytest.mark.parametrize("name", PROXY_PRESETS)
def test_seed_003_preset_every_protocol(name: str, rate: float, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _with_loss({**latency_lab.PRESETS[name].document, "protocols": RELAYED}, rate)
    rec = _same(doc, monkeypatch)
    results = rec["doc"]["results"]
    assert [r["protocol"] for r in results] == RELAYED
    for r in results:
        assert {p["leg"] for p in r["packets"]} == {"client", "long_haul", "server"}, r["protocol"]
        assert (r["expected_with_loss"]["page_load_ms"] > r["page_load_ms"]) == (rate > 0), r["protocol"]


@pytest.mark.parametrize("lossy", [False, True], ids=["lossless", "lossy"])
def test_random_split_proxy_scenarios(lossy: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(SEED + lossy)
    results = packets = errors = 0
    legs: set[int] = set()
    for doc in split_scenarios(RANDOM, SEED):
        rate = doc.get("network", {}).get("loss_rate") or 0.0
        doc = _with_loss(doc, (rate or rng.choice(LOSS_RATES)) if lossy else 0.0)
        rec = _same(doc, monkeypatch)
        if "error" in rec:
            errors += 1
            continue
        results += len(rec["doc"]["results"])
        packets += sum(len(r["packets"]) for r in rec["doc"]["results"])
        legs.add(doc["proxy"]["long_haul_connections"])
    assert results > 4 * RANDOM and packets > 100 * RANDOM and errors < RANDOM // 10
    assert legs == {1, 2, 4}  # one long-haul connection and several (the least-loaded choice, replies overtaking)
