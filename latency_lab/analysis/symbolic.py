"""The page load time as a formula a student can read: sympy expressions over one glossary.

A :class:`~latency_lab.engine.lin.Lin` form is a linear combination over the basis the mechanisms use: one-way
delays, think times, the delayed-ACK timer, and serialization times ``8000 x / B`` of byte counts
``x`` (a full segment ``M``, a header ``h``, a request ``q``, the per-packet overhead ``o``,
plain byte counts). :func:`to_sympy` writes it with the symbols of :data:`GLOSSARY`; the integer
coefficients are the counts a student looks for (how many round trips, how many delayed-ACK timers,
how many segments' serialization lie on the critical path).
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

import sympy
from sympy.printing.mathml import MathMLPresentationPrinter

from latency_lab.engine.lin import Lin
from latency_lab.scenario.errors import did_you_mean
from latency_lab.scenario.params import Params

RTT, d_u, d_d = sympy.symbols("RTT d_u d_d", positive=True)
B, B_u = sympy.symbols("B B_u", positive=True)
M, o, h, q, W_r = sympy.symbols("M o h q W_r", positive=True)
t_s, t_c, T_d, t_o, T_dns = sympy.symbols("t_s t_c T_d t_o T_dns", nonnegative=True)
# split-proxy paths (seed 003, latency_lab.protocols.proxy): the legs at either end of the long-haul link
d_c, d_s, m = sympy.symbols("d_c d_s m", nonnegative=True)
B_c, B_s, W_c, W_s, W_x = sympy.symbols("B_c B_s W_c W_s W_x", positive=True)
#: Every rate a serialization term divides by: the path's two ways and a split proxy's two legs.
RATES = (B, B_u, B_c, B_s)

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

#: The glossary's symbols by name: the very ones the expressions are written in. sympy tells symbols apart by their
#: assumptions as well as their names (these are positive or nonnegative), so ``sympy.Symbol("RTT")`` is another
#: symbol and ``diff(expr, sympy.Symbol("RTT"))`` is 0: differentiate by ``SYMBOLS["RTT"]`` (or :func:`symbol`).
SYMBOLS: MappingProxyType[str, sympy.Symbol] = MappingProxyType(
    {str(x): x for x in (RTT, d_u, d_d, B, B_u, M, o, h, q, W_r, t_s, t_c, T_d, t_o, d_c, d_s, B_c, B_s, W_c, W_s, W_x)}
    | {"m": m, "T_dns": T_dns}
)


def symbol(name: str) -> sympy.Symbol:
    """The glossary's symbol named ``name`` (``"RTT"``), the one the expressions use (see :data:`SYMBOLS`);
    :class:`ValueError` naming the symbols, and the closest, for another name."""
    try:
        return SYMBOLS[name]
    except KeyError:
        hint = did_you_mean(name, SYMBOLS, ignore_case=True)  # "rtt" is RTT, "tdns" T_dns
        raise ValueError(f"unknown symbol {name!r}; the glossary's symbols: {', '.join(SYMBOLS)}{hint}") from None


def initial_window_note(p: Params) -> dict[str, str]:
    """The initial window in the glossary: not a symbol of the formula, but what sets its coefficients (how many
    round trips of slow start, how many segments' serialization). On a profile whose handshake ACK opens the window
    (bsd, the default: BSD counts the handshake's last ACK as an ACK of new data; seed 000, 2.2, footnote 1) the
    server's first reply window is IW + 1 segments, so IW 1 sends two segments first; the textbook's one segment is
    profile rfc5681. Returns ``{"name", "meaning", "value", "field"}``."""
    first = p.iw + 1 if p.profile.syn_ack_opens_window else p.iw
    meaning = (
        "initial congestion window: not a symbol of the formula but what sets its coefficients (how many round "
        "trips of slow start, how many segments' serialization)"
    )
    if first != p.iw:
        meaning += (
            f"; on the {p.profile.name} profile the server's first reply window is IW + 1 = {first} segments "
            "(BSD counts the handshake's last ACK as an ACK of new data; seed 000, 2.2), so IW 1 sends two segments "
            "first: the textbook's one segment is profile rfc5681"
        )
    value = f"{p.iw} segment{'s' if p.iw != 1 else ''}" + (f" (first reply window {first})" if first != p.iw else "")
    return {"name": "IW", "meaning": meaning, "value": value, "field": "tcp.initial_window_segments"}


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
            expr += serialization(nbytes, rate)
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


def serialization(nbytes: sympy.Expr, rate: sympy.Symbol) -> sympy.Expr:
    """``8000 (nbytes) / rate`` left unevaluated, so 8 bits a byte and 1000 ms a second stay visible."""
    return sympy.Mul(8000, nbytes, sympy.Pow(rate, -1), evaluate=False)


def _serialization_parts(expr: sympy.Basic) -> tuple[sympy.Expr, sympy.Symbol] | None:
    """``(nbytes, rate)`` of an unevaluated ``8000 (nbytes) / rate`` (see :func:`serialization`), else None."""
    if not isinstance(expr, sympy.Mul) or len(expr.args) != 3:
        return None
    eight, nbytes, over = expr.args
    if eight != 8000 or not isinstance(over, sympy.Pow) or over.exp != -1 or over.base not in RATES:
        return None
    return nbytes, over.base


class _Printer(MathMLPresentationPrinter):
    """Presentation MathML that keeps a serialization term as ``8000 (bytes) / rate``.

    sympy's printer splits a product into numerator and denominator, which multiplies the 8000
    into the byte sum (``99200000/B``, ``-16000 M``); a student reads the README's form instead.
    """

    def _print_Mul(self, expr: sympy.Mul) -> Any:
        parts = _serialization_parts(expr)
        if parts is None:
            return super()._print_Mul(expr)
        nbytes, rate = parts
        top = self.dom.createElement("mrow")
        eight = self.dom.createElement("mn")
        eight.appendChild(self.dom.createTextNode("8000"))
        times = self.dom.createElement("mo")
        times.appendChild(self.dom.createTextNode("&InvisibleTimes;"))
        inner = self.dom.createElement("mrow")
        inner.appendChild(self._l_paren())
        inner.appendChild(self._print(nbytes))
        inner.appendChild(self._r_paren())
        for node in (eight, times, inner):
            top.appendChild(node)
        frac = self.dom.createElement("mfrac")
        frac.appendChild(top)
        frac.appendChild(self._print(rate))
        return frac

    def _print_Add(self, expr: sympy.Add, order: str | None = None) -> Any:
        mrow = self.dom.createElement("mrow")
        for i, arg in enumerate(self._as_ordered_terms(expr, order=order)):
            # a serialization term keeps its signs inside its brackets: negating it would evaluate it
            minus = i > 0 and _serialization_parts(arg) is None and arg.could_extract_minus_sign()
            if i > 0:
                sign = self.dom.createElement("mo")
                sign.appendChild(self.dom.createTextNode("-" if minus else "+"))
                mrow.appendChild(sign)
            mrow.appendChild(self._print(-arg if minus else arg))
        return mrow


def to_mathml(expr: sympy.Expr) -> str:
    """Presentation MathML of an expression, serialization terms as ``8000 (bytes) / rate``."""
    return str(_Printer({}).doprint(expr))


def render(expr: sympy.Expr) -> dict[str, Any]:
    """LaTeX and presentation MathML of an expression."""
    return {"latex": sympy.latex(expr), "mathml": to_mathml(expr)}


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
        out["mathml"] = to_mathml(expr)
    out["latex_numbers"] = sympy.latex(with_numbers(expr, p))
    out["symbols"] = sorted(str(s) for s in expr.free_symbols)
    return out


def terms(expr: sympy.Expr, p: Params) -> list[dict[str, Any]]:
    """The expression's additive terms, each with its value in the scenario (ms); they sum to ``expr``'s value.

    A serialization term ``8000 (a M + b o + ...) / B`` is split into one term per byte symbol, so
    each term is ``coefficient x symbol`` (a time) or ``coefficient x symbol x 8000 / rate`` (bytes
    over a rate). Returns ``{"expr", "display", "coefficient", "symbol", "rate", "ms"}`` per term
    (``display`` is the term to show: a serialization term as ``8000 (a M) / B``); ``symbol``
    is ``None`` for a plain number (ms, or bytes when ``rate`` is given) and ``rate`` is the rate
    symbol's name or ``None``.
    """
    values = substitutions(p)
    out: list[dict[str, Any]] = []
    for term in sympy.Add.make_args(sympy.expand(expr)):
        rates = [r for r in RATES if r in term.free_symbols]
        if len(rates) > 1:
            raise ValueError(f"a term over two rates: {term}")
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
                "display": serialization(per_rate, rate) if rate is not None else term,
                "coefficient": coeff,
                "symbol": str(sym) if sym is not None else None,
                "rate": str(rate) if rate is not None else None,
                "ms": ms,
            }
        )
    return out


#: Signs the textbook's numbers are written with (plain text: escaping leaves them alone).
MINUS, TIMES = "\u2212", "\u00d7"

#: The textbook's assumptions, said where its form is shown beside the model's.
TEXTBOOK_ASSUMES = (
    "one segment's initial window, an ACK for every segment at once (no delayed ACKs), no per-packet overhead, "
    "no server time and requests too small to take time on the wire; the model counts each of these where the "
    "scenario has them (on the default bsd profile the first reply window is IW + 1)"
)


def _slow_start_latency(o_bytes: int, s_bytes: int, rate: float, rtt: float) -> dict[str, Any]:
    """Kurose & Ross's latency of one object over a new TCP connection in slow start from one segment (ms):
    ``2 RTT + O/R + P (RTT + S/R) - (2^P - 1) S/R`` with ``K = ceil(log2(O/S + 1))`` windows to send the object,
    ``Q = floor(log2(1 + RTT / (S/R))) + 1`` idle periods for an infinite one and ``P = min(Q, K - 1)``."""
    sr = s_bytes * 8000.0 / rate
    k = max(1, math.ceil(math.log2(o_bytes / s_bytes + 1)))
    q_ = math.floor(math.log2(1 + rtt / sr)) + 1
    p_ = min(q_, k - 1)
    o_r = o_bytes * 8000.0 / rate
    ms = 2 * rtt + o_r + p_ * (rtt + sr) - (2**p_ - 1) * sr
    return {"O": o_bytes, "K": k, "Q": q_, "P": p_, "O_R": o_r, "S_R": sr, "ms": ms}


def textbook(p: Params, protocol: str) -> dict[str, Any] | None:
    """The page load time in Kurose & Ross's form ("Computer Networking", the latency of HTTP over TCP), with the
    scenario's numbers, where it applies: a direct path with one round-trip time, no TLS, DNS or proxy, one page,
    a three-way handshake; HTTP/1.0 (a connection per object, one after another: each object in slow start),
    persistent (one connection, a round trip per object after the first), pipelined (one round trip for all
    the objects after the first) or persistent_parallel with its connections opened at the click
    (``http.preconnect``: one round trip per wave of ``m`` objects, ``ceil(n / m)`` of them, as Kurose & Ross's
    DNS-and-HTTP problem counts "persistent HTTP with m parallel connections"), the last three without slow
    start as the textbook counts them.

    ``O`` is each response (header and body, bytes), ``S`` the segment size, ``R`` the rate. Returns ``{"form",
    "rows": [{"object", "O", "ms", "numbers", ...}], "ms", "assumes"}`` or None where the form does not apply.
    """
    if (
        protocol not in ("http10", "persistent", "pipelined", "persistent_parallel")
        or (protocol == "persistent_parallel" and not p.preconnect)
        or not p.symmetric_delay
        or p.proxy is not None
        or p.tls != "none"
        or p.dns_ms > 0
        or p.pages != 1
        or p.handshake != "three_way"
    ):
        return None
    rtt = p.d_up + p.d_down
    rate = 8000.0 / p.k_down
    s_bytes = p.mss
    sizes = [("html", p.html + p.header)] + [(f"obj{i + 1}", n + p.header) for i, n in enumerate(p.objects)]
    rows: list[dict[str, Any]] = []
    if protocol == "http10":
        form = (
            f"sum over the objects of 2 RTT + O/R + P (RTT + S/R) {MINUS} (2^P {MINUS} 1) S/R, P = min(Q, K {MINUS} 1)"
        )
        for name, o_bytes in sizes:
            x = _slow_start_latency(o_bytes, s_bytes, rate, rtt)
            x["object"] = name
            x["numbers"] = (
                f"2 {TIMES} {rtt:g} + {x['O_R']:.4g} + {x['P']} {TIMES} ({rtt:g} + {x['S_R']:.4g}) {MINUS} "
                f"({2 ** x['P']} {MINUS} 1) {TIMES} {x['S_R']:.4g} (K = {x['K']}, Q = {x['Q']}, P = {x['P']})"
            )
            rows.append(x)
    else:
        wave = p.parallel if protocol == "persistent_parallel" else 1
        if protocol == "persistent":
            form = "2 RTT + O_0/R, then RTT + O_i/R for each further object"
        elif protocol == "persistent_parallel":
            form = (
                f"2 RTT + O_0/R, then one RTT for each wave of m = {wave} objects on the open connections "
                "(⌈n/m⌉ waves) and the sum of their O_i/R"
            )
        else:
            form = "2 RTT + O_0/R, then one RTT for all the further objects and the sum of their O_i/R"
        for i, (name, o_bytes) in enumerate(sizes):
            o_r = o_bytes * 8000.0 / rate
            if protocol == "persistent_parallel":
                trips = 2 if i == 0 else (1 if (i - 1) % wave == 0 else 0)
            else:
                trips = 2 if i == 0 else (1 if protocol == "persistent" or i == 1 else 0)
            rows.append(
                {
                    "object": name,
                    "O": o_bytes,
                    "O_R": o_r,
                    "ms": trips * rtt + o_r,
                    "numbers": (f"{trips} {TIMES} {rtt:g} + " if trips else "")
                    + f"{o_bytes:,} {TIMES} 8000 / {rate:,.0f}",
                }
            )
    return {
        "form": form,
        "rows": rows,
        "ms": sum(r["ms"] for r in rows),
        "S": s_bytes,
        "R": rate,
        "RTT": rtt,
        "assumes": TEXTBOOK_ASSUMES,
    }
