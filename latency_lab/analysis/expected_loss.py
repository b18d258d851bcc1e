"""The expected cost of random loss on a protocol's lossless schedule (``expected_with_loss``): reading the schedule.

The schedule (:mod:`latency_lab.engine.core`) has no loss; ``network.loss_rate`` ``p`` only enters the analysis. This
module reads, from a simulated session, what the closed forms need (:func:`structure`): which connections
the page waited for (:func:`path_connections`), their SYNs, their data segments in runs of equal cost, each
with the window it left in (:func:`_windows`), the segments of its flow that followed it before its loss
could be seen and the bursts and rounds of the rest of its connection's data (:func:`bursts`), and the
other connections on the lossy link with their slack (:func:`slack_by_connection`). The costing, with the
closed forms of loss recovery, is :mod:`latency_lab.mechanisms.loss_recovery` (:func:`expected`); :func:`block`
joins the two for :func:`latency_lab.analysis.predict.predict`.


Which connections: a connection's loss delays the page by as much as it delays the page's last byte. The
page's path is followed back from each page's last byte through the causes of every packet and point (an
ACK's data, a request's response, a connection opened when an earlier object ended): the connections it
crosses are counted in full, their losses adding up (for http10_parallel: the HTML's connection and the
chain of connections that led to the last object). Every other connection on the lossy link (http10_parallel's
others) is a chain of work of its own with a slack, its *total float* in the lossless schedule
(:func:`slack_by_connection`: how long before the page's end the latest object waiting for it ended); a delay
``D`` on it delays the page by ``max(D - slack, 0)``. The page waits for the latest chain, so per page the
extra time is ``E[max(X_path, max_c (X_c - slack_c)^+)]`` over independent chains (:func:`max_terms`; each
chain's delay as its long part, the timeouts, and its short part, about an RTT each, two independent
two-point variables with the chain's expected delays, :func:`chain_atoms`); pages follow each other, so
their extra times add. With no other connection this is the path's expected delay. On a split-proxy path
(seed 003) the loss rate is the long-haul link's (``network``) and only the connections between the proxies
see it.

Left out: lost ACKs (cumulative ACKs cover them), lost FINs, a lost DNS query, the retransmission's own
transmission time, the re-use of a parallel connection's slot by the next object when that connection is
late on protocols other than http10_parallel (its slack is counted as if the objects kept their connections;
http10_parallel's slots share the objects, :func:`slot_connections`, :func:`latency_lab.mechanisms.loss_recovery.slot_shares`),
and most overlap between losses (each
is costed against the lossless schedule; only a lost retransmission and, for parallel connections, the
latest of several delayed chains are counted). Against ns-3 with a RateErrorModel (TcpNewReno without SACK,
200 seeds a point) the expected page load time is within 15 % of ns-3's mean or inside its 95 % interval at
all 126 points of the loss grid (docs/validation/loss.md) and all 80 of the bulk-transfer grid
(docs/validation/bulk_loss.md: 1 to 3,000 segments).

The retransmission timeout a lost segment waits for is the one its sender had when it left: the engine keeps
RFC 6298's estimator on the schedule's own round trips with the profile's minimum (:mod:`latency_lab.mechanisms.rto`;
``Endpoint.rto_log``); a sender whose window restarted after idling (the engine's own test at that timeout,
``Endpoint.restart_t``) starts again lossy or not, so a loss before the restart slows nothing after it. Slow
start after a loss counts what an ACK acknowledges by the profile's rule (``cwnd_counting``).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections import deque
from typing import Any

from latency_lab.engine.core import PATH, Packet, Point
from latency_lab.mechanisms.loss import repair_timeout_probability
from latency_lab.mechanisms.loss_recovery import (
    ASSUMPTIONS_QUIC,
    ASSUMPTIONS_TCP,
    CAUSES,
    LONG_CAUSES,
    QUIC_INITIAL_PTO_MS,
    SHORT_CAUSES,
    Atoms,
    Growth,
    Parallel,
    Run,
    Structure,
    _parts,
    chain_atoms,
    chances,
    expected,
    max_terms,
    penalty,
)
from latency_lab.protocols.base import Session
from latency_lab.scenario.params import Params

__all__ = [
    "ASSUMPTIONS_QUIC",
    "ASSUMPTIONS_TCP",
    "CAUSES",
    "FOLLOW_CAP",
    "LONG_CAUSES",
    "QUIC_INITIAL_PTO_MS",
    "SHORT_CAUSES",
    "Atoms",
    "Growth",
    "Parallel",
    "Run",
    "Structure",
    "_parts",
    "block",
    "bursts",
    "chain_atoms",
    "chances",
    "expected",
    "from_native",
    "lossless_from_counts",
    "lossless_structure",
    "max_terms",
    "path_connections",
    "penalty",
    "repair_timeout_probability",
    "slack_by_connection",
    "slot_connections",
    "structure",
]

#: Segments following a lost one counted up to this many: beyond, a timeout needs 8 more losses
#: (``Q_10 < 1e-4`` at ``p = 0.2``) and runs of equal cost stay long.
FOLLOW_CAP = 10


def _follow(node: Packet | Point | None) -> Packet | Point | None:
    if isinstance(node, Point):
        return node.base
    if isinstance(node, Packet):
        cause = node.cause
        if len(cause) > 1 and isinstance(cause[1], (Packet, Point)):
            return cause[1]
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


def slack_by_connection(s: Session) -> dict[int, float]:
    """How long before its page's end each connection's latest dependent object ended (ms): its total float.

    Every object's last byte is followed back through its causes (as :func:`path_connections` does from the
    page's end); each connection crossed gets the object's margin ``page end - object end``, and keeps the
    least. That is the critical path method's *total float* of the connection in the lossless schedule: the
    longest chain of work that waits for it (its own object, and on http10_parallel the connections opened
    when it finished) ends ``slack`` before the page does, so a delay ``D`` on it delays the page by
    ``max(D - slack, 0)`` (Kelley & Walker 1959). 0 on the page's path; connections carrying no object's
    chain are left out."""
    ends = [float(pk.t_a) for pk in s.page_end]
    walks: list[tuple[float, Packet]] = []
    for rec in s.objects.values():
        if rec.end_pkt is None or rec.end is None or rec.page >= len(ends):
            continue
        walks.append((max(ends[rec.page] - float(rec.end), 0.0), rec.end_pkt))
    # least margin first: a walk that reaches a node an earlier walk crossed can stop there, since everything
    # behind that node has a margin no larger already (each node is crossed once: linear in the schedule)
    walks.sort(key=lambda w: w[0])
    out: dict[int, float] = {}
    seen: set[int] = set()
    for margin, end_pkt in walks:
        node: Packet | Point | None = end_pkt
        while node is not None and id(node) not in seen:
            seen.add(id(node))
            if isinstance(node, Packet):
                out[node.conn] = min(out.get(node.conn, margin), margin)
            node = _follow(node)
    return out


def _rest_of(sizes: list[list[int]], u: int, r: int) -> list[list[int]]:
    """The rounds still to send after round ``r`` of burst ``u`` (``sizes``: each burst's rounds' segments), burst by
    burst, empty ones left out (the later bursts' own lists, not copies): :func:`penalty` reads the largest round of
    them all to know when the window is back."""
    out = [sizes[u][r + 1 :]] if u < len(sizes) and sizes[u][r + 1 :] else []
    out += [b for b in sizes[u + 1 :] if b]
    return out


def counting_rule(pf: Any) -> str:
    """How the profile's slow start counts what an ACK acknowledges (``acks``, ``bytes`` or ``packets``): its
    ``cwnd_counting``, read from the two flags here so the compiled analysis calls no Python property."""
    return "packets" if pf.cwnd_counts_packets else "bytes" if pf.cwnd_counts_bytes else "acks"


def _connection_runs(s: Session, protocol: str, c: int, by_flow: dict[tuple[int, int], list[Packet]]) -> list[Run]:
    """One connection's data segments in runs of equal cost (see :class:`Run`), page by page."""
    p = s.p
    quic = protocol == "h3"
    counting = counting_rule(p.profile)
    growth = Growth(
        ack_segments=2 if quic else max(p.dack_segments, 1),
        abc_limit=p.profile.cwnd_abc_limit_segments if counting == "bytes" else 1,
        quic=quic,
        counting=counting,
    )
    starts = [float(pt.t) for pt in s.page_start]
    ends = [float(pk.t_a) for pk in s.page_end]
    first_objects = {names[0] for names in s.page_names}
    runs: list[Run] = []
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
        sender = conn.client if conn.client.dir == d else conn.server
        # the sender's retransmission timeout as the schedule's own round trips set it (RFC 6298 with the profile's
        # minimum, latency_lab.mechanisms.rto: the engine's log of it), and when its window restarted after idling
        rto_t = [float(x) for x, _ in sender.rto_log]
        rto_v = [float(v) for _, v in sender.rto_log]
        initial_rto = float(conn.rto)
        restarts = [] if quic else sorted(float(x) for x in sender.restart_t)
        pages: dict[int, list[int]] = {}
        for i, pk in enumerate(flow):
            pages.setdefault(max(bisect.bisect_right(starts, float(pk.t_q)) - 1, 0), []).append(i)
        for page, idx in sorted(pages.items()):
            data = [flow[i] for i in idx]
            w = [w_all[i] for i in idx]
            sampled = [sampled_all[i] for i in idx]
            ack_at = [ack_all[i] for i in idx]
            groups = bursts(data, ack_at)
            sends = [float(pk.t_q) for pk in data]
            sizes = [[len(r) for r in b] for b in groups]
            # where the lossless sender's window restarted after idling (the engine's own test, at the RTO it had),
            # the lossy one restarts too: a loss before it slows nothing after it
            for u in range(1, len(groups)):
                lo = bisect.bisect_right(restarts, float(data[groups[u - 1][-1][-1]].t_q))
                if lo < len(restarts) and restarts[lo] <= float(data[groups[u][0][0]].t_q):
                    sizes = sizes[:u]
                    break
            where: dict[int, tuple[int, int, int]] = {}
            for u, b in enumerate(groups):
                first = b[0][0]
                for r, rnd in enumerate(b):
                    for i in rnd:
                        where[i] = (u, r, i - first)
            # the rest of the connection's data after each round, and how long the lossless schedule took to
            # send it: each burst from its first segment's leaving to its last one's arrival, summed (a persistent
            # connection's waits for the next request are not sending time)
            bounds = [(float(data[b[0][0]].t_q), float(data[b[-1][-1]].t_a)) for b in groups[: len(sizes)]]
            later = [0.0] * (len(bounds) + 1)
            for v in range(len(bounds) - 1, -1, -1):
                later[v] = later[v + 1] + bounds[v][1] - bounds[v][0]
            cache: dict[tuple[int, int, int], tuple[int, int, int, int, int, float, int, float, int]] = {}
            # what follows a round, whatever the window: (left, rest_ms, carry, carry_ms, carry_n), once per round
            base_of: dict[tuple[int, int], tuple[int, float, int, float, int]] = {}
            key: tuple[Any, ...] | None = None
            # segments in the bursts from each one on (whole numbers: any order of adding gives the same sum)
            after = [0] * (len(sizes) + 1)
            for v in range(len(sizes) - 1, -1, -1):
                after[v] = after[v + 1] + sum(sizes[v])
            # the steady state after a loss (Padhye's periods, several losses) runs to the end of the response it
            # hit: where a burst starts another object (a persistent connection's next response, sent when its
            # request came), that response's own losses start its own; a burst's first loss slowing the whole rest
            # of the connection would count the rest again for every later response (quadratic in responses).
            # Bursts of one object (slow start's pipe emptying within a response) stay one stretch.
            stretch_end = list(range(1, len(sizes) + 1))
            for v in range(len(sizes) - 2, -1, -1):
                if data[groups[v + 1][0][0]].obj == data[groups[v][-1][-1]].obj:
                    stretch_end[v] = stretch_end[v + 1]

            for k, pk in enumerate(data):
                u, r, in_burst = where[k]
                # a loss in the flow's first response slows from its burst's first loss (as it always did); in a later
                # response only the flow's first loss does: after an earlier one the window carried over (carry)
                first_before = in_burst if u >= len(sizes) or stretch_end[u] == stretch_end[0] else k
                # TCP: the window a loss leaves is half the data in flight when it is found (RFC 5681 (4), ssthresh =
                # max(FlightSize / 2, 2 SMSS); ns-3's NewReno so): the segment and those sent after it before its loss
                # could be seen, at most its window. Near the end of a response that is its last few segments, and
                # the responses after it start from there (ns-3, persistent 10 x 20 KB at p 0.005, 2026-11-29).
                # QUIC halves its window (RFC 9002 7.3.2)
                ahead = bisect.bisect_left(sends, ack_at[k]) - k
                # (4 or fewer in flight leave the least window, 2: one cost)
                flight = max(w[k] if quic else min(w[k], ahead), 4)
                pen = cache.get((u, r, flight))
                if pen is None:
                    base = base_of.get((u, r))
                    if base is None:
                        end = stretch_end[u] if u < len(sizes) else len(sizes)
                        rest_ms = later[u + 1] - later[end] if u < len(bounds) else 0.0
                        if u < len(bounds) and r + 1 < len(groups[u]):
                            rest_ms += bounds[u][1] - float(data[groups[u][r + 1][0]].t_q)
                        left = (
                            (sum(sizes[u][r + 1 :]) if u < len(sizes) else 0)
                            + after[min(u + 1, len(sizes))]
                            - after[end]
                        )
                        carry = after[end] if u < len(sizes) else 0
                        carry_n = len({stretch_end[v] for v in range(end, len(sizes))}) if u < len(sizes) else 0
                        carry_ms = later[end] if u < len(sizes) else 0.0
                        base = base_of[(u, r)] = (left, rest_ms, carry, carry_ms, carry_n)
                    half = flight / 2
                    fr = penalty(_rest_of(sizes, u, r), half, half, growth)
                    to = fr if quic else penalty(_rest_of(sizes, u, r), 1.0, half, growth)
                    pen = cache[(u, r, flight)] = (*to, *fr, *base)
                t = float(pk.t_q)
                slack = 0.0
                rec = s.objects.get(pk.obj or "")
                if quic and rec is not None and rec.name not in first_objects and rec.end is not None:
                    slack = max(ends[rec.page] - float(rec.end), 0.0)
                streams = 1
                if mux:  # streams requested and not yet complete when the segment left
                    streams = max(bisect.bisect_right(obj_starts, t) - bisect.bisect_right(obj_ends, t), 1)
                follow = min(ahead - 1, FOLLOW_CAP)
                i_rto = bisect.bisect_right(rto_t, t) - 1
                seg_rto = 0.0 if quic else rto_v[i_rto] if i_rto >= 0 else initial_rto
                new = (u, w[k], quic and not sampled[k], slack, streams, pen, follow, seg_rto)
                if key == new and runs and runs[-1].before + runs[-1].count == k:
                    runs[-1] = dataclasses.replace(runs[-1], count=runs[-1].count + 1)
                else:
                    runs.append(
                        Run(
                            *(k, 1, w[k], quic, new[2], slack, streams, follow, first_before, *pen[:6]),
                            page=page,
                            rto=seg_rto,
                            carry=pen[6],
                            carry_ms=pen[7],
                            carry_n=pen[8],
                        )
                    )
                key = new
    return runs


def structure(s: Session, protocol: str, *, others: bool = True, costed: bool = True) -> Structure:
    """Read the connections on the page's path, their SYNs and their data segments' runs from a schedule,
    and (with ``others``) the other connections on the lossy link with their slack (:func:`slack_by_connection`):
    they change the expected value only at a loss rate above 0, and their slack is most of this function's cost.
    Without ``costed`` the runs are left out (their segments still counted): at a loss rate of 0 every run
    costs 0, and costing them took about as long as the schedule itself."""
    p = s.p
    lossy = {c for c, conn in enumerate(s.conns) if conn.leg == PATH}
    on_path = {c for c in path_connections(s) if c in lossy}
    pkts = s.eng.packets
    by_flow: dict[tuple[int, int], list[Packet]] = {}
    syns: dict[int, int] = {}
    starts = [float(pt.t) for pt in s.page_start]
    page_of: dict[int, int] = {}  # connection -> the page its first packet belongs to
    for pk in pkts:
        if pk.conn in lossy:
            by_flow.setdefault((pk.conn, pk.dir), []).append(pk)
            if pk.kind == "SYN":
                syns[pk.conn] = syns.get(pk.conn, 0) + 1
            page_of.setdefault(pk.conn, max(bisect.bisect_right(starts, float(pk.t_q)) - 1, 0))
    runs: list[Run] = []
    segments = 0
    own_runs: dict[int, tuple[Run, ...]] = {}

    def runs_of(c: int) -> tuple[Run, ...]:
        if c not in own_runs:
            own_runs[c] = tuple(_connection_runs(s, protocol, c, by_flow))
        return own_runs[c]

    for c in sorted(on_path):
        if costed:
            runs += runs_of(c)
        else:  # the runs' segments counted without costing them: every data segment of the connection
            segments += sum(
                1 for d in s.conns[c].links for pk in by_flow.get((c, d), ()) if pk.kind == "DATA" and pk.n > 0
            )
    slack = slack_by_connection(s) if others else {}
    parallel: list[Parallel] = []
    for c in sorted(lossy - on_path):
        if c not in slack:  # no object waits for it
            continue
        own = runs_of(c)
        if own or syns.get(c, 0):
            parallel.append(Parallel(c, syns.get(c, 0), own, slack[c], page_of[c]))
    chains = slot_connections(s, lossy) if others and costed and protocol == "http10_parallel" else []
    slot_chains = tuple(
        Parallel(c, syns.get(c, 0), runs_of(c), own, page, lead) for c, own, page, lead in chains if c in page_of
    )
    return Structure(
        syns=sum(syns.get(c, 0) for c in on_path),
        runs=tuple(runs),
        rtt=p.d_up + p.d_down,
        rto=p.rto_ms,
        ack_delay=p.quic_ack_delay,
        connections=tuple(sorted(on_path)),
        independent_streams=protocol == "h3",
        segments=sum(r.count for r in runs) if costed else segments,
        dack=p.dack_ms,
        others=tuple(parallel),
        w_max=p.rwnd / p.mss,
        ack_segments=max(p.dack_segments, 1),
        page_syns=tuple(sum(syns.get(c, 0) for c in on_path if page_of.get(c) == g) for g in range(len(s.page_start))),
        slots=p.parallel if slot_chains else 0,
        slot_chains=slot_chains,
    )


def slot_connections(s: Session, lossy: set[int]) -> list[tuple[int, float, int, bool]]:
    """http10_parallel's object connections on the lossy link, in the order they opened, as
    :attr:`Structure.slot_chains` holds them: ``(connection, float of its own objects (ms), page, lead)``, the float
    how long before its page's end the latest of its objects ended, lead the page's first object's (the HTML's)."""
    ends = [float(pk.t_a) for pk in s.page_end]
    firsts = {names[0] for names in s.page_names}
    own: dict[int, tuple[float, int, bool]] = {}
    for rec in s.objects.values():
        c = rec.connection
        if c < 0 or c not in lossy or rec.end is None or rec.page >= len(ends):
            continue
        margin = max(ends[rec.page] - float(rec.end), 0.0)
        was = own.get(c)
        lead = rec.name in firsts or (was is not None and was[2])
        own[c] = (margin if was is None else min(was[0], margin), rec.page, lead)
    return [(c, m, page, lead) for c, (m, page, lead) in sorted(own.items())]


def lossless_structure(s: Session, protocol: str) -> Structure:
    """:func:`structure` without runs and without the other connections (``others=False, costed=False``),
    from the counts the engine keeps as it sends (each connection's SYNs and when it sent its first, each
    endpoint's data segments) instead of reading every packet: all that a loss rate of 0 needs (every run
    costs 0). Equal to it on every scenario (tests/latency_lab/test_expected_loss.py)."""
    conns = s.conns
    return lossless_from_counts(
        s.p,
        protocol,
        sorted(c for c in path_connections(s) if conns[c].leg == PATH),
        [conn.client.segments + conn.server.segments for conn in conns],
        [conn.syns for conn in conns],
        [float(conn.syn_t) if conn.syn_t is not None else 0.0 for conn in conns],
        [float(pt.t) for pt in s.page_start],
    )


def lossless_from_counts(
    p: Params,
    protocol: str,
    on_path: list[int],
    segments_by_conn: list[int],
    syns_by_conn: list[int],
    syn_t_by_conn: list[float],
    starts: list[float],
) -> Structure:
    """:func:`lossless_structure` from the numbers it reads: the connections on the path (sorted), each connection's
    data segments, SYNs and first SYN's time (ms), and each page's start (ms); the native engine
    (:mod:`latency_lab.analysis.native`) hands them over as they are."""
    page_syns = [0] * len(starts)
    syns = segments = 0
    for c in on_path:
        segments += segments_by_conn[c]
        if syns_by_conn[c]:
            syns += syns_by_conn[c]
            page_syns[max(bisect.bisect_right(starts, syn_t_by_conn[c]) - 1, 0)] += syns_by_conn[c]
    return Structure(
        syns=syns,
        runs=(),
        rtt=p.d_up + p.d_down,
        rto=p.rto_ms,
        ack_delay=p.quic_ack_delay,
        connections=tuple(on_path),
        independent_streams=protocol == "h3",
        segments=segments,
        dack=p.dack_ms,
        others=(),
        w_max=p.rwnd / p.mss,
        ack_segments=max(p.dack_segments, 1),
        page_syns=tuple(page_syns),
    )


def from_native(
    p: Params,
    protocol: str,
    numbers: tuple[
        int,
        list[int],
        list[int],
        list[tuple[Any, ...]],
        list[tuple[int, int, float, int]],
        list[tuple[int, int, float, int, bool]],
    ],
) -> Structure:
    """:func:`structure` from what the native engine read off its own schedule (``latency_lab/engine/native/loss.cpp``,
    this module's functions and :func:`latency_lab.mechanisms.loss_recovery.penalty` written again in C++; equal on every
    scenario it runs, ``tests/latency_lab/engine/test_engine_backends.py``): the SYN exchanges on the page's path, its
    connections, the SYN exchanges page by page, the runs (each ``(chain, *Run's fields)``, chain -1 the page's
    path, -2 - k the k-th slot connection, else an index into the other connections), the other connections
    ``(connection, syns, slack, page)`` and http10_parallel's slot connections ``(connection, syns, slack, page, lead)``
    (:func:`slot_connections`)."""
    syns, connections, page_syns, rows, others, slots = numbers
    path: list[Run] = []
    own: list[list[Run]] = [[] for _ in others]
    slot_runs: list[list[Run]] = [[] for _ in slots]
    for chain, *fields in rows:
        (path if chain == -1 else own[chain] if chain >= 0 else slot_runs[-2 - chain]).append(Run(*fields))
    slot_chains = tuple(
        Parallel(c, n, tuple(runs), slack, page, lead)
        for (c, n, slack, page, lead), runs in zip(slots, slot_runs, strict=True)
    )
    return Structure(
        syns=syns,
        runs=tuple(path),
        rtt=p.d_up + p.d_down,
        rto=p.rto_ms,
        ack_delay=p.quic_ack_delay,
        connections=tuple(connections),
        independent_streams=protocol == "h3",
        segments=sum(r.count for r in path),
        dack=p.dack_ms,
        others=tuple(
            Parallel(c, n, tuple(runs), slack, page) for (c, n, slack, page), runs in zip(others, own, strict=True)
        ),
        w_max=p.rwnd / p.mss,
        ack_segments=max(p.dack_segments, 1),
        page_syns=tuple(page_syns),
        slots=p.parallel if slot_chains else 0,
        slot_chains=slot_chains,
    )


def block(s: Session, protocol: str, page_load_ms: float) -> dict[str, Any]:
    """``expected_with_loss`` for a simulated session at its scenario's loss rate (at 0, from the engine's
    counts: :func:`lossless_structure`)."""
    if s.p.loss > 0:
        return expected(structure(s, protocol), s.p.loss, page_load_ms)
    return expected(lossless_structure(s, protocol), s.p.loss, page_load_ms)
