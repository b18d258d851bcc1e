"""The symbolic expression and the numeric path agree (latency_lab.analysis.symbolic, latency_lab.analysis.predict.expression)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import sympy

from latency_lab import GLOSSARY, Scenario, predict, preset
from latency_lab.analysis.predict import evaluate, expression
from latency_lab.analysis.symbolic import RTT, d_d, render, textbook
from latency_lab.scenario.params import resolve

_spec = importlib.util.spec_from_file_location("scenarios", Path(__file__).parents[1] / "scenarios.py")
assert _spec and _spec.loader
scenarios = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scenarios)

SPREAD = scenarios.spread(40)
SPLIT = scenarios.split_spread(30)


@pytest.mark.parametrize(
    "doc", SPREAD + SPLIT, ids=[f"s{i}" for i in range(len(SPREAD))] + [f"split{i}" for i in range(len(SPLIT))]
)
def test_expression_substituted_equals_numeric(doc: dict) -> None:
    """For every protocol, substituting the scenario into the expression gives page_load_ms (rel < 1e-9),
    each breakdown part likewise, and the coefficient of the round-trip time is the round-trip count. On a
    split-proxy path (seed 003) RTT is the long-haul link's and the round trips are its crossings."""
    s = Scenario.model_validate(doc)
    p = resolve(s)
    for r in predict(s)["results"]:
        e = expression(s, r["protocol"])
        total = evaluate(e["page_load_ms"], p)
        assert total == pytest.approx(r["page_load_ms"], rel=1e-9)
        for cat, part in e["breakdown_ms"].items():
            assert evaluate(part, p) == pytest.approx(r["breakdown_ms"][cat], rel=1e-9, abs=1e-9 * total)
        if p.pages == 1:  # a later page's walk may be cut at its start, mid-crossing (see the README's limits)
            trips = e["page_load_ms"].coeff(RTT) if p.symmetric_delay else e["page_load_ms"].coeff(d_d)
            assert trips == r["counts"]["round_trips"]


def test_expression_reads_like_the_seed() -> None:
    """Fixed P-HTTP on seed 000's LAN: one handshake and three request round trips, three server think
    times, no timer; unfixed: the delayed-ACK timer appears three times."""
    doc = preset("h96-lan").model_dump()
    doc["http"]["header_flush"] = False
    doc["tcp"]["nagle"] = False
    fixed = expression(Scenario.model_validate(doc), "persistent")["page_load_ms"]
    t_s, t_d = sympy.Symbol("t_s", nonnegative=True), sympy.Symbol("T_d", nonnegative=True)
    assert fixed.coeff(t_s) == 3 and fixed.coeff(t_d) == 0
    unfixed = expression(preset("h96-lan"), "persistent")["page_load_ms"]
    assert unfixed.coeff(t_d) == 3
    out = render(unfixed)
    assert "T_{d}" in out["latex"] and out["mathml"].startswith("<m")


def test_expression_uses_only_glossary_symbols() -> None:
    for doc in SPREAD[:8] + SPLIT[:4]:
        s = Scenario.model_validate(doc)
        for proto in s.protocols:
            e = expression(s, proto)["page_load_ms"]
            assert {str(x) for x in e.free_symbols} <= set(GLOSSARY)


def test_expression_is_exact_for_a_neighbouring_scenario_on_the_same_path() -> None:
    """The expression is the active piece of the piecewise form: a slightly different RTT takes the same
    critical path, and the same expression predicts it."""
    base = preset("pm94-remote")
    e = expression(base, "pipelined")["page_load_ms"]
    doc = base.model_dump()
    doc["network"]["rtt_ms"] = 71.0
    near = Scenario.model_validate(doc)
    got = predict(near)["results"][2]["page_load_ms"]
    assert float(e.subs({RTT: 71.0, **{k: v for k, v in _subs(near).items() if k != RTT}})) == pytest.approx(
        got, rel=1e-9
    )


def _subs(s: Scenario) -> dict:
    from latency_lab.analysis.symbolic import substitutions

    return substitutions(resolve(s))


def test_predict_with_formulas_carries_text_latex_mathml_and_numbers() -> None:
    out = predict(preset("h96-lan"), formulas=True)
    f = out["results"][0]["formula"]["page_load_ms"]
    assert f["text"].startswith("8*RTT + 3*T_d")
    assert "T_{d}" in f["latex"]
    assert f["mathml"].startswith("<mrow>") and "<msub><mi>T</mi><mi>d</mi></msub>" in f["mathml"]
    assert "187" in f["latex_numbers"] and "T_{d}" not in f["latex_numbers"]
    assert set(f["symbols"]) <= set(out["glossary"]) and out["glossary"]["T_d"]["field"] == "tcp.delayed_ack_ms"
    by_name = {str(sym): v for sym, v in _subs(preset("h96-lan")).items()}
    assert float(sympy.sympify(f["text"]).subs(by_name)) == pytest.approx(out["results"][0]["page_load_ms"], rel=1e-9)


@pytest.mark.parametrize(
    "doc", SPREAD[:10] + SPLIT, ids=[f"s{i}" for i in range(10)] + [f"split{i}" for i in range(len(SPLIT))]
)
def test_terms_add_up_on_every_path(doc: dict) -> None:
    """The formula term by term (the teaching panel's table) sums to the prediction, split-proxy legs
    (B_c, B_s) included: their serialization terms once raised KeyError 1/B_s (issue 15, defect 2)."""
    from latency_lab.analysis.symbolic import terms

    s = Scenario.model_validate(doc)
    p = resolve(s)
    for r in predict(s)["results"]:
        parts = terms(expression(s, r["protocol"])["page_load_ms"], p)
        assert sum(t["ms"] for t in parts) == pytest.approx(r["page_load_ms"], rel=1e-9, abs=1e-9)
        for t in parts:
            assert t["rate"] is None or t["rate"] in {"B", "B_u", "B_c", "B_s"}


def test_mathml_keeps_eight_thousand_over_the_rate() -> None:
    """The MathML writes serialization as the README does, 8000 (bytes)/B, not 99200000/B or -16000 M
    (issue 15, defect 7); a term of the table likewise: 8000 (-2 M)/B."""
    from latency_lab.analysis.symbolic import terms, to_mathml

    s = preset("h96-lan")
    e = expression(s, "persistent")["page_load_ms"]
    ml = to_mathml(e)
    assert "<mfrac><mrow><mn>8000</mn><mo>&InvisibleTimes;</mo><mrow><mo>(</mo>" in ml
    assert "99200000" not in ml and "16000" not in ml
    assert "<mn>12400</mn>" in ml and "<mn>2</mn><mo>&InvisibleTimes;</mo><mi>M</mi>" in ml
    by_symbol = {(t["symbol"], t["rate"]): t for t in terms(e, resolve(s))}
    m_term = to_mathml(by_symbol[("M", "B")]["display"])
    assert m_term.startswith("<mfrac><mrow><mn>8000</mn>") and "16000" not in m_term and "<mi>M</mi>" in m_term
    const = to_mathml(by_symbol[(None, "B")]["display"])
    assert "<mn>12400</mn>" in const and "99200000" not in const
    # the unevaluated form still has the expression's value
    assert float(by_symbol[("M", "B")]["display"].subs(_subs(s))) == pytest.approx(by_symbol[("M", "B")]["ms"])


@pytest.mark.parametrize(
    ("protocol", "iw", "rtt", "bandwidth", "objects"),
    [
        ("http10", 1, 100, 1e6, []),
        ("http10", 1, 100, 1e6, [20_000, 5_000]),
        ("http10", 1, 10, 10e6, [100_000]),
        ("http10", 1, 300, 28_800, [3_000]),
        ("persistent", 64, 100, 1e6, [20_000, 5_000]),
        ("pipelined", 64, 100, 1e6, [20_000, 5_000]),
    ],
)
def test_textbook_form_is_the_model_in_the_textbook_setting(
    protocol: str, iw: int, rtt: float, bandwidth: float, objects: list[int]
) -> None:
    """Issue 25: Kurose & Ross's 2 RTT + O/R + P (RTT + S/R) - (2^P - 1) S/R (HTTP/1.0, slow start from one segment)
    and their RTT sums (persistent, pipelined: a window that never fills) are the model's time where the textbook's
    assumptions hold (profile rfc5681, an immediate ACK per segment, no overhead, no server time), up to the
    requests' own serialization (on the path, at most all of it), which the textbook leaves out."""
    doc = {
        "protocols": [protocol],
        "network": {"rtt_ms": rtt, "bandwidth_bps": bandwidth, "packet_overhead_bytes": 0},
        "tcp": {"profile": "rfc5681", "initial_window_segments": iw, "delayed_ack_ms": 0, "nagle": False},
        "http": {
            "server_think_ms": 0,
            "client_think_ms": 0,
            "connection_overhead_ms": 0,
            "request_bytes": 1,
            "response_header_bytes": 0,
        },
        "page": {"html_bytes": 10_000, "object_bytes": objects},
    }
    scenario = Scenario.model_validate(doc)
    model_ms = predict(scenario)["results"][0]["page_load_ms"]
    book = textbook(resolve(scenario), protocol)
    assert book is not None
    requests = (1 + len(objects)) * 8000 / bandwidth  # one byte a request, which the textbook does not count
    assert 0 <= model_ms - book["ms"] <= requests + 1e-9


def test_textbook_form_only_where_it_applies() -> None:
    assert textbook(resolve(Scenario.model_validate({"protocols": ["h2"]})), "h2") is None
    assert textbook(resolve(Scenario.model_validate({"tls": {"version": "1.3"}})), "http10") is None
    assert textbook(resolve(Scenario()), "http10") is not None
