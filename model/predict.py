"""The model's one seam: a scenario in, the output document out.

``predict`` runs each asked protocol's schedule (:mod:`model.protocols`) on the mechanisms, walks
its critical path (:mod:`model.critical_path`) and reports the page load time, its breakdown, the
counts, the objects' timings, every idle period with its reason and, on request, the packets.
``expression`` gives the same page load time as a sympy expression (:mod:`model.symbolic`).
"""

from __future__ import annotations

from typing import Any

import sympy

from model import symbolic
from model.critical_path import CATEGORIES, walk
from model.engine import DOWN, Quantities, Traced
from model.lin import value
from model.protocols import SCHEDULES
from model.protocols.base import Session
from model.scenario import Params, Scenario, resolve


def simulate(p: Params, protocol: str, traced: bool = False) -> Session:
    """Run one protocol's schedule for resolved parameters; the :class:`Session` holds the result."""
    q: Quantities = Traced(p) if traced else Quantities(p)
    s = Session(q)
    SCHEDULES[protocol](s)
    s.eng.run()
    return s


def _final_packet(s: Session) -> Any:
    last = None
    for rec in s.objects.values():
        if rec.end_pkt is None:  # pragma: no cover - every object completes
            raise AssertionError(f"object {rec.name} never completed")
        if last is None or rec.end_pkt.t_a > last.t_a:
            last = rec.end_pkt
    return last


def result(s: Session, protocol: str, packets: bool = False) -> dict[str, Any]:
    """The output document's entry for one protocol."""
    final = _final_packet(s)
    acc, trips = walk(final, s.q)
    pkts = s.eng.packets
    events = sorted(s.events, key=lambda e: (e["start_ms"], e["connection"]))
    out: dict[str, Any] = {
        "protocol": protocol,
        "page_load_ms": value(final.t_a),
        "breakdown_ms": {c: value(acc[c]) for c in CATEGORIES},
        "counts": {
            "round_trips": trips,
            "slow_start_rounds": s.window_stalls,
            "delayed_ack_stalls": sum(1 for e in events if e["kind"] == "delayed_ack_stall"),
            "nagle_stalls": sum(1 for e in events if e["kind"] == "nagle_stall"),
            "connections": len(s.conns),
            "packets": len(pkts),
            "bytes_on_wire": sum(pk.wire for pk in pkts),
        },
        "objects": [
            {
                "name": r.name,
                "bytes": r.bytes,
                "connection": r.connection,
                "start_ms": value(r.start),
                "end_ms": value(r.end),
            }
            for r in s.objects.values()
        ],
        "events": events,
    }
    if packets:
        out["packets"] = [
            {
                "n": i,
                "direction": "down" if pk.dir == DOWN else "up",
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
    return out


def predict(scenario: Scenario | dict[str, Any], *, packets: bool = False, formulas: bool = False) -> dict[str, Any]:
    """Predict the page load time of every protocol the scenario asks for.

    Returns ``{"scenario": ..., "results": [...]}`` with the scenario as computed (every default
    filled in) and one result per protocol, in the order asked. With ``packets=True`` each result
    also lists the packet schedule; with ``formulas=True`` each result also carries ``formula``:
    the page load time and each breakdown part as text, LaTeX (also with the scenario's numbers in
    place) and MathML, and the document carries the ``glossary`` of the symbols used.
    """
    s = scenario if isinstance(scenario, Scenario) else Scenario.model_validate(scenario)
    p = resolve(s)
    results = [result(simulate(p, proto), proto, packets) for proto in s.protocols]
    out: dict[str, Any] = {"scenario": s.model_dump(mode="json"), "results": results}
    if formulas:
        used: set[str] = set()
        for r in results:
            e = expression(s, r["protocol"])
            r["formula"] = {
                "page_load_ms": symbolic.describe(e["page_load_ms"], p),
                "breakdown_ms": {c: symbolic.describe(x, p, mathml=False) for c, x in e["breakdown_ms"].items()},
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
    final = _final_packet(s)
    acc, _ = walk(final, s.q)
    return {
        "page_load_ms": symbolic.to_sympy(final.t_a, p),
        "breakdown_ms": {c: symbolic.to_sympy(acc[c], p) for c in CATEGORIES},
        "substitutions": symbolic.substitutions(p),
    }


def evaluate(expr: sympy.Expr, p: Params) -> float:
    """Substitute a scenario's numbers into an expression (ms)."""
    return float(expr.subs(symbolic.substitutions(p)))
