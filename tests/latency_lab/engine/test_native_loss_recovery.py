"""The loss analysis costed in C++ (latency_lab/engine/native/loss_recovery.cpp) equals the Python reference,
:func:`latency_lab.mechanisms.loss_recovery.expected` of :func:`latency_lab.analysis.expected_loss.from_native`'s structure, on every
key of the ``expected_with_loss`` block.

Both backends of one source: one native run of each protocol gives both the numbers loss.cpp read off its schedule
(``Run.loss``, which ``from_native`` makes a ``Structure`` for the Python costing) and the C++ costing of the same
numbers (``Run.costed``, which :mod:`latency_lab.analysis.native` assembles into the block). The C++ follows the Python
statement for statement in the same order, so most numbers come out bit for bit; where libm's ``pow`` and a
product the compiler folds may part in the last bits the floats are held to a relative tolerance of 1e-12
(:data:`REL`), and the rest (the loss rate, the connections, the segments, the assumptions' text) exactly. That the
structure itself equals the Python engine's reading is ``test_native_loss.py``'s.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import latency_lab
from latency_lab.analysis import expected_loss, native
from latency_lab.engine.native import _native
from latency_lab.mechanisms import loss, loss_recovery, quic
from latency_lab.scenario import limits
from latency_lab.scenario.params import resolve
from latency_lab.scenario.schema import ALL_PROTOCOLS, Scenario
from tests.latency_lab.engine.test_engine_backends import lossy

pytestmark = pytest.mark.skipif(not native.available(), reason="the native engine is not built (pip install -e .)")

#: The relative tolerance on the block's floats (libm's pow and folded products may part in the last bits).
REL = 1e-12
#: Loss rates every preset and protocol is costed at.
RATES = (0.001, 0.01, 0.05)
#: Random lossy scenarios compared (every_feature's, with a loss rate where it drew none).
RANDOM = 2_000
RANDOM_SEED = 20261129
FLOATS = ("page_load_ms", "extra_ms", "head_of_line_ms")


def _close(x: float, y: float) -> bool:
    return x == y or math.isclose(x, y, rel_tol=REL, abs_tol=0.0)


class TestNativeCosting:
    """The C++ costing against the Python reference, run by run: presets x protocols x loss rates, random scenarios."""

    exact = 0  # floats equal to the last bit
    compared = 0  # floats compared

    def blocks(self, p: Any, protocol: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """(Python reference, C++) blocks of one protocol's run, or None where the run does not complete."""
        r = _native.run(_native.Prepared(p, quic.QUIC_PROFILE), protocol, limits.MAX_ENGINE_STEPS, False, True, p.loss)
        if r.status != 0:
            return None
        page_load = sum(pg[0] for pg in r.pages)
        ref = loss_recovery.expected(expected_loss.from_native(p, protocol, r.loss), p.loss, page_load)
        (handshake, timeouts, fast, slower), extra, hol, segments, connections = r.costed
        by = {"handshake": handshake, "timeouts": timeouts, "fast_retransmit": fast, "slower_sending": slower}
        got = loss_recovery.assemble(p.loss, page_load, by, extra, hol, connections, segments, protocol == "h3")
        return ref, got

    def differences(self, ref: dict[str, Any], got: dict[str, Any]) -> list[str]:
        out = []
        assert list(ref) == list(got) and list(ref["by_cause_ms"]) == list(got["by_cause_ms"])
        pairs = [(k, ref[k], got[k]) for k in FLOATS] + [
            (f"by_cause_ms.{c}", ref["by_cause_ms"][c], got["by_cause_ms"][c]) for c in loss_recovery.CAUSES
        ]
        for key, x, y in pairs:
            TestNativeCosting.compared += 1
            TestNativeCosting.exact += x == y
            if not _close(x, y):
                out.append(f"{key}: {x!r} != {y!r}")
        for key in ("loss_rate", "connections", "segments", "assumptions"):
            if ref[key] != got[key]:
                out.append(f"{key}: {ref[key]!r} != {got[key]!r}")
        return out

    def check(self, doc: dict[str, Any]) -> int:
        """Protocols compared in one scenario."""
        s = Scenario.model_validate(doc)
        p = resolve(s)
        n = 0
        for protocol in s.protocols:
            pair = self.blocks(p, protocol)
            if pair is None:
                continue
            assert self.differences(*pair) == [], (protocol, doc, self.differences(*pair))
            n += 1
        return n

    @pytest.mark.parametrize("name", sorted(latency_lab.PRESETS))
    @pytest.mark.parametrize("rate", RATES)
    def test_every_preset_and_protocol(self, name: str, rate: float) -> None:
        doc = latency_lab.PRESETS[name].document
        doc = {**doc, "protocols": list(ALL_PROTOCOLS), "network": {**doc.get("network", {}), "loss_rate": rate}}
        try:
            Scenario.model_validate(doc)
        except ValueError:  # a path that relays HTTP/1.x only (split proxies): the Python engine's
            pytest.skip("not every protocol on this path")
        self.check(doc)

    def test_random_lossy_scenarios(self) -> None:
        scenarios = runs = 0
        for doc in lossy(RANDOM * 2, RANDOM_SEED):
            n = self.check(doc)
            scenarios += n > 0
            runs += n
            if scenarios >= RANDOM:
                break
        assert scenarios >= RANDOM and runs > 3 * RANDOM
        # most floats equal to the last bit: the same operations in the same order
        assert TestNativeCosting.exact >= 0.9 * TestNativeCosting.compared

    def test_prediction_uses_the_costing(self) -> None:
        """A lossy prediction on the native engine gives the C++ costing's block, the Python costing's numbers."""
        doc = latency_lab.preset("n97-wan").model_dump()
        doc["protocols"] = list(ALL_PROTOCOLS)
        doc["network"]["loss_rate"] = 0.01
        s = Scenario.model_validate(doc)
        p = resolve(s)
        prep = native.Prepared(p)
        for protocol in ALL_PROTOCOLS:
            out = native.run(prep, protocol)["expected_with_loss"]
            r = _native.run(prep.c, protocol, limits.MAX_ENGINE_STEPS, False, True)
            page_load = out["page_load_ms"] - out["extra_ms"]
            ref = loss_recovery.expected(expected_loss.from_native(p, protocol, r.loss), p.loss, page_load)
            assert self.differences(ref, dict(out)) == [], protocol

    def test_constants_are_pythons(self) -> None:
        """The constants loss_recovery.cpp declares again are loss.py's and loss_recovery.py's."""
        mine = _native.loss_costing_constants()
        for name, value in mine.items():
            source = loss_recovery if hasattr(loss_recovery, name) and name.startswith("QUIC") else loss
            assert getattr(source, name) == value, name
