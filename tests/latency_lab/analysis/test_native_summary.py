"""The native engine's summary runs (:func:`latency_lab.analysis.native.summary`) count the stalls in C++ (``api.hpp``'s
``count_stalls``): on the same schedule they equal what the Python reference reads off the walk's steps
(:func:`latency_lab.analysis.critical_path.path_stalls` and :func:`~latency_lab.analysis.critical_path.stall_counts`,
which :func:`latency_lab.analysis.native.run` calls), and the rest of the run is the full run's."""

from __future__ import annotations

import random
from typing import Any

import pytest

import latency_lab
from latency_lab import PRESETS
from latency_lab.analysis import native
from latency_lab.analysis.critical_path import path_stalls, stall_counts
from latency_lab.analysis.predict import resolve
from latency_lab.scenario.schema import Scenario
from tests.latency_lab.scenarios import every_feature

pytestmark = pytest.mark.skipif(latency_lab.engine_backend() != "native", reason="the native engine is not built")

#: Loss rates drawn for the lossy copies (the summary path costs the loss analysis in the same run).
LOSS_RATES = (0.001, 0.01, 0.05)


def _docs() -> list[dict[str, Any]]:
    rng = random.Random(20261129)
    docs = [p.document for p in PRESETS.values()] + every_feature(250, 20261129)
    lossy = []
    for doc in docs[:120]:
        copy = {**doc, "network": {**doc.get("network", {}), "loss_rate": rng.choice(LOSS_RATES)}}
        lossy.append(copy)
    return docs + lossy


def test_summary_runs_count_the_stalls_as_the_python_reference() -> None:
    from latency_lab.engine.native import _native

    seen = {"slow_start_rounds": 0, "delayed_ack_stalls": 0, "nagle_stalls": 0, "slow_start_restarts": 0}
    runs = 0
    for doc in _docs():
        try:
            s = Scenario.model_validate(doc)
        except ValueError:  # a lossy copy the schema refuses (loss on a path that cannot carry it)
            continue
        prep = native.Prepared(resolve(s))
        for protocol in s.protocols:
            full = _native.run(prep.c, protocol, 10**9, False, cost_at=prep.p.loss)
            short = _native.run(prep.c, protocol, 10**9, False, cost_at=prep.p.loss, summary=True)
            assert short.status == full.status, doc
            if full.status != 0:  # a window below one QUIC packet never completes h3 (tests/latency_lab/scenarios.py)
                continue
            restarts = sum(1 for e in full.events if e[0] == native.RESTART)
            reference = stall_counts(path_stalls(native._steps(prep, full), [pg[4] for pg in full.pages]), restarts)
            assert short.stall_counts is not None
            assert dict(zip(native.STALL_COUNTS, short.stall_counts, strict=True)) == reference, (protocol, doc)
            assert full.stall_counts is None
            # the rest of what a summary reads is the full run's, and nothing per step is made
            assert (short.steps, short.pages, short.counts) == (full.steps, full.pages, full.counts), (protocol, doc)
            assert (short.on_path, short.conn_segments, short.conn_syns) == (
                full.on_path,
                full.conn_segments,
                full.conn_syns,
            )
            assert short.conn_syn_t == full.conn_syn_t
            if prep.p.loss > 0:
                assert short.costed == full.costed, (protocol, doc)
            assert short.walk_steps == [] and short.events == [] and short.objects == [] and short.notes == []
            for name, n in reference.items():
                seen[name] += n
            runs += 1
    assert runs > 1000
    # the counts compared include stalls of every kind and restarts
    assert all(n > 20 for n in seen.values()), seen
