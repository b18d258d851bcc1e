"""The expected cost of random loss on a protocol's lossless schedule, in closed form (``expected_with_loss``).

The schedule (:mod:`model.engine`) has no loss; ``network.loss_rate`` ``p`` only enters here. From the
deterministic schedule this module reads, for every connection whose delay delays the page, its SYN and its
data segments, each with the window it leaves in, and applies :mod:`model.loss`'s closed forms (Cardwell,
Savage & Anderson 2000, "Modeling TCP latency", 3.1 and 3.3, with Padhye et al. 1998's timeout terms; RFC
9002 for QUIC). The result is an **expected value** added to the deterministic page load time; the schedule,
its breakdown and its formula stay as they are.

Per connection on the page's path (see *Which connections*):

- handshake: each SYN exchange costs ``T_s p / (1 - 2p)`` (Cardwell 3.1, ``T_s`` the 1 s initial SYN
  timeout of RFC 6298 5.7);
- data: each direction of the connection within one page is a flow (the server's responses, the client's
  requests, both sides' TLS flights). Its ``k``-th segment (from 0) is the flow's first loss with
  probability ``(1-p)^k p``; that loss costs ``C(w_k)``, where ``w_k`` is the window the segment left in
  (the most segments of the flow in flight, sent and not yet acknowledged, while it was in flight):

  - TCP: ``C(w) = Q(p, w) E[Z_TO] + (1 - Q(p, w)) RTT`` (a timeout with backoff, else fast retransmit,
    Cardwell 3.3 with Padhye 1998 eq. (25) and (27); ``T_0`` the connection's RTO from the profile,
    ``max(rto_min_ms, 3 RTT)``);
  - QUIC: ``C(w) = PTO / w + (1 - 1/w) RTT`` (only a tail loss, one in ``w``, waits for the probe timeout;
    any other is found within about an RTT by a later acknowledgement, RFC 9002 6.1). ``PTO = 3 RTT +
    max_ack_delay`` (6.2.1, first sample's ``rttvar = RTT/2``) once the endpoint has an RTT sample, 999 ms
    before (6.2.2, ``kInitialRtt = 333 ms``: the client's Initial, the server's first flight).

  Summed over a flow's segments, ``sum_k (1-p)^k p C(w_k)`` is Cardwell's ``l (Q E[Z_TO] + (1-Q) RTT)``
  (``l = 1 - (1-p)^d``) with the window of each round in place of one window; a flow of one round of ``d``
  segments gives exactly :func:`model.loss.data_extra_ms` (``w = d``). Segments are grouped in runs of
  equal cost, so a run of ``n`` segments after ``b`` others contributes ``(1-p)^b (1 - (1-p)^n) C(w)``.

Head of line (h2 vs h3): HTTP/2's streams share one TCP byte stream, so a lost segment holds back every
byte after it, of every stream, until it is repaired (RFC 9114 1.2; RFC 9113 5): the page waits the whole
``C``. HTTP/3's streams are independent (RFC 9000 2.2: a stream's data is ordered only within that stream),
so a loss holds back only its own stream: the page waits ``max(0, C - slack)``, where ``slack`` is how long
before the page's last byte that stream's object ended in the schedule (0 for the HTML, whose arrival
starts the other requests, and for handshake packets). ``head_of_line_ms`` reports the time the *other*
streams in flight wait behind the loss, :func:`model.loss.head_of_line_ms` (``C (n - 1)`` on TCP, 0 on QUIC),
weighted the same way: a stream-time, not part of the page's extra time. Both transports also shrink their
window after a loss (RFC 5681 3.2, RFC 9002 7.3.2); that shared slowdown is left out for both (as Cardwell's
congestion-avoidance term is), so the h2 - h3 gap here is the head-of-line part alone, and h3's figure the
more optimistic of the two.

Which connections: a connection's loss delays the page only if the page waited for it. The page's path is
followed back from each page's last byte through the causes of every packet and point (an ACK's data, a
request's response, a connection opened when an earlier object ended): the connections it crosses are
counted in full, the others not at all (for http10_parallel: the HTML's connection and the chain of
connections that led to the last object). Every other connection's loss is taken to stay hidden behind
the path's, so the figure is a lower bound for parallel connections. On a split-proxy path (seed 003) the
loss rate is the long-haul link's (``network``) and only the connections between the proxies see it.

Left out (a lower bound, close for small ``p``): losses after a flow's first, the slower congestion
avoidance after a loss (Cardwell 3.4), lost ACKs (cumulative ACKs cover them), lost FINs, a lost DNS query,
and the retransmission's own transmission time. Against ns-3 with a RateErrorModel (bench/bench_loss_ns3.py,
TcpNewReno without SACK) the model's extra time is below the simulated mean, more so for long persistent
connections where later losses pile up (figures in validation/README.md).
"""

from __future__ import annotations

import bisect
from collections import deque
from dataclasses import dataclass
from typing import Any

import sympy

from model import loss
from model.engine import PATH, Packet, Point
from model.protocols.base import Session

#: QUIC's probe timeout before an RTT sample (ms): ``3 kInitialRtt`` (RFC 9002 6.2.2, ``kInitialRtt = 333 ms``).
QUIC_INITIAL_PTO_MS = 999.0

#: The causes of the expected extra time, keys of ``by_cause_ms``.
CAUSES = ("handshake", "timeouts", "fast_retransmit")

#: Sympy symbols of the expected extra time and the glossary of their meanings.
p_sym, R_sym, T0_sym, Ts_sym, A_sym = sympy.symbols("p RTT T_0 T_s A", nonnegative=True)
SYMBOLS: dict[str, tuple[sympy.Symbol, str]] = {
    "p": (p_sym, "network.loss_rate: probability a packet is lost (per packet)"),
    "RTT": (R_sym, "round-trip propagation delay of the lossy path (ms)"),
    "T_0": (T0_sym, "TCP retransmission timeout, max(tcp.rto_min_ms, 3 RTT) (ms)"),
    "T_s": (Ts_sym, "initial SYN timeout, 1000 ms (RFC 6298 5.7)"),
    "A": (A_sym, "quic.max_ack_delay_ms (ms)"),
}


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive segments of one flow with the same cost: ``count`` of them after ``before`` others."""

    before: int  # segments of the flow before the run
    count: int
    w: int  # the window the run's segments left in (segments)
    quic: bool
    initial_pto: bool  # QUIC: sent before the endpoint had an RTT sample (PTO 999 ms)
    slack: float  # h3: how long before the page's end the segment's stream ended (ms); 0 otherwise
    streams: int  # streams in flight on the connection when the segments left (head of line)


@dataclass(frozen=True, slots=True)
class Structure:
    """What the closed form needs from one protocol's schedule."""

    syns: int  # SYN exchanges on the page's path
    runs: tuple[Run, ...]
    rtt: float  # ms
    rto: float  # TCP retransmission timeout (ms)
    ack_delay: float  # QUIC max_ack_delay (ms)
    connections: tuple[int, ...]  # connections on the page's path (on the lossy link)
    independent_streams: bool  # QUIC (h3)
    segments: int


def _follow(node: Packet | Point | None) -> Packet | Point | None:
    if isinstance(node, Point):
        return node.base
    if isinstance(node, Packet):
        for x in node.cause[1:2]:
            if isinstance(x, Packet | Point):
                return x
    return None


def path_connections(s: Session) -> set[int]:
    """Connections the page waited for: crossed by the causes followed back from each page's last byte."""
    out: set[int] = set()
    seen: set[int] = set()
    for final in s.page_end:
        node: Packet | Point | None = final
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            if isinstance(node, Packet):
                out.add(node.conn)
            node = _follow(node)
    return out


def _windows(data: list[Packet], acks: list[Packet]) -> tuple[list[int], list[bool]]:
    """Each data segment's window (segments in flight while it was), and whether an ACK of the flow had
    arrived before it left (an RTT sample)."""
    n = len(data)
    ends = [pk.seq_end for pk in data]
    # outstanding when each segment leaves (itself included)
    out_at: list[int] = []
    sampled: list[bool] = []
    best = -1.0
    a = 0
    for i, pk in enumerate(data):
        while a < len(acks) and acks[a].t_a <= pk.t_q:
            best = max(best, acks[a].ack)
            a += 1
        acked = bisect.bisect_right(ends, best, 0, i)
        out_at.append(i + 1 - acked)
        sampled.append(best > 0)
    # when each segment's ACK arrives
    ack_at: list[float] = []
    a, best_t = 0, float("inf")
    best = -1.0
    for pk in data:
        while best < pk.seq_end and a < len(acks):
            best = max(best, acks[a].ack)
            best_t = acks[a].t_a
            a += 1
        ack_at.append(best_t if best >= pk.seq_end else float("inf"))
    # window of segment i: the most in flight while it was (segments j >= i sent before i's ACK came)
    w = [0] * n
    dq: deque[int] = deque()
    r = 0
    for i in range(n):
        while r < n and (r == i or data[r].t_q < ack_at[i]):
            while dq and out_at[dq[-1]] <= out_at[r]:
                dq.pop()
            dq.append(r)
            r += 1
        while dq[0] < i:
            dq.popleft()
        w[i] = out_at[dq[0]]
    return w, sampled


def structure(s: Session, protocol: str) -> Structure:
    """Read the connections on the page's path, their SYNs and their data segments' runs from a schedule."""
    p = s.p
    quic = protocol == "h3"
    on_path = {c for c in path_connections(s) if s.conns[c].leg == PATH}
    pkts = s.eng.packets
    starts = [float(pt.t) for pt in s.page_start]
    ends = [float(pk.t_a) for pk in s.page_end]
    first_objects = {names[0] for names in s.page_names}
    by_flow: dict[tuple[int, int], list[Packet]] = {}
    for pk in pkts:
        if pk.conn in on_path:
            by_flow.setdefault((pk.conn, pk.dir), []).append(pk)
    syns = sum(1 for pk in pkts if pk.kind == "SYN" and pk.conn in on_path)
    runs: list[Run] = []
    total = 0
    for c in sorted(on_path):
        conn = s.conns[c]
        mux = conn.mux is not None
        objs = [r for r in s.objects.values() if r.connection == c and r.start is not None and r.end is not None]
        obj_starts = sorted(float(r.start) for r in objs)
        obj_ends = sorted(float(r.end) for r in objs)
        for d in conn.links:
            data = [pk for pk in by_flow.get((c, d), []) if pk.kind == "DATA" and pk.n > 0]
            if not data:
                continue
            w, sampled = _windows(data, by_flow.get((c, d ^ 1), []))
            count_in_page: dict[int, int] = {}
            key: tuple[Any, ...] | None = None
            for i, pk in enumerate(data):
                t = float(pk.t_q)
                page = max(bisect.bisect_right(starts, t) - 1, 0)
                k = count_in_page.get(page, 0)
                count_in_page[page] = k + 1
                slack = 0.0
                rec = s.objects.get(pk.obj or "")
                if quic and rec is not None and rec.name not in first_objects and rec.end is not None:
                    slack = max(ends[rec.page] - float(rec.end), 0.0)
                streams = 1
                if mux:  # streams requested and not yet complete when the segment left
                    streams = max(bisect.bisect_right(obj_starts, t) - bisect.bisect_right(obj_ends, t), 1)
                new = (page, w[i], quic and not sampled[i], slack, streams)
                if key == new and runs and runs[-1].before + runs[-1].count == k:
                    last = runs[-1]
                    runs[-1] = Run(
                        last.before, last.count + 1, last.w, quic, last.initial_pto, last.slack, last.streams
                    )
                else:
                    runs.append(Run(k, 1, w[i], quic, new[2], slack, streams))
                key = new
                total += 1
    return Structure(
        syns=syns,
        runs=tuple(runs),
        rtt=p.d_up + p.d_down,
        rto=p.rto_ms,
        ack_delay=p.quic_ack_delay,
        connections=tuple(sorted(on_path)),
        independent_streams=quic,
        segments=total,
    )


def _cost_parts(st: Structure, run: Run, p: float) -> tuple[float, float]:
    """A run's loss cost split (timeout part, fast part) in ms, before weighting and slack."""
    if run.quic:
        pto = QUIC_INITIAL_PTO_MS if run.initial_pto else 3 * st.rtt + st.ack_delay
        return pto / run.w, (1 - 1 / run.w) * st.rtt
    q = loss.timeout_probability(p, run.w)
    return q * loss.timeout_ms(p, st.rto), (1 - q) * st.rtt


def expected(st: Structure, p: float, page_load_ms: float) -> dict[str, Any]:
    """The ``expected_with_loss`` block of a result: numbers from the closed forms (ms)."""
    by = dict.fromkeys(CAUSES, 0.0)
    by["handshake"] = st.syns * loss.handshake_extra_ms(p)
    hol = 0.0
    for run in st.runs:
        weight = (1 - p) ** run.before * loss.loss_probability(p, run.count)
        timeouts, fast = _cost_parts(st, run, p)
        cost = timeouts + fast
        if cost <= 0:
            continue
        page = max(cost - run.slack, 0.0)  # h3: only the stream waits; its slack absorbs part of it
        by["timeouts"] += weight * timeouts * page / cost
        by["fast_retransmit"] += weight * fast * page / cost
        hol += weight * loss.head_of_line_ms(cost, run.streams, st.independent_streams)
    extra = sum(by.values())
    return {
        "loss_rate": p,
        "page_load_ms": page_load_ms + extra,
        "extra_ms": extra,
        "by_cause_ms": by,
        "head_of_line_ms": hol,
        "connections": list(st.connections),
        "segments": st.segments,
        "assumptions": ASSUMPTIONS_QUIC if st.independent_streams else ASSUMPTIONS_TCP,
    }


ASSUMPTIONS_TCP = (
    "Expected value, not a schedule: each packet lost independently with probability loss_rate; per "
    "connection the page waited for, a lost SYN or SYN-ACK waits the 1 s SYN timeout (Cardwell et al. 2000, "
    "3.1), and the first loss in each direction's data within a page costs a timeout with backoff or a fast "
    "retransmit by its window (Cardwell 3.3, Padhye et al. 1998). Every stream of the TCP connection waits "
    "for the repair. Later losses and congestion avoidance are left out: a lower bound, close for small loss "
    "rates."
)
ASSUMPTIONS_QUIC = (
    "Expected value, not a schedule: each packet lost independently with probability loss_rate; the first "
    "loss in each direction's data within a page is found by a later acknowledgement (about an RTT) or, "
    "for a tail packet, by the probe timeout (RFC 9002 6.1, 6.2; 999 ms before an RTT sample). Only the lost "
    "packet's stream waits (RFC 9000 2.2): an object that ended earlier than the page's last byte hides its "
    "delay up to that margin. Later losses and congestion control are left out: a lower bound."
)


def block(s: Session, protocol: str, page_load_ms: float) -> dict[str, Any]:
    """``expected_with_loss`` for a simulated session at its scenario's loss rate."""
    return expected(structure(s, protocol), s.p.loss, page_load_ms)


# ------------------------------------------------------------------------------------------------ sympy


def expression(st: Structure) -> sympy.Expr:
    """The expected extra time as a sympy expression in ``p``, ``RTT``, ``T_0``, ``T_s`` and ``A`` (ms).

    Built from :mod:`model.loss`'s sympy forms run by run; the schedule's windows, counts and slacks are
    numbers in it. Equal to :func:`expected`'s ``extra_ms`` at the scenario's values (tests prove it).
    """
    total: sympy.Expr = st.syns * loss.handshake_extra_expr(p_sym, Ts_sym)
    for run in st.runs:
        weight = (1 - p_sym) ** run.before * (1 - (1 - p_sym) ** run.count)
        if run.quic:
            pto = sympy.Integer(999) if run.initial_pto else 3 * R_sym + A_sym
            cost = loss.quic_cost_expr(run.w, R_sym, pto)
        else:
            cost = loss.tcp_cost_expr(p_sym, run.w, R_sym, T0_sym)
        if run.slack > 0:
            cost = sympy.Max(cost - sympy.Float(run.slack), 0)
        total += weight * cost
    return total


def substitutions(st: Structure, p: float) -> dict[sympy.Symbol, float]:
    """The numbers of the expression's symbols for a scenario."""
    return {p_sym: p, R_sym: st.rtt, T0_sym: st.rto, Ts_sym: loss.SYN_TIMEOUT_MS, A_sym: st.ack_delay}
