"""The model's one seam: a scenario in, the output document out.

``predict`` runs each asked protocol's schedule (:mod:`latency_lab.protocols`) on the mechanisms, walks
its critical path (:mod:`latency_lab.analysis.critical_path`) and reports the page load time, its breakdown, the
counts, the objects' timings, every idle period with its reason and, on request, the packets.
``expression`` gives the same page load time as a sympy expression (:mod:`latency_lab.analysis.symbolic`).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any, TypeVar, cast

import sympy

from latency_lab.analysis import expected_loss, native, symbolic
from latency_lab.analysis.critical_path import CATEGORIES, walk
from latency_lab.analysis.document import document
from latency_lab.analysis.result import (
    ExpectedWithLoss,
    FormulaText,
    Prediction,
    ProtocolResult,
    ProtocolSummary,
)
from latency_lab.engine.core import LEG_NAMES, Quantities, Traced
from latency_lab.engine.lin import value
from latency_lab.protocols import SCHEDULES
from latency_lab.protocols.base import Session
from latency_lab.protocols.proxy import SplitProxy
from latency_lab.scenario import limits
from latency_lab.scenario.params import Params, resolve
from latency_lab.scenario.schema import Scenario

R = TypeVar("R")


def simulate(p: Params, protocol: str, traced: bool = False) -> Session:
    """Run one protocol's schedule for resolved parameters; the :class:`Session` holds the result."""
    q: Quantities = Traced(p) if traced else Quantities(p)
    s = Session(q, relay=SplitProxy)
    s.run(SCHEDULES[protocol])
    for rec in s.objects.values():
        if rec.end_pkt is None:  # pragma: no cover - every object completes (tests/latency_lab/analysis/test_fuzz.py)
            raise AssertionError(f"object {rec.name} never completed")
    return s


def _pages(s: Session, steps: list[list[Any]] | None = None) -> list[tuple[Any, dict[str, Any], int]]:
    """Each page's load time, breakdown and round trips, walked back from its last byte to its start; ``steps``, when
    given, receives each page's walk step by step (:func:`latency_lab.analysis.critical_path.walk`): one walk serves both."""
    out = []
    for start, final in zip(s.page_start, s.page_end, strict=True):
        page: list[Any] | None = None if steps is None else []
        acc, trips = walk(final, s.q, stop=None if start is s.start else start, steps=page)
        if steps is not None and page is not None:
            steps.append(page)
        out.append((final.t_a - start.t, acc, trips))
    return out


def result(s: Session, protocol: str, packets: bool = False) -> ProtocolResult:
    """The output document's entry for one protocol (:func:`document`), read off a simulated session."""
    pkts = s.eng.packets

    def loss(page_load_ms: float) -> ExpectedWithLoss:
        # random loss (network.loss_rate): its expected cost in closed form, beside the lossless schedule; with loss
        # the analysis reads the whole schedule, work charged to the request's step budget first (latency_lab.scenario.limits)
        if s.p.loss > 0:
            limits.charge_loss_analysis(s.eng.seq * s.eng.cost, limits.LOSS_STEP_COST)
        return cast(ExpectedWithLoss, expected_loss.block(s, protocol, page_load_ms))

    steps: list[list[Any]] = []
    out = document(
        protocol,
        _pages(s, steps),
        [(value(start.t), value(final.t_a)) for start, final in zip(s.page_start, s.page_end, strict=True)],
        steps,
        s.events,
        {
            "connections": len(s.conns),
            "tls_handshakes": s.tls_handshakes,
            "tls_bytes": s.tls_bytes,
            "dns_lookups": s.dns_lookups,
            "packets": len(pkts),
            "bytes_on_wire": s.eng.wire_bytes,
        },
        [
            {
                "name": r.name,
                "bytes": r.bytes,
                "connection": r.connection,
                "start_ms": value(r.start),
                "end_ms": value(r.end),
            }
            for r in s.objects.values()
        ],
        loss,
    )
    if packets:
        out["packets"] = [
            {
                "n": i,
                "direction": "down" if pk.dir & 1 else "up",
                "connection": pk.conn,
                "kind": pk.kind,
                "bytes": int(value(pk.payload)),
                "wire_bytes": pk.wire,
                "fin": pk.fin,
                "object": pk.obj,
                "queued_ms": value(pk.t_q),
                "sent_ms": value(pk.t_s),
                "arrival_ms": value(pk.t_a),
                "ack_held_ms": value(pk.held) if pk.held is not None else 0.0,
            }
            for i, pk in enumerate(pkts)
        ]
        if s.p.proxy is not None:  # split proxies: which leg each packet crossed
            for pk, row in zip(pkts, out["packets"], strict=True):
                row["leg"] = LEG_NAMES[pk.dir >> 1]
    return out


def summaries(scenario: Scenario) -> list[ProtocolSummary]:
    """Each protocol's :class:`~latency_lab.analysis.result.ProtocolSummary` of ``scenario``: what a sweep reads of
    :func:`predict`'s results, equal to them (``tests/latency_lab/analysis/test_predict.py``), made without the objects and
    the events' sentences where the native engine runs."""
    p = resolve(scenario)
    if native.available():
        prep = native.Prepared(p)
        return [_quietly(functools.partial(native.summary, prep, proto)) for proto in scenario.protocols]
    return list(predict(scenario)["results"])


def _run(p: Params, protocol: str, packets: bool) -> ProtocolResult:
    s = simulate(p, protocol)
    out = result(s, protocol, packets)
    s.release()
    return out


def _quietly(run: Callable[[], R]) -> R:
    """``run()`` with Python's cyclic garbage collector paused: a schedule allocates thousands of packets and
    tuples, none of them garbage until it ends, and the collector's passes over them took a quarter of the
    Cython-compiled Python engine's time (perf, 2026-11-25). Cycles left behind are collected at the next pass after it."""
    if not gc.isenabled():
        return run()
    gc.disable()
    try:
        return run()
    finally:
        gc.enable()


def predict(scenario: Scenario | dict[str, Any], *, packets: bool = False, formulas: bool = False) -> Prediction:
    """Predict the page load time of every protocol the scenario asks for.

    Returns the output document (:class:`~latency_lab.analysis.result.Prediction`): ``{"scenario": ..., "results": [...]}`` with the scenario as computed (every default
    filled in) and one result per protocol, in the order asked. With ``packets=True`` each result
    also lists the packet schedule; with ``formulas=True`` each result also carries ``formula``:
    the page load time and each breakdown part as text, LaTeX (also with the scenario's numbers in
    place) and MathML, and the document carries the ``glossary`` of the symbols used.
    """
    s = scenario if isinstance(scenario, Scenario) else Scenario.model_validate(scenario)
    p = resolve(s)
    if native.available():
        prep = native.Prepared(p)
        results = [_quietly(functools.partial(native.run, prep, proto, packets)) for proto in s.protocols]
    else:
        results = [_quietly(functools.partial(_run, p, proto, packets)) for proto in s.protocols]
    out: Prediction = {"scenario": s.model_dump(mode="json"), "results": results}
    if formulas:
        used: set[str] = set()
        for r in results:
            e = expression(s, r["protocol"])
            r["formula"] = {
                "page_load_ms": cast(FormulaText, symbolic.describe(e["page_load_ms"], p)),
                "breakdown_ms": {
                    c: cast(FormulaText, symbolic.describe(x, p, mathml=False)) for c, x in e["breakdown_ms"].items()
                },
            }
            used.update(r["formula"]["page_load_ms"]["symbols"])
        out["glossary"] = {
            name: {"meaning": meaning, "unit": unit, "field": field}
            for name, (meaning, unit, field) in symbolic.GLOSSARY.items()
            if name in used
        }
    return out


def expression(scenario: Scenario, protocol: str) -> dict[str, Any]:
    """The page load time of ``protocol`` as a sympy expression, with its parts.

    Returns ``{"page_load_ms": Expr, "breakdown_ms": {category: Expr}, "substitutions": {Symbol:
    value}}``. The expression is the active piece of the model's piecewise-linear form: exact for
    this scenario and any other whose critical path has the same shape.
    """
    p = resolve(scenario)
    s = simulate(p, protocol, traced=True)
    pages = _pages(s)
    total = pages[0][0]
    acc = dict(pages[0][1])
    for load, part, _ in pages[1:]:
        total = total + load
        acc = {c: acc[c] + part[c] for c in CATEGORIES}
    return {
        "page_load_ms": symbolic.to_sympy(total, p),
        "breakdown_ms": {c: symbolic.to_sympy(acc[c], p) for c in CATEGORIES},
        "substitutions": symbolic.substitutions(p),
    }


def evaluate(expr: sympy.Expr, p: Params) -> float:
    """Substitute a scenario's numbers into an expression (ms)."""
    return float(expr.subs(symbolic.substitutions(p)))
