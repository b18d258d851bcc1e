"""The page load time as a formula a student can read: sympy expressions over one glossary.

A :class:`~model.lin.Lin` form is a linear combination over the basis the mechanisms use: one-way
delays, think times, the delayed-ACK timer, and serialization times ``8000 x / B`` of byte counts
``x`` (a full segment ``M``, a header ``h``, a request ``q``, the per-packet overhead ``o``,
plain byte counts). :func:`to_sympy` writes it with the symbols of :data:`GLOSSARY`; the integer
coefficients are the counts a student looks for (how many round trips, how many delayed-ACK timers,
how many segments' serialization lie on the critical path).
"""

from __future__ import annotations

from typing import Any

import sympy

from model.lin import Lin
from model.scenario import Params

RTT, d_u, d_d = sympy.symbols("RTT d_u d_d", positive=True)
B, B_u = sympy.symbols("B B_u", positive=True)
M, o, h, q, W_r = sympy.symbols("M o h q W_r", positive=True)
t_s, t_c, T_d, t_o, T_dns = sympy.symbols("t_s t_c T_d t_o T_dns", nonnegative=True)
# split-proxy paths (seed 003, model.proxy): the legs at either end of the long-haul link
d_c, d_s, m = sympy.symbols("d_c d_s m", nonnegative=True)
B_c, B_s, W_c, W_s, W_x = sympy.symbols("B_c B_s W_c W_s W_x", positive=True)

#: symbol -> (meaning, unit, scenario field)
GLOSSARY: dict[str, tuple[str, str, str]] = {
    "RTT": ("round-trip propagation delay (when both ways are equal)", "ms", "network.rtt_ms"),
    "d_u": ("one-way delay, client to server", "ms", "network.uplink_delay_ms"),
    "d_d": ("one-way delay, server to client", "ms", "network.downlink_delay_ms"),
    "B": ("bottleneck rate (server to client; both ways unless B_u is given)", "bit/s", "network.bandwidth_bps"),
    "B_u": ("rate client to server", "bit/s", "network.uplink_bandwidth_bps"),
    "M": ("maximum segment size", "bytes", "tcp.mss_bytes"),
    "o": ("per-packet overhead on the wire", "bytes", "network.packet_overhead_bytes"),
    "h": ("response header size", "bytes", "http.response_header_bytes"),
    "q": ("request size", "bytes", "http.request_bytes"),
    "W_r": ("receive window", "bytes", "tcp.receive_window_bytes"),
    "t_s": ("server think time per request", "ms", "http.server_think_ms"),
    "t_c": ("client think time per request", "ms", "http.client_think_ms"),
    "T_d": ("delayed-ACK timer", "ms", "tcp.delayed_ack_ms"),
    "t_o": ("host overhead per new connection", "ms", "http.connection_overhead_ms"),
    "d_c": ("one-way delay of the client leg (split proxy)", "ms", "proxy.client_leg.delay_ms"),
    "d_s": ("one-way delay of the server leg (split proxy)", "ms", "proxy.server_leg.delay_ms"),
    "B_c": ("rate of the client leg (split proxy)", "bit/s", "proxy.client_leg.bandwidth_bps"),
    "B_s": ("rate of the server leg (split proxy)", "bit/s", "proxy.server_leg.bandwidth_bps"),
    "W_c": ("receive window on the client leg", "bytes", "proxy.client_leg.receive_window_bytes"),
    "W_s": ("receive window on the server leg", "bytes", "proxy.server_leg.receive_window_bytes"),
    "W_x": ("receive window between the proxies", "bytes", "proxy.long_haul_receive_window_bytes"),
    "m": ("multiplexing overhead per relayed reply segment", "bytes", "proxy.mux_overhead_bytes"),
    "T_dns": ("DNS lookup: one round trip to the resolver", "ms", "dns.resolver_rtt_ms"),
}

_TIME = {
    "d_u": d_u,
    "d_d": d_d,
    "t_s": t_s,
    "t_c": t_c,
    "T_d": T_d,
    "t_o": t_o,
    "d_c": d_c,
    "d_s": d_s,
    "T_dns": T_dns,
}
_BYTES = {"M": M, "o": o, "h": h, "q": q, "W_r": W_r, "W_c": W_c, "W_s": W_s, "W_x": W_x, "m": m, "1": sympy.Integer(1)}


def _num(x: float) -> sympy.Expr:
    if float(x).is_integer():
        return sympy.Integer(int(x))
    return sympy.nsimplify(x, rational=True) if abs(x) < 1e12 else sympy.Float(x)


def to_sympy(form: Lin | float, p: Params) -> sympy.Expr:
    """A linear form as a sympy expression in the glossary's symbols (ms)."""
    if not isinstance(form, Lin):
        return _num(form)
    c = form.c
    expr: sympy.Expr = sympy.Integer(0)
    cu, cd = c.get("d_u", 0), c.get("d_d", 0)
    if p.symmetric_delay:
        expr += _num((cu + cd) / 2) * RTT
    else:
        expr += _num(cu) * d_u + _num(cd) * d_d
    for key, sym in _TIME.items():
        if key in ("d_u", "d_d"):
            continue
        if c.get(key):
            expr += _num(c[key]) * sym
    if c.get("1"):
        expr += _num(c["1"])
    rates = {"B_d": B, "B_u": B if p.symmetric_rate else B_u, "B_c": B_c, "B_s": B_s}
    per_rate: dict[sympy.Expr, sympy.Expr] = {}
    for basis, x in c.items():
        if isinstance(basis, tuple):
            link, nbytes = basis
            rate = rates[link]
            per_rate[rate] = per_rate.get(rate, sympy.Integer(0)) + _num(x) * _BYTES[nbytes]
    for rate, nbytes in per_rate.items():
        if nbytes != 0:
            expr += sympy.Mul(8000, nbytes, sympy.Pow(rate, -1), evaluate=False)
    return expr


def substitutions(p: Params) -> dict[sympy.Symbol, float]:
    """Each glossary symbol's value in a resolved scenario."""
    out = {
        RTT: p.d_up + p.d_down,
        d_u: p.d_up,
        d_d: p.d_down,
        B: 8000.0 / p.k_down,
        B_u: 8000.0 / p.k_up,
        M: p.mss,
        o: p.overhead,
        h: p.header,
        q: p.request,
        W_r: p.rwnd,
        t_s: p.server_think,
        t_c: p.client_think,
        T_d: p.dack_ms,
        t_o: p.conn_overhead,
        T_dns: p.dns_ms,
    }
    x = p.proxy
    if x is not None:
        out.update(
            {
                d_c: x.d_c,
                d_s: x.d_s,
                B_c: 8000.0 / x.k_c,
                B_s: 8000.0 / x.k_s,
                W_c: x.rwnd_c or p.rwnd,
                W_s: x.rwnd_s or p.rwnd,
                W_x: x.rwnd_x or p.rwnd,
                m: x.mux,
            }
        )
    return out


def render(expr: sympy.Expr) -> dict[str, Any]:
    """LaTeX and presentation MathML of an expression."""
    return {"latex": sympy.latex(expr), "mathml": sympy.mathml(expr, printer="presentation")}


def with_numbers(expr: sympy.Expr, p: Params) -> sympy.Expr:
    """The expression with the scenario's values in place of its symbols, left unevaluated to be read."""
    values = substitutions(p)
    numbers = {
        sym: sympy.Integer(int(values[sym])) if float(values[sym]).is_integer() else sympy.Float(values[sym], 6)
        for sym in expr.free_symbols
        if sym in values
    }
    with sympy.evaluate(False):
        return expr.subs(numbers)


def describe(expr: sympy.Expr, p: Params, mathml: bool = True) -> dict[str, Any]:
    """An expression for people: plain text, LaTeX, MathML, the same with numbers, and its symbols."""
    out: dict[str, Any] = {"text": str(expr), "latex": sympy.latex(expr)}
    if mathml:
        out["mathml"] = sympy.mathml(expr, printer="presentation")
    out["latex_numbers"] = sympy.latex(with_numbers(expr, p))
    out["symbols"] = sorted(str(s) for s in expr.free_symbols)
    return out


def terms(expr: sympy.Expr, p: Params) -> list[dict[str, Any]]:
    """The expression's additive terms, each with its value in the scenario (ms); they sum to ``expr``'s value.

    A serialization term ``8000 (a M + b o + ...) / B`` is split into one term per byte symbol, so
    each term is ``coefficient x symbol`` (a time) or ``coefficient x symbol x 8000 / rate`` (bytes
    over a rate). Returns ``{"expr", "coefficient", "symbol", "rate", "ms"}`` per term; ``symbol``
    is ``None`` for a plain number (ms, or bytes when ``rate`` is given) and ``rate`` is the rate
    symbol's name or ``None``.
    """
    values = substitutions(p)
    out: list[dict[str, Any]] = []
    for term in sympy.Add.make_args(sympy.expand(expr)):
        rates = [r for r in (B, B_u, B_c, B_s) if r in term.free_symbols]  # the split proxy's legs too
        rate = rates[0] if rates else None
        per_rate = sympy.expand(term * rate / 8000) if rate is not None else term
        coeff, rest = per_rate.as_coeff_Mul()
        sym = None if rest == 1 else rest
        ms = float(coeff) * (values[sym] if sym is not None else 1.0)
        if rate is not None:
            ms *= 8000.0 / values[rate]
        out.append(
            {
                "expr": term,
                "coefficient": coeff,
                "symbol": str(sym) if sym is not None else None,
                "rate": str(rate) if rate is not None else None,
                "ms": ms,
            }
        )
    return out
