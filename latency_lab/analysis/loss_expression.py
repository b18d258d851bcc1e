"""The expected extra time of random loss as a sympy expression (:mod:`latency_lab.analysis.expected_loss`'s numbers,
in symbols), for the formulas and the teaching panel.

:func:`expression` builds it from a schedule's :class:`~latency_lab.mechanisms.loss_recovery.Structure` with
:mod:`latency_lab.mechanisms.loss`'s sympy forms, run by run; :func:`substitutions` gives its symbols' numbers for a
scenario. At those numbers it equals :func:`latency_lab.mechanisms.loss_recovery.expected`'s ``extra_ms`` for ``p > 0``
(tests/latency_lab/analysis/test_expected_loss.py). Not compiled: sympy runs only when a formula is asked for.
"""

from __future__ import annotations

import sympy

from latency_lab.mechanisms import loss
from latency_lab.mechanisms.loss_recovery import (
    Atoms,
    Run,
    Structure,
    _max_shares,
    _page_groups,
    chain_atoms,
    run_rto,
    slot_chains,
    slot_pages,
)

__all__ = ["SYMBOLS", "expression", "max_expr", "substitutions"]

#: Sympy symbols of the expected extra time and the glossary of their meanings.
p_sym, R_sym, T0_sym, Ts_sym, A_sym, Td_sym = sympy.symbols("p RTT T_0 T_s A T_d", nonnegative=True)
SYMBOLS: dict[str, tuple[sympy.Symbol, str]] = {
    "p": (p_sym, "network.loss_rate: probability a packet is lost (per packet)"),
    "RTT": (R_sym, "round-trip propagation delay of the lossy path (ms)"),
    "T_0": (
        T0_sym,
        "TCP retransmission timeout before a round-trip sample, max(tcp.rto_min_ms, 3 RTT) (ms); segments sent "
        "after one wait for the sender's own RFC 6298 timeout, a number in the formula",
    ),
    "T_s": (Ts_sym, "initial SYN timeout, 1000 ms (RFC 6298 5.7)"),
    "A": (A_sym, "quic.max_ack_delay_ms (ms)"),
    "T_d": (Td_sym, "tcp.delayed_ack_ms: the receiver's delayed-ACK timeout (ms)"),
}


def _repair_timeout_expr(m: int) -> sympy.Expr:
    """:func:`repair_timeout_probability` as a sympy expression in ``p``."""
    return 1 - (1 - loss.position_timeout_probability_expr(p_sym, m)) * (1 - p_sym)


def _sum_expr(st: Structure, syns: int, runs: tuple[Run, ...], long: bool | None = None) -> sympy.Expr:
    """:func:`_parts`' total as a sympy expression; with ``long``, only its long (``True``: handshake and
    timeouts) or its short (``False``: fast repairs and slower sending) causes."""
    total: sympy.Expr = sympy.Integer(0) if long is False else syns * loss.handshake_extra_expr(p_sym, Ts_sym)
    for run in runs:
        weight = run.count * p_sym
        first = (1 - p_sym) ** run.burst_before * (1 - (1 - p_sym) ** run.count)
        after_fr = run.fr_rounds * R_sym + run.fr_stalls * Td_sym
        if run.quic:
            pto = sympy.Integer(999) if run.initial_pto else 3 * R_sym + A_sym
            cost = loss.quic_cost_expr(run.w, R_sym, pto)
            tail = sympy.Rational(1, max(run.w, 1))
            timeouts, fast = tail * pto, (1 - tail) * R_sym
            slower: sympy.Expr = after_fr
        else:
            q = _repair_timeout_expr(run.follow)
            # the sender's timeout when the run left: T_0 until a round-trip sample changes it, then its number
            t0: sympy.Expr = T0_sym if run_rto(st, run) == st.rto else sympy.Float(run_rto(st, run))
            timeouts, fast = q * loss.timeout_expr(p_sym, t0), (1 - q) * R_sym
            cost = timeouts + fast
            slower = q * (run.to_rounds * R_sym + run.to_stalls * Td_sym) + (1 - q) * after_fr
            if run.rest or run.carry:  # more losses after the first (steady_ms), the responses after (carried_ms)
                ca = (run.rest, run.w, R_sym, T0_sym, st.ack_segments, sympy.Float(st.w_max), sympy.Float(run.rest_ms))
                carried = (run.carry, sympy.Float(run.carry_ms), run.carry_n)
                slower = loss.SlowerSending(slower, p_sym, *ca, cost, *carried)
        if long is None:
            if run.slack > 0:
                cost = sympy.Max(cost - sympy.Float(run.slack), 0)
            total += weight * cost + first * slower
            continue
        scale: sympy.Expr = sympy.Max(cost - sympy.Float(run.slack), 0) / cost if run.slack > 0 else sympy.Integer(1)
        total += weight * timeouts * scale if long else weight * fast * scale + first * slower
    return total


def _chances_expr(syns: int, runs: tuple[Run, ...]) -> tuple[sympy.Expr, sympy.Expr]:
    """:func:`chances` as sympy expressions in ``p``."""
    none: sympy.Expr = (1 - p_sym) ** (2 * syns)
    for run in runs:
        if run.quic:
            q: sympy.Expr = sympy.Rational(1, max(run.w, 1))
        else:
            q = _repair_timeout_expr(run.follow)
        none *= (1 - p_sym * q) ** run.count
    return 1 - none, 1 - (1 - p_sym) ** sum(r.count for r in runs)


def max_expr(chains: list[tuple[Atoms, int]]) -> sympy.Expr:
    """:func:`max_terms`' sum as a sympy expression, the atoms' order as a Heaviside step per pair
    (``H(y - x)``, 1 at a tie for an atom of lower index)."""

    def step(y: sympy.Expr, x: sympy.Expr, tie: bool) -> sympy.Expr:
        return sympy.Heaviside(y - x, 1 if tie else 0)

    return sympy.Add(*_max_shares(chains, step, lambda x: sympy.Max(x, 0)))


def expression(st: Structure) -> sympy.Expr:
    """The expected extra time as a sympy expression in ``p``, ``RTT``, ``T_0``, ``T_s``, ``T_d`` and ``A`` (ms).

    Built from :mod:`latency_lab.mechanisms.loss`'s sympy forms run by run; the schedule's windows, counts, slacks, the
    extra rounds after a loss and the lossless time of the rest of a connection's data are numbers in it. With connections off the page's path, the expectation of
    the latest chain (:func:`max_expr`). Equal to :func:`expected`'s ``extra_ms`` at the scenario's values
    for ``p > 0`` (tests prove it).
    """
    if st.slot_chains:
        return _slots_expr(st)
    path = _sum_expr(st, st.syns, st.runs)
    if not st.others:
        return path
    total: sympy.Expr = sympy.Integer(0)
    for group in _page_groups(st):
        if len(group) == 1:
            total += _sum_expr(st, *group[0][0][:2])
            continue
        chains: list[tuple[Atoms, int]] = []
        for (syns, runs, slack), m in group:
            mu_long, mu_short = _sum_expr(st, syns, runs, long=True), _sum_expr(st, syns, runs, long=False)
            pi_long, pi_short = _chances_expr(syns, runs)
            chains.append((chain_atoms(mu_long, pi_long, mu_short, pi_short, sympy.Float(slack)), m))
        total += max_expr(chains)
    return total


def _slots_expr(st: Structure) -> sympy.Expr:
    """:func:`latency_lab.mechanisms.loss_recovery.slot_shares`' total as a sympy expression: each page's HTML connection in
    full, every slot connection's delay over the ``k`` slots, and the expectation of the latest job past its share
    (:func:`max_expr`; every job kept, those the numbers leave out add 0)."""
    k = max(st.slots, 1)
    total: sympy.Expr = sympy.Integer(0)
    for leads, jobs in slot_pages(st):
        for c in leads:
            total += _sum_expr(st, c.syns, c.runs)
        rows = []
        for c in jobs:
            mu_long, mu_short = _sum_expr(st, c.syns, c.runs, long=True), _sum_expr(st, c.syns, c.runs, long=False)
            pi_long, pi_short = _chances_expr(c.syns, c.runs)
            rows.append((mu_long, pi_long, mu_short, pi_short, sympy.Float(c.slack), mu_long + mu_short))
            total += (mu_long + mu_short) / k
        if rows:
            total += max_expr([(atoms, 1) for _, atoms in slot_chains(rows, k, 1 - sympy.Rational(1, k))])
    return total


def substitutions(st: Structure, p: float) -> dict[sympy.Symbol, float]:
    """The numbers of the expression's symbols for a scenario."""
    return {
        p_sym: p,
        R_sym: st.rtt,
        T0_sym: st.rto,
        Ts_sym: loss.SYN_TIMEOUT_MS,
        A_sym: st.ack_delay,
        Td_sym: st.dack,
    }
