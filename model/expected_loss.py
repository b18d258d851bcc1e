"""The expected cost of random loss on a protocol's lossless schedule, in closed form (``expected_with_loss``).

The schedule (:mod:`model.engine`) has no loss; ``network.loss_rate`` ``p`` only enters here. From the
deterministic schedule this module reads, for every connection whose delay delays the page, its SYN and its
data segments, each with the window it leaves in, and applies :mod:`model.loss`'s closed forms (Cardwell,
Savage & Anderson 2000, "Modeling TCP latency", 3.1 and 3.3, with Padhye et al. 1998's timeout terms; RFC
9002 for QUIC). The result is an **expected value** added to the deterministic page load time; the schedule,
its breakdown and its formula stay as they are.

Per connection on the page's path (see *Which connections*):

- handshake: each SYN exchange costs ``T_s q / (1 - 2q)``, ``q = 1 - (1-p)^2`` (SYN or SYN-ACK lost; Cardwell
  3.1, ``T_s`` the 1 s initial SYN timeout of RFC 6298 5.7);
- data: each direction of the connection within one page is a flow (the server's responses, the client's
  requests, both sides' TLS flights). Every segment is lost with probability ``p``, so a run of ``n``
  segments loses ``n p`` on average (all losses of the transfer, as Cardwell 3.4 counts them, not only the
  first). A loss costs its repair ``C`` and the slower sending after it:

  - TCP repair: ``C = Q_m E[Z_TO] + (1 - Q_m) RTT``, a timeout with backoff (Padhye 1998 eq. (27), ``T_0``
    the profile's RTO, ``max(rto_min_ms, 3 RTT)``) unless three duplicate ACKs come; ``Q_m`` is the chance
    that fewer than three of the ``m`` segments the flow sent after the lost one (before its ACK was due)
    arrive, Padhye's case analysis at the segment's known place: in a burst only the last segments time
    out, whatever the window (:func:`model.loss.position_timeout_probability`, ``m`` counted up to 10);
  - QUIC repair: ``C(w) = PTO / w + (1 - 1/w) RTT`` (only a tail loss, one in ``w``, waits for the probe
    timeout; any other is found within about an RTT by a later acknowledgement, RFC 9002 6.1). ``PTO = 3 RTT
    + max_ack_delay`` (6.2.1) once the endpoint has an RTT sample, 999 ms before (6.2.2);
  - slower sending (Cardwell 3.4's congestion avoidance after the loss; RFC 5681 3.1-3.2, RFC 9002 7.3.2):
    after a fast retransmit TCP goes on from half the window it lost in (``ssthresh = max(w/2, 2)``) in
    congestion avoidance, after a timeout from one segment in slow start up to it; QUIC halves in either case.
    The rest of the connection's data in the page, in the lossless schedule's bursts (data the sender had
    without waiting for its peer) and rounds, is sent again from that window (:func:`penalty`: one ACK per
    ``b`` segments, slow start adding ``min(acked, L)`` a ACK, congestion avoidance ``1/c``; a round too short
    for the delayed ACK waits its timer ``T_d``); the extra rounds cost an RTT each. Only the first loss of
    a burst slows it (weight ``(1-p)^k p`` for its ``k``-th segment): a later loss in an already slowed burst
    adds its repair, not a second slowdown. A persistent connection's later responses are separate bursts,
    so a loss in an early response slows all later ones until the window is back.

Head of line (h2 vs h3): HTTP/2's streams share one TCP byte stream, so a lost segment holds back every
byte after it, of every stream, until it is repaired (RFC 9114 1.2; RFC 9113 5): the page waits the whole
``C``. HTTP/3's streams are independent (RFC 9000 2.2: a stream's data is ordered only within that stream),
so a loss holds back only its own stream: the page waits ``max(0, C - slack)``, where ``slack`` is how long
before the page's last byte that stream's object ended in the schedule (0 for the HTML, whose arrival
starts the other requests, and for handshake packets). ``head_of_line_ms`` reports the time the *other*
streams in flight wait behind the loss, :func:`model.loss.head_of_line_ms` (``C (n - 1)`` on TCP, 0 on QUIC),
weighted the same way: a stream-time, not part of the page's extra time. Both transports also shrink their
window after a loss (RFC 5681 3.2, RFC 9002 7.3.2): TCP to one segment after a timeout, QUIC to half, and
QUIC's congestion avoidance counts bytes (one packet a window), TCP's ACKs; both are in the slower sending
(whole page, not per stream).

Which connections: a connection's loss delays the page only if the page waited for it. The page's path is
followed back from each page's last byte through the causes of every packet and point (an ACK's data, a
request's response, a connection opened when an earlier object ended): the connections it crosses are
counted in full, the others not at all (for http10_parallel: the HTML's connection and the chain of
connections that led to the last object). Every other connection's loss is taken to stay hidden behind
the path's, so the figure is a lower bound for parallel connections. On a split-proxy path (seed 003) the
loss rate is the long-haul link's (``network``) and only the connections between the proxies see it.

Left out: lost ACKs (cumulative ACKs cover them), lost FINs, a lost DNS query, the retransmission's own
transmission time, losses of connections off the page's path (http10_parallel: the other connections'
losses can put them on the path; the figure is low there), and overlap between losses (each is costed
against the lossless schedule). Against ns-3 with a RateErrorModel (bench/bench_loss_ns3.py, TcpNewReno
without SACK, 200 seeds a point; figures in validation/README.md) the expected page load time is within
15 % of ns-3's mean at 83 of 90 points; http10_parallel's extra time is 40-60 % low.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections import deque
from dataclasses import dataclass
from typing import Any

import sympy

from model import loss
from model.engine import PATH, Packet, Point
from model.protocols.base import Session

#: QUIC's probe timeout before an RTT sample (ms): ``3 kInitialRtt`` (RFC 9002 6.2.2, ``kInitialRtt = 333 ms``).
QUIC_INITIAL_PTO_MS = 999.0

#: Segments following a lost one counted up to this many: beyond, a timeout needs 8 more losses
#: (``Q_10 < 1e-4`` at ``p = 0.2``) and runs of equal cost stay long.
FOLLOW_CAP = 10

#: The causes of the expected extra time, keys of ``by_cause_ms``.
CAUSES = ("handshake", "timeouts", "fast_retransmit", "slower_sending")

#: Sympy symbols of the expected extra time and the glossary of their meanings.
p_sym, R_sym, T0_sym, Ts_sym, A_sym, Td_sym = sympy.symbols("p RTT T_0 T_s A T_d", nonnegative=True)
SYMBOLS: dict[str, tuple[sympy.Symbol, str]] = {
    "p": (p_sym, "network.loss_rate: probability a packet is lost (per packet)"),
    "RTT": (R_sym, "round-trip propagation delay of the lossy path (ms)"),
    "T_0": (T0_sym, "TCP retransmission timeout, max(tcp.rto_min_ms, 3 RTT) (ms)"),
    "T_s": (Ts_sym, "initial SYN timeout, 1000 ms (RFC 6298 5.7)"),
    "A": (A_sym, "quic.max_ack_delay_ms (ms)"),
    "T_d": (Td_sym, "tcp.delayed_ack_ms: the receiver's delayed-ACK timeout (ms)"),
}


@dataclass(frozen=True, slots=True)
class Run:
    """Consecutive segments of one flow with the same cost: ``count`` of them after ``before`` others."""

    before: int  # segments of the flow (in its page) before the run
    count: int
    w: int  # the window the run's segments left in (segments)
    quic: bool
    initial_pto: bool  # QUIC: sent before the endpoint had an RTT sample (PTO 999 ms)
    slack: float  # h3: how long before the page's end the segment's stream ended (ms); 0 otherwise
    streams: int  # streams in flight on the connection when the segments left (head of line)
    # slower sending after a loss in the run: extra rounds and extra delayed-ACK waits for the rest of the
    # connection's data in the page (:func:`penalty`), after a timeout and after a fast retransmit
    follow: int = 0  # TCP: segments of the flow sent after these before their loss could be seen
    burst_before: int = 0  # segments of the run's burst before it (only a burst's first loss slows it)
    to_rounds: int = 0
    to_stalls: int = 0
    fr_rounds: int = 0
    fr_stalls: int = 0


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
    dack: float = 0.0  # the receiver's delayed-ACK timeout (ms)


@dataclass(frozen=True, slots=True)
class Growth:
    """How a sender's window grows per round (segments), from the TCP profile or QUIC's rules."""

    ack_segments: int  # segments per ACK (delayed ACK: b)
    abc_limit: int  # segments slow start adds per ACK at most (RFC 3465's L)
    quic: bool  # QUIC: windows count bytes (RFC 9002 7.3.1, 7.3.3)


def _grow(c: float, ssthresh: float, sent: int, g: Growth) -> float:
    """The window after a round of ``sent`` segments is acknowledged (segments).

    Slow start (below ``ssthresh``) adds per ACK ``min(segments it acknowledges, L)`` (RFC 5681 3.1, RFC 3465;
    QUIC: every acknowledged packet, RFC 9002 7.3.1); congestion avoidance adds ``1/c`` per ACK (RFC 5681 3.1;
    QUIC: one packet per window acknowledged, 7.3.3). One ACK per ``b`` segments (delayed ACK): with ``b = 2``
    and ``L = 1``, slow start grows by 1.5 a round and congestion avoidance by half a segment (Cardwell et
    al. 2000, 3.2 and 3.4, ``gamma = 1 + 1/b``)."""
    acks = sent if g.quic else -(-sent // g.ack_segments)
    per_ack = sent / acks
    if c < ssthresh:
        return min(c + (sent if g.quic else acks * min(per_ack, g.abc_limit)), max(ssthresh, c + 1))
    return c + (sent / c if g.quic else acks / c)


def penalty(rest: list[list[int]], c: float, ssthresh: float, g: Growth) -> tuple[int, int]:
    """Extra rounds and extra delayed-ACK waits to send the rest of a connection's data from window ``c``.

    ``rest`` holds, per burst of the lossless schedule (data the sender had without waiting for its peer:
    one response on a persistent connection, all pipelined responses), the segments of each of its
    rounds. Lossless, a burst takes ``len(rounds)`` rounds; after a loss the sender starts from ``c``
    (``ssthresh`` above it) and needs as many rounds as :func:`_grow` allows. A round of fewer than ``b``
    segments with more of the burst to follow waits for the receiver's delayed-ACK timer (a stall). Each
    burst's extra is counted if positive, until the window is back where the lossless schedule had it.
    Cardwell et al. 2000, 3.2 and 3.4 (the window after a loss and its growth), RFC 5681 3.1-3.2."""
    rounds = stalls = 0
    for burst in rest:
        total = sum(burst)
        r0 = len(burst)
        s0 = sum(1 for n in burst[:-1] if n < g.ack_segments)
        r1 = s1 = sent = 0
        while sent < total:
            n = min(max(int(c), 1), total - sent)
            sent += n
            r1 += 1
            if sent < total and n < g.ack_segments and not g.quic:
                s1 += 1
            c = _grow(c, ssthresh, n, g)
        if r1 <= r0 and s1 <= s0 and c >= max(burst):
            break
        rounds += max(r1 - r0, 0)
        stalls += max(s1 - s0, 0)
    return rounds, stalls


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


def _windows(data: list[Packet], acks: list[Packet]) -> tuple[list[int], list[bool], list[float]]:
    """Each data segment's window (segments in flight while it was), whether an ACK of the flow had
    arrived before it left (an RTT sample), and when its ACK arrived."""
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
        ack_at.append(float(best_t) if best >= pk.seq_end else float("inf"))
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
    return w, sampled, ack_at


def bursts(data: list[Packet], ack_at: list[float]) -> list[list[list[int]]]:
    """A flow's segments (indices) in bursts and rounds, as the lossless schedule sent them.

    A burst ends where the pipe emptied: the next segment left only after the last one's ACK came back (the
    sender waited for its peer: the next request of a persistent connection). Within a burst a round ends
    where a segment left after the round's first segment was acknowledged (slow start's rounds).
    """
    out: list[list[list[int]]] = []
    first_ack = float("inf")
    for i, pk in enumerate(data):
        t = float(pk.t_q)
        if not out or t >= ack_at[i - 1]:
            out.append([[i]])
            first_ack = ack_at[i]
        elif t >= first_ack:
            out[-1].append([i])
            first_ack = ack_at[i]
        else:
            out[-1][-1].append(i)
    return out


def structure(s: Session, protocol: str) -> Structure:
    """Read the connections on the page's path, their SYNs and their data segments' runs from a schedule."""
    p = s.p
    quic = protocol == "h3"
    growth = Growth(
        ack_segments=2 if quic else max(p.dack_segments, 1),
        abc_limit=p.profile.cwnd_abc_limit_segments if p.profile.cwnd_counts_bytes else 1,
        quic=quic,
    )
    restart = not quic and p.idle_restart == "slow_start"
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
            flow = [pk for pk in by_flow.get((c, d), []) if pk.kind == "DATA" and pk.n > 0]
            if not flow:
                continue
            w_all, sampled_all, ack_all = _windows(flow, by_flow.get((c, d ^ 1), []))
            pages: dict[int, list[int]] = {}
            for i, pk in enumerate(flow):
                pages.setdefault(max(bisect.bisect_right(starts, float(pk.t_q)) - 1, 0), []).append(i)
            for _, idx in sorted(pages.items()):
                data = [flow[i] for i in idx]
                w = [w_all[i] for i in idx]
                sampled = [sampled_all[i] for i in idx]
                ack_at = [ack_all[i] for i in idx]
                groups = bursts(data, ack_at)
                sends = [float(pk.t_q) for pk in data]
                sizes = [[len(r) for r in b] for b in groups]
                if restart:  # after an idle RTO both the lossy and the lossless sender restart from IW
                    for u in range(1, len(groups)):
                        if float(data[groups[u][0][0]].t_q) - ack_at[groups[u - 1][-1][-1]] >= p.rto_ms:
                            sizes = sizes[:u]
                            break
                where: dict[int, tuple[int, int, int]] = {}
                for u, b in enumerate(groups):
                    first = b[0][0]
                    for r, rnd in enumerate(b):
                        for i in rnd:
                            where[i] = (u, r, i - first)
                cache: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}
                key: tuple[Any, ...] | None = None
                for k, pk in enumerate(data):
                    u, r, in_burst = where[k]
                    pen = cache.get((u, r, w[k]))
                    if pen is None:
                        rest = ([sizes[u][r + 1 :]] if u < len(sizes) else []) + sizes[u + 1 :]
                        rest = [b for b in rest if b]
                        half = max(w[k] / 2, 2.0)
                        fr = penalty(rest, half, half, growth)
                        to = fr if quic else penalty(rest, 1.0, half, growth)
                        pen = cache[(u, r, w[k])] = (*to, *fr)
                    t = float(pk.t_q)
                    slack = 0.0
                    rec = s.objects.get(pk.obj or "")
                    if quic and rec is not None and rec.name not in first_objects and rec.end is not None:
                        slack = max(ends[rec.page] - float(rec.end), 0.0)
                    streams = 1
                    if mux:  # streams requested and not yet complete when the segment left
                        streams = max(bisect.bisect_right(obj_starts, t) - bisect.bisect_right(obj_ends, t), 1)
                    follow = min(bisect.bisect_left(sends, ack_at[k]) - k - 1, FOLLOW_CAP)
                    new = (u, w[k], quic and not sampled[k], slack, streams, pen, follow)
                    if key == new and runs and runs[-1].before + runs[-1].count == k:
                        runs[-1] = dataclasses.replace(runs[-1], count=runs[-1].count + 1)
                    else:
                        runs.append(Run(k, 1, w[k], quic, new[2], slack, streams, follow, in_burst, *pen))
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
        dack=p.dack_ms,
    )


def _cost_parts(st: Structure, run: Run, p: float) -> tuple[float, float]:
    """A run's loss cost split (timeout part, fast part) in ms, before weighting and slack."""
    if run.quic:
        pto = QUIC_INITIAL_PTO_MS if run.initial_pto else 3 * st.rtt + st.ack_delay
        return pto / run.w, (1 - 1 / run.w) * st.rtt
    q = loss.position_timeout_probability(p, run.follow)
    return q * loss.timeout_ms(p, st.rto), (1 - q) * st.rtt


def _penalty_parts(st: Structure, run: Run, p: float) -> tuple[float, float]:
    """A run's slower sending after its loss (ms): (after a timeout, after a fast repair), each weighted
    by how likely that repair is (``Q``; QUIC's window reduction does not depend on how the loss was found)."""
    after_to = run.to_rounds * st.rtt + run.to_stalls * st.dack
    after_fr = run.fr_rounds * st.rtt + run.fr_stalls * st.dack
    if run.quic:
        return 0.0, after_fr
    q = loss.position_timeout_probability(p, run.follow)
    return q * after_to, (1 - q) * after_fr


def expected(st: Structure, p: float, page_load_ms: float) -> dict[str, Any]:
    """The ``expected_with_loss`` block of a result: numbers from the closed forms (ms)."""
    by = dict.fromkeys(CAUSES, 0.0)
    by["handshake"] = st.syns * loss.handshake_extra_ms(p)
    hol = 0.0
    for run in st.runs:
        weight = loss.expected_losses(p, run.count)
        timeouts, fast = _cost_parts(st, run, p)
        cost = timeouts + fast
        if cost <= 0:
            continue
        page = max(cost - run.slack, 0.0)  # h3: only the stream waits; its slack absorbs part of it
        by["timeouts"] += weight * timeouts * page / cost
        by["fast_retransmit"] += weight * fast * page / cost
        first = (1 - p) ** run.burst_before * loss.loss_probability(p, run.count)
        by["slower_sending"] += first * sum(_penalty_parts(st, run, p))
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
    "Expected value, not a schedule: each packet lost independently with probability loss_rate. Per "
    "connection the page waited for, a lost SYN or SYN-ACK waits the 1 s SYN timeout (Cardwell et al. 2000, "
    "3.1); every lost data segment costs a timeout with backoff, if fewer than three segments follow it, or a "
    "fast retransmit (Cardwell 3.3, Padhye et al. 1998), and the first loss of a burst makes the rest of the "
    "connection's data go from a halved window (from one segment after a timeout) in more rounds (Cardwell "
    "3.4). Every stream of the TCP connection waits for the repair. Losses on connections off the page's "
    "path are left out: for parallel connections the figure is low."
)
ASSUMPTIONS_QUIC = (
    "Expected value, not a schedule: each packet lost independently with probability loss_rate; every lost "
    "packet is found by a later acknowledgement (about an RTT) or, for a tail packet, by the probe timeout "
    "(RFC 9002 6.1, 6.2; 999 ms before an RTT sample), and the first loss of a burst halves the window for "
    "the rest of the connection's data (7.3.2). Only the lost packet's stream waits for the repair (RFC 9000 "
    "2.2): an object that ended earlier than the page's last byte hides its delay up to that margin."
)


def block(s: Session, protocol: str, page_load_ms: float) -> dict[str, Any]:
    """``expected_with_loss`` for a simulated session at its scenario's loss rate."""
    return expected(structure(s, protocol), s.p.loss, page_load_ms)


# ------------------------------------------------------------------------------------------------ sympy


def expression(st: Structure) -> sympy.Expr:
    """The expected extra time as a sympy expression in ``p``, ``RTT``, ``T_0``, ``T_s``, ``T_d`` and ``A`` (ms).

    Built from :mod:`model.loss`'s sympy forms run by run; the schedule's windows, counts, slacks and the
    extra rounds after a loss are numbers in it. Equal to :func:`expected`'s ``extra_ms`` at the scenario's
    values (tests prove it).
    """
    total: sympy.Expr = st.syns * loss.handshake_extra_expr(p_sym, Ts_sym)
    for run in st.runs:
        weight = run.count * p_sym
        first = (1 - p_sym) ** run.burst_before * (1 - (1 - p_sym) ** run.count)
        after_fr = run.fr_rounds * R_sym + run.fr_stalls * Td_sym
        if run.quic:
            pto = sympy.Integer(999) if run.initial_pto else 3 * R_sym + A_sym
            cost = loss.quic_cost_expr(run.w, R_sym, pto)
            slower: sympy.Expr = after_fr
        else:
            cost = loss.tcp_cost_expr(p_sym, run.w, R_sym, T0_sym, run.follow)
            q = loss.position_timeout_probability_expr(p_sym, run.follow)
            slower = q * (run.to_rounds * R_sym + run.to_stalls * Td_sym) + (1 - q) * after_fr
        if run.slack > 0:
            cost = sympy.Max(cost - sympy.Float(run.slack), 0)
        total += weight * cost + first * slower
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
