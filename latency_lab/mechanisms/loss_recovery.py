"""The expected cost of random loss on a lossless schedule's packets, in closed form: the costing half of
``expected_with_loss`` (:mod:`latency_lab.analysis.expected_loss` reads the schedule into a :class:`Structure`).

A :class:`Structure` describes, in numbers only, what the loss analysis needs of one protocol's lossless
schedule: the SYN exchanges and the data segments of every connection the page waited for, in runs of equal
cost (:class:`Run`: the window each segment left in, how many of its flow followed it before its loss could
be seen, the rounds its connection's data took), and the other connections on the lossy link with their
slack (:class:`Parallel`). :func:`expected` applies :mod:`latency_lab.mechanisms.loss`'s closed forms to it
(Cardwell, Savage & Anderson 2000, "Modeling TCP latency", 3.1 and 3.3, with Padhye et al. 1998's timeout
terms; RFC 9002 for QUIC) and gives the ``expected_with_loss`` block: an **expected value** added to the
deterministic page load time.

Per connection on the page's path (see *Which connections*):

- handshake: each SYN exchange costs ``T_s q / (1 - 2q)``, ``q = 1 - (1-p)^2`` (SYN or SYN-ACK lost; Cardwell
  3.1, ``T_s`` the 1 s initial SYN timeout of RFC 6298 5.7);
- data: each direction of the connection within one page is a flow (the server's responses, the client's
  requests, both sides' TLS flights). Every segment is lost with probability ``p``, so a run of ``n``
  segments loses ``n p`` on average (all losses of the transfer, as Cardwell 3.4 counts them, not only the
  first). A loss costs its repair ``C`` and the slower sending after it:

  - TCP repair: ``C = q E[Z_TO] + (1 - q) RTT``, a timeout with backoff (Padhye 1998 eq. (27), ``T_0``
    the RTO the sender had when the segment left: RFC 6298's estimator on the schedule's own round trips with
    the profile's minimum, :mod:`latency_lab.mechanisms.rto`, as the engine keeps it; before any sample the
    connection's initial ``max(rto_min_ms, 3 RTT)``) unless three duplicate ACKs come and the fast
    retransmission arrives: ``q = 1 - (1 - Q_m)(1 - p)`` (:func:`latency_lab.mechanisms.loss.repair_timeout_probability`). ``Q_m`` is the
    chance that fewer than three of the ``m`` segments the flow sent after the lost one (before its ACK was
    due) arrive, Padhye's case analysis at the segment's known place: in a burst only the last segments time
    out, whatever the window (:func:`latency_lab.mechanisms.loss.position_timeout_probability`, ``m`` counted up to 10); ``p``
    the chance that the fast retransmission is lost too, which without SACK only the timer finds (RFC 6582);
  - QUIC repair: ``C(w) = PTO / w + (1 - 1/w) RTT`` (only a tail loss, one in ``w``, waits for the probe
    timeout; any other is found within about an RTT by a later acknowledgement, RFC 9002 6.1). ``PTO = 3 RTT
    + max_ack_delay`` (6.2.1) once the endpoint has an RTT sample, 999 ms before (6.2.2);
  - slower sending (Cardwell 3.4's congestion avoidance after the loss; RFC 5681 3.1-3.2, RFC 9002 7.3.2):
    after a fast retransmit TCP goes on from half the window it lost in (``ssthresh = max(w/2, 2)``) in
    congestion avoidance, after a timeout from one segment in slow start up to it; QUIC halves in either case.
    The rest of the connection's data in the page, in the lossless schedule's bursts (data the sender had
    without waiting for its peer) and rounds, is sent again from that window (:func:`penalty`: one ACK per
    ``b`` segments, slow start adding what the profile counts an ACK (:class:`Growth`: one segment, ``min(acked,
    L)`` or every packet acknowledged), congestion avoidance ``1/c``; a round too short
    for the delayed ACK waits its timer ``T_d``); the extra rounds cost an RTT each. The first loss of a
    burst sets the slowdown (weight ``(1-p)^k p`` for its ``k``-th segment); where the rest is long enough
    for more losses, each halving the window again, the rest goes as Padhye et al. 1998's periods of
    congestion avoidance from the halved window, three one by one with each packet lost independently (a
    period's loss at a geometric place, in the window grown to there, timing out when fewer than three of the
    window's later segments arrive or the retransmission is lost; then one segment and slow start) and then at
    their steady rate (eq. (31)) (:func:`steady_ms`, :func:`latency_lab.mechanisms.loss.after_loss_ms`; issue 16:
    counting one halving a burst left bulk transfers 37-76 % short of ns-3), whichever is slower; every later
    loss's repair is counted
    on its own segment. A persistent connection's later responses are separate bursts,
    so a loss in an early response slows all later ones until the window is back; the steady state runs to the
    end of the response the loss hit (:mod:`latency_lab.analysis.expected_loss` gives each run that rest), and the
    responses after it go at the steady rate (:func:`carried_ms`, :func:`latency_lab.mechanisms.loss.carried_ms`: the
    window a loss left carries over, issue 29), so only the flow's first loss slows a later response.

Head of line (h2 vs h3): HTTP/2's streams share one TCP byte stream, so a lost segment holds back every
byte after it, of every stream, until it is repaired (RFC 9114 1.2; RFC 9113 5): the page waits the whole
``C``. HTTP/3's streams are independent (RFC 9000 2.2: a stream's data is ordered only within that stream),
so a loss holds back only its own stream: the page waits ``max(0, C - slack)``, where ``slack`` is how long
before the page's last byte that stream's object ended in the schedule (0 for the HTML, whose arrival
starts the other requests, and for handshake packets). ``head_of_line_ms`` reports the time the *other*
streams in flight wait behind the loss, :func:`latency_lab.mechanisms.loss.head_of_line_ms` (``C (n - 1)`` on TCP, 0 on QUIC),
weighted the same way: a stream-time, not part of the page's extra time. Both transports also shrink their
window after a loss (RFC 5681 3.2, RFC 9002 7.3.2): TCP to one segment after a timeout, QUIC to half, and
QUIC's congestion avoidance counts bytes (one packet a window), TCP's ACKs; both are in the slower sending
(whole page, not per stream).

Chains of work: the page's path is one chain (its losses add up); every other connection on the lossy link is
a chain of its own with a slack, its total float in the lossless schedule; a delay ``D`` on it delays the
page by ``max(D - slack, 0)``. The page waits for the latest chain, so per page the extra time is
``E[max(X_path, max_c (X_c - slack_c)^+)]`` over independent chains (:func:`max_terms`; each chain's delay as
its long part, the timeouts, and its short part, about an RTT each, two independent two-point variables with
the chain's expected delays, :func:`chain_atoms`); pages follow each other, so their extra times add.

Slots (http10_parallel, issue 29): the client hands the next object to whichever connection frees first, so a delay
on one connection is not its slot's alone: the objects after it go to the other slots. The chains above are then
replaced by a list schedule's work shared over the ``k`` slots (:func:`slot_shares`): the HTML's connection in
full, every other connection's expected delay over ``k``, and the expectation of the latest object past its share.

This module is the readable reference and the symbolic path (sympy expressions flow through :func:`chain_atoms`,
:func:`max_terms` and :func:`slot_chains`). The native engine costs its own runs with a copy of :func:`expected` and
the closed forms of :mod:`latency_lab.mechanisms.loss` it calls, in C++ (``latency_lab/engine/native/loss_recovery.cpp``, numbers
only, statement for statement in the same order); ``tests/latency_lab/engine/test_native_loss_recovery.py`` holds the two
equal on every key of the block (bit for bit on every preset and 2,000 random lossy scenarios, 2026-11-29).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from latency_lab.mechanisms import loss

#: QUIC's probe timeout before an RTT sample (ms): ``3 kInitialRtt`` (RFC 9002 6.2.2, ``kInitialRtt = 333 ms``).
QUIC_INITIAL_PTO_MS = 999.0

#: The causes of the expected extra time, keys of ``by_cause_ms``.
CAUSES = ("handshake", "timeouts", "fast_retransmit", "slower_sending")


# not frozen (hashed by value all the same, never changed once made): a frozen dataclass's __init__ sets each of the 17
# fields through object.__setattr__, ten times as slow, and a lossy Microscape prediction makes about 750 runs
@dataclass(slots=True, unsafe_hash=True)
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
    # TCP, several losses: the rest of the connection's data in the page after the run's round (segments) and
    # how long the lossless schedule took to send it (ms), for the steady state (:func:`steady_ms`)
    rest: int = 0
    rest_ms: float = 0.0
    page: int = 0  # the page (of session.pages) the segments belong to
    # TCP: the sender's retransmission timeout when the segments left (ms): RFC 6298's estimator on the schedule's
    # own round trips with the profile's minimum (latency_lab.mechanisms.rto); 0: the structure's ``rto``
    rto: float = 0.0
    # TCP: the flow's data in the page after the response the run is in, up to a restart (segments), and how long the
    # lossless schedule took to send it (ms: each later burst from its first segment's leaving to its last one's
    # arrival): after the flow's first loss it goes at the steady rate (:func:`carried_ms`)
    carry: int = 0
    carry_ms: float = 0.0
    carry_n: int = 0


@dataclass(frozen=True, slots=True)
class Parallel:
    """A connection on the lossy link off the page's path (http10_parallel's other connections)."""

    conn: int
    syns: int  # SYN exchanges
    runs: tuple[Run, ...]
    slack: float  # its total float: how long before the page's end its latest dependent object ended (ms)
    page: int = 0  # the page it serves
    lead: bool = False  # in Structure.slot_chains: the page's first connection (its HTML), before the slots

    @property
    def packets(self) -> int:
        """Packets whose loss is costed: the SYN and SYN-ACK of each exchange and every data segment."""
        return 2 * self.syns + sum(r.count for r in self.runs)


@dataclass(frozen=True, slots=True)
class Structure:
    """What the closed form needs from one protocol's schedule."""

    syns: int  # SYN exchanges on the page's path
    runs: tuple[Run, ...]
    rtt: float  # ms
    rto: float  # TCP retransmission timeout before any round-trip sample (ms): the runs carry their own
    ack_delay: float  # QUIC max_ack_delay (ms)
    connections: tuple[int, ...]  # connections on the page's path (on the lossy link)
    independent_streams: bool  # QUIC (h3)
    segments: int
    dack: float = 0.0  # the receiver's delayed-ACK timeout (ms)
    others: tuple[Parallel, ...] = ()  # connections on the lossy link off the page's path
    page_syns: tuple[int, ...] = ()  # SYN exchanges on the page's path, page by page
    w_max: float = 44.0  # the receive window (segments): the steady state's cap
    ack_segments: int = 2  # segments per ACK (delayed ACK's b) in the steady state
    # http10_parallel (issue 29): the slots sharing the page's objects (http.parallel_connections; 0: no sharing) and
    # every object connection of each page in the order they opened, each with its own runs and SYN exchanges: first
    # the page's HTML connection (lead), then the slots' connections (jobs), each with ``slack`` the float of its own
    # object (how long before the page's end it ended, ms), not its total float (see :func:`slot_shares`)
    slots: int = 0
    slot_chains: tuple[Parallel, ...] = ()


@dataclass(frozen=True, slots=True)
class Growth:
    """How a sender's window grows per round (segments), from the TCP profile or QUIC's rules."""

    ack_segments: int  # segments per ACK (delayed ACK: b)
    abc_limit: int  # segments slow start adds per ACK at most (RFC 3465's L), counting bytes
    quic: bool  # QUIC: windows count bytes (RFC 9002 7.3.1, 7.3.3)
    # how slow start counts what an ACK acknowledges, the profile's rule (latency_lab.scenario.profiles, cwnd_counting):
    # "acks" one segment an ACK, "bytes" the full segments acknowledged up to abc_limit, "packets" every packet
    counting: str = "bytes"


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
        if g.quic or g.counting == "packets":  # every acknowledged packet (Linux tcp_slow_start adds ``acked``)
            add: float = sent
        elif g.counting == "bytes":
            add = acks * min(per_ack, g.abc_limit)
        else:  # "acks": one segment an ACK (4.4BSD)
            add = acks
        return min(c + add, max(ssthresh, c + 1))
    return c + (sent / c if g.quic else acks / c)


def penalty(rest: Sequence[list[int]], c: float, ssthresh: float, g: Growth) -> tuple[int, int]:
    """Extra rounds and extra delayed-ACK waits to send the rest of a connection's data from window ``c``.

    ``rest`` holds, per burst of the lossless schedule (data the sender had without waiting for its peer:
    one response on a persistent connection, all pipelined responses), the segments of each of its
    rounds. Lossless, a burst takes ``len(rounds)`` rounds; after a loss the sender starts from ``c``
    (``ssthresh`` above it) and needs as many rounds as :func:`_grow` allows. A round of fewer than ``b``
    segments with more of the burst to follow waits for the receiver's delayed-ACK timer (a stall). Each
    burst's extra is counted if positive, until the window is back where the lossless schedule had it: the burst
    took no more rounds than lossless and the window holds the largest round of it and of every burst after it (a
    loss in a response's last full round leaves a window that sends its small last round in time, not the next
    responses' full rounds: ns-3, persistent 10 x 20 KB at p 0.005, 2026-11-29).
    Cardwell et al. 2000, 3.2 and 3.4 (the window after a loss and its growth), RFC 5681 3.1-3.2."""
    rounds = stalls = 0
    peak = [0] * (len(rest) + 1)  # the largest round of each burst and of every burst after it
    for v in range(len(rest) - 1, -1, -1):
        peak[v] = max(peak[v + 1], max(rest[v], default=0))
    for v, burst in enumerate(rest):
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
        if r1 <= r0 and s1 <= s0 and c >= peak[v]:
            break
        rounds += max(r1 - r0, 0)
        stalls += max(s1 - s0, 0)
    return rounds, stalls


def _cost_parts(st: Structure, run: Run, p: float) -> tuple[float, float]:
    """A run's loss cost split (timeout part, fast part) in ms, before weighting and slack."""
    if run.quic:
        pto = QUIC_INITIAL_PTO_MS if run.initial_pto else 3 * st.rtt + st.ack_delay
        return pto / run.w, (1 - 1 / run.w) * st.rtt
    q = loss.repair_timeout_probability(p, run.follow)
    return q * loss.timeout_ms(p, run_rto(st, run)), (1 - q) * st.rtt


def run_rto(st: Structure, run: Run) -> float:
    """The retransmission timeout a TCP run's loss waits for (ms): the sender's when the run left (RFC 6298's
    estimator on the schedule's own round trips, the profile's minimum), else the structure's initial one."""
    return run.rto if run.rto > 0 else st.rto


def _penalty_parts(st: Structure, run: Run, p: float) -> tuple[float, float]:
    """A run's slower sending after its loss (ms): (after a timeout, after a fast repair), each weighted
    by how likely that repair is (``Q``; QUIC's window reduction does not depend on how the loss was found)."""
    after_to = run.to_rounds * st.rtt + run.to_stalls * st.dack
    after_fr = run.fr_rounds * st.rtt + run.fr_stalls * st.dack
    if run.quic:
        return 0.0, after_fr
    q = loss.repair_timeout_probability(p, run.follow)
    return q * after_to, (1 - q) * after_fr


def steady_ms(st: Structure, run: Run, p: float) -> float:
    """The slower sending after a TCP run's loss when more losses follow (ms): the rest of the connection's data
    sent as Padhye et al. 1998's periods of congestion avoidance from the window the loss halved
    (:func:`latency_lab.mechanisms.loss.after_loss_ms`, their repairs included), less the time the lossless schedule
    took for it and less the repairs of the rest's own expected losses (counted as their runs' timeouts and
    fast retransmits): ``T_after(rest, w) - rest_ms - rest p C``, ``C`` this run's repair cost. Cardwell,
    Savage & Anderson 2000, 3.4: after the first loss a transfer goes on in congestion avoidance, losing
    again. Negative where the rest is too short for more losses: one halving's regrowth (:func:`penalty`)
    is then the slower sending."""
    timeouts, fast = _cost_parts(st, run, p)
    # the periods' timeouts at the connection's initial RTO (st.rto), not each run's: the periods are evaluated once
    # per starting window and RTO (lru_cache), and an RTO that changes with every sample (bsd with a 1 ms minimum)
    # made a cold lossy page evaluate them 1,928 times (4.4 s of CPU, bench/worst_case.py, 2026-11-27)
    after = loss.after_loss_ms(p, run.rest, run.w, st.rtt, st.rto, st.ack_segments, st.w_max)
    return after - run.rest_ms - run.rest * p * (timeouts + fast)


def carried_ms(st: Structure, run: Run, p: float) -> float:
    """The slower sending of the responses after the one a TCP run's loss hit, on the same connection, when it is the
    flow's first loss (ms): :func:`latency_lab.mechanisms.loss.carried_ms` of the run's :attr:`Run.carry`,
    :attr:`Run.carry_ms` and :attr:`Run.carry_n` (its steady state at the connection's initial RTO, as
    :func:`steady_ms`'s periods). 0 for QUIC (its streams' windows are not followed across responses here)."""
    if not run.carry or p <= 0 or run.quic:
        return 0.0
    return loss.carried_ms(p, run.carry, run.carry_ms, run.carry_n, st.rtt, st.rto, st.ack_segments, st.w_max)


def _parts(st: Structure, syns: int, runs: tuple[Run, ...], p: float) -> tuple[dict[str, float], float]:
    """The expected extra time of some connections' SYN exchanges and runs by cause, and their head of line
    (ms), costed against the lossless schedule and summed (losses on one chain of work add up)."""
    by = dict.fromkeys(CAUSES, 0.0)
    by["handshake"] = syns * loss.handshake_extra_ms(p)
    hol = 0.0
    for run in runs:
        weight = loss.expected_losses(p, run.count)
        timeouts, fast = _cost_parts(st, run, p)
        cost = timeouts + fast
        if cost <= 0:
            continue
        page = max(cost - run.slack, 0.0)  # h3: only the stream waits; its slack absorbs part of it
        by["timeouts"] += weight * timeouts * page / cost
        by["fast_retransmit"] += weight * fast * page / cost
        first = (1 - p) ** run.burst_before * loss.loss_probability(p, run.count)
        slower = sum(_penalty_parts(st, run, p))
        if (run.rest or run.carry) and p > 0 and not run.quic:  # more losses: congestion avoidance, if slower
            slower = max(slower, (steady_ms(st, run, p) if run.rest else 0.0) + carried_ms(st, run, p))
        by["slower_sending"] += first * slower
        hol += weight * loss.head_of_line_ms(cost, run.streams, st.independent_streams)
    return by, hol


#: The causes of the long delays (a timeout: ``T_0`` or the SYN timeout, about a second) and of the short ones
#: (about an RTT each), kept apart when chains of work race to the page's end (:func:`chain_atoms`).
LONG_CAUSES = ("handshake", "timeouts")
SHORT_CAUSES = ("fast_retransmit", "slower_sending")


def _timeout_chance(st: Structure, run: Run, p: float) -> float:
    """Probability that one segment of a run is lost and waits for a timeout (TCP: ``q``, fewer than three
    duplicate ACKs or a lost fast retransmission, :func:`latency_lab.mechanisms.loss.repair_timeout_probability`; QUIC's probe timeout: a
    tail packet, one in ``w``): ``p q``."""
    return p / run.w if run.quic else p * loss.repair_timeout_probability(p, run.follow)


def chances(st: Structure, syns: int, runs: tuple[Run, ...], p: float) -> tuple[float, float]:
    """Probabilities that a chain of work has at least one long delay and at least one short one.

    Long: a SYN exchange fails (``q_s = 1 - (1-p)^2`` each) or a segment is lost and waits for a timeout
    (``p q``, :func:`_timeout_chance`): ``1 - (1 - q_s)^syns prod_segments (1 - p q)``. Short: any of its data
    segments is lost (a fast repair, and the slower sending after it): ``1 - (1 - p)^segments``. Each
    packet independently (Cardwell et al. 2000, 3.1 and 3.3; Padhye et al. 1998 for ``Q_m``)."""
    none = (1 - loss.loss_probability(p, 2)) ** syns
    for run in runs:
        none *= (1 - _timeout_chance(st, run, p)) ** run.count
    return 1 - none, loss.loss_probability(p, sum(r.count for r in runs))


def chain_atoms(mu_long: Any, pi_long: Any, mu_short: Any, pi_short: Any, slack: Any) -> list[tuple[Any, Any]]:
    """A chain of work's delay past the page's end as atoms ``(value - slack, probability)`` (ms, -).

    The chain's delay is ``L + S``: ``L`` its long delays (timeouts), ``D_L = mu_L / pi_L`` with probability
    ``pi_L`` and 0 otherwise, ``S`` its short ones (about an RTT), ``D_S = mu_S / pi_S`` with probability
    ``pi_S``, independent; ``D`` is the mean delay given one, so ``E[L + S] = mu_L + mu_S``, the chain's
    expected delay. Keeping the two apart keeps a timeout at its size where the page waits for the latest
    of several chains (the maximum is convex: one average delay would understate it, Jensen's inequality).
    Works for numbers and sympy expressions; the atom "no delay" (``-slack``) never counts and is left out."""
    d_long = mu_long / pi_long if pi_long != 0 else 0.0
    d_short = mu_short / pi_short if pi_short != 0 else 0.0
    return [
        (d_long + d_short - slack, pi_long * pi_short),
        (d_long - slack, pi_long * (1 - pi_short)),
        (d_short - slack, (1 - pi_long) * pi_short),
    ]


Atoms = list[tuple[Any, Any]]


def _max_shares(chains: list[tuple[Atoms, int]], step: Any, pos: Any) -> list[Any]:
    """:func:`max_terms` for numbers or sympy expressions: ``step(y, x, tie)`` is the indicator of ``y > x``
    (``y >= x`` with ``tie``), ``pos(x)`` is ``max(x, 0)``."""

    def after(j: int, k: int, a: int) -> Any:
        """Probability that one copy of chain ``j`` takes an atom after ``(k, a)`` (or ``(k, a)`` itself)."""
        x = chains[k][0][a][0]
        return 1 - sum(pb * step(y, x, (j, b) < (k, a)) for b, (y, pb) in enumerate(chains[j][0]) if (j, b) != (k, a))

    out: list[Any] = []
    for k, (atoms, m) in enumerate(chains):
        share: Any = 0
        for a, (x, pr) in enumerate(atoms):
            c = after(k, k, a)
            term = pos(x) * (c**m - (c - pr) ** m)
            for j, (_, mj) in enumerate(chains):
                if j != k:
                    term *= after(j, k, a) ** mj
            share += term
        out.append(share)
    return out


def max_terms(chains: list[tuple[Atoms, int]]) -> list[float]:
    """Each group of chains' share of ``E[max_k (X_k - s_k)^+]`` (ms), the page's expected delay when it waits
    for the latest of independent chains of work, each given as atoms (:func:`chain_atoms`) with the number
    ``m`` of identical chains (same segments, same slack) in its group.

    Order all atoms by value, descending (ties to the lower index). The maximum is atom ``(k, a)``'s value
    ``u_ka`` exactly when the latest of group ``k``'s ``m_k`` copies takes it and every copy of every other
    group takes an atom after it: with ``A_j(k, a)`` the probability that one copy of ``j`` takes an atom
    after ``(k, a)`` (``(k, a)`` itself counted for ``j = k``),
    ``E[max] = sum_k sum_a u_ka^+ (A_k^m_k - (A_k - P_ka)^m_k) prod_{j != k} A_j^m_j``: the expectation of the
    largest of independent discrete variables, whose distribution is the product of theirs, ``P(max <= x) =
    prod_j P(X_j <= x)`` (``F^m`` for ``m`` independent copies; independent events multiply). With one chain
    it is its own ``E[(X - s)^+]``; it is at least every chain's and at most their sum."""

    # the same sum in one pass down the atoms in that order (the pairwise form, :func:`_max_shares`, is quadratic in the
    # chains: a page of 43 objects at 1 % loss on a LAN spent 30 ms in it): ``B_j`` the mass of chain ``j``'s atoms
    # already passed, so ``A_j = 1 - B_j``; the product over the chains kept with its zero factors counted apart
    order = sorted(
        ((x, k, a, pr) for k, (atoms, _) in enumerate(chains) for a, (x, pr) in enumerate(atoms)),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    passed = [0.0] * len(chains)
    prod, zeros = 1.0, 0
    out = [0.0] * len(chains)
    for x, k, _a, pr in order:
        if x <= 0:
            break
        m = chains[k][1]
        left = 1 - passed[k]
        if left == 0:
            others = prod if zeros == 1 else 0.0
        else:
            others = 0.0 if zeros else prod / left**m
        out[k] += x * (left**m - (left - pr) ** m) * others
        if left == 0:
            zeros -= 1
        else:
            prod /= left**m
        passed[k] += pr
        if 1 - passed[k] == 0:
            zeros += 1
        else:
            prod *= (1 - passed[k]) ** m
    return out


Chain = tuple[int, tuple[Run, ...], float]  # a chain of work: SYN exchanges, runs, slack (ms)


def _page_groups(st: Structure) -> list[list[tuple[Chain, int]]]:
    """The chains of work of each page, each with how many identical ones it stands for: first the page's
    path (its SYN exchanges and runs, slack 0), then the other connections serving it, identical ones (same
    segments, same slack) together. Pages follow one another, so their delays add."""
    out = []
    for g, syns in enumerate(st.page_syns or (st.syns,)):
        path: Chain = (syns, tuple(r for r in st.runs if r.page == g), 0.0)
        same: dict[Chain, int] = {}
        for o in st.others:
            if o.page == g:
                same[(o.syns, o.runs, o.slack)] = same.get((o.syns, o.runs, o.slack), 0) + 1
        out.append([(path, 1), *same.items()])
    return out


def slot_pages(st: Structure) -> list[tuple[list[Parallel], list[Parallel]]]:
    """Each page's HTML connection(s) (:attr:`Parallel.lead`) and its slots' connections in the order they opened, from
    :attr:`Structure.slot_chains`."""
    pages = max((c.page for c in st.slot_chains), default=-1) + 1
    out: list[tuple[list[Parallel], list[Parallel]]] = [([], []) for _ in range(pages)]
    for c in st.slot_chains:
        out[c.page][0 if c.lead else 1].append(c)
    return out


def slot_chains(jobs: list[Any], k: int, scale: Any) -> list[tuple[Any, Any]]:
    """The slot phase's chains for :func:`slot_shares`, numbers or sympy alike: ``jobs`` each ``(mu_long, pi_long,
    mu_short, pi_short, own_slack, x)`` in the order the connections opened (``x`` the job's expected delay), ``k`` the
    slots, ``scale`` ``1 - 1/k``. Each job's atoms (:func:`chain_atoms`) scaled by ``1 - 1/k`` with slack
    ``s_j + sum_{i > j} x_i / k``; ``(index, atoms)``."""
    out = []
    later: Any = 0
    for j in range(len(jobs) - 1, -1, -1):
        mu_long, pi_long, mu_short, pi_short, own, x = jobs[j]
        atoms = chain_atoms(scale * mu_long, pi_long, scale * mu_short, pi_short, own + later / k)
        out.append((j, atoms))
        later = later + x
    out.reverse()
    return out


def slot_shares(st: Structure, p: float) -> dict[str, float]:
    """The expected extra time of http10_parallel's pages by cause (ms), the slots sharing the objects (issue 29).

    The client hands each object to whichever of its ``k`` connections frees first (a list schedule, Graham 1969), so
    a delay ``D_j`` on the connection of object ``j`` (opened ``j``-th) pushes the objects after it onto the other
    slots: the page ends when the last slot does, about the later of the *balanced* end, every delay spread over the
    ``k`` slots, and the end of one object whose delay outlasts the work queued after it. Against the lossless
    schedule, per page, with ``X`` the expected delays (:func:`_parts`) and ``s_j`` the float of object ``j``'s own
    connection (how long before the page's end it ended):

    ``extra = X_lead + sum_j X_j / k + E[max_j ((1 - 1/k) D_j - s_j - sum_{i > j} X_i / k)^+]``

    (object ``j`` ends the page when its delay beyond its share ``D_j / k`` outlasts its float and the later
    objects' shares: :func:`max_terms` over each job's atoms (:func:`chain_atoms`) scaled by ``1 - 1/k``). The HTML's
    connection (the lead) comes before the slots and counts in full. With one slot it is the sum of the delays; with
    one object that object's expected delay. Jobs whose every atom is within its slack cannot end the page and are
    left out (exact: they change no term). Each job's share split over the causes as its own delay. Against ns-3's
    traces (30 x 2 KB, RTT 100 ms, p 0.05, 100 seeds) a list schedule of the measured per-object delays gives the
    measured mean page time within 1 %; a model of independent chains with their total float was 19-22 % under.
    """
    by = dict.fromkeys(CAUSES, 0.0)
    k = max(st.slots, 1)
    for leads, jobs in slot_pages(st):
        for c in leads:
            b = _parts(st, c.syns, c.runs, p)[0]
            for cause in CAUSES:
                by[cause] += b[cause]
        parts = [_parts(st, c.syns, c.runs, p)[0] for c in jobs]
        rows = []
        for c, b in zip(jobs, parts, strict=True):
            for cause in CAUSES:
                by[cause] += b[cause] / k
            long_, short = chances(st, c.syns, c.runs, p)
            mu_long = sum(b[x] for x in LONG_CAUSES)
            mu_short = sum(b[x] for x in SHORT_CAUSES)
            rows.append((mu_long, long_, mu_short, short, c.slack, mu_long + mu_short))
        live = [(j, atoms) for j, atoms in slot_chains(rows, k, 1 - 1 / k) if any(x > 0 for x, _ in atoms)]
        if not live:
            continue
        terms = max_terms([(atoms, 1) for _, atoms in live])
        for t, (j, _) in zip(terms, live, strict=True):
            total = sum(parts[j].values())
            if t > 0 and total > 0:
                for cause in CAUSES:
                    by[cause] += t * parts[j][cause] / total
    return by


def expected(st: Structure, p: float, page_load_ms: float) -> dict[str, Any]:
    """The ``expected_with_loss`` block of a result: numbers from the closed forms (ms).

    With connections off the page's path (:attr:`Structure.others`), the page's path is one chain of work
    (its losses add up, slack 0) and each other connection another (slack: its total float); the extra
    time is the expectation of the latest (:func:`max_terms`), each chain's share split over the causes in
    the proportions of its own expected delay."""
    by, hol = _parts(st, st.syns, st.runs, p)
    if st.slot_chains and p > 0:
        by = slot_shares(st, p)
    elif st.others and p > 0:
        by = dict.fromkeys(CAUSES, 0.0)
        for group in _page_groups(st):
            parts = [_parts(st, syns, runs, p)[0] for (syns, runs, _), _ in group]
            if len(group) == 1:  # the path alone: its expected delay
                by = {cause: by[cause] + parts[0][cause] for cause in CAUSES}
                continue
            chains: list[tuple[Atoms, int]] = []
            for ((syns, runs, slack), m), b in zip(group, parts, strict=True):
                long_, short = chances(st, syns, runs, p)
                mu_long = sum(b[c] for c in LONG_CAUSES)
                mu_short = sum(b[c] for c in SHORT_CAUSES)
                chains.append((chain_atoms(mu_long, long_, mu_short, short, slack), m))
            terms = max_terms(chains)
            for t, b in zip(terms, parts, strict=True):
                if t > 0:
                    for cause in CAUSES:
                        by[cause] += t * b[cause] / sum(b.values())
    return assemble(p, page_load_ms, by, sum(by.values()), hol, list(st.connections), st.segments,
                    st.independent_streams)  # fmt: skip


def assemble(
    p: float,
    page_load_ms: float,
    by: dict[str, Any],
    extra: Any,
    hol: Any,
    connections: list[int],
    segments: int,
    independent_streams: bool,
) -> dict[str, Any]:
    """The ``expected_with_loss`` block from its numbers: :func:`expected`'s, or the native engine's costing of the same
    (``latency_lab/engine/native/loss_recovery.cpp``, :mod:`latency_lab.analysis.native`); ``extra`` the sum of ``by``'s values."""
    return {
        "loss_rate": p,
        "page_load_ms": page_load_ms + extra,
        "extra_ms": extra,
        "by_cause_ms": by,
        "head_of_line_ms": hol,
        "connections": connections,
        "segments": segments,
        "assumptions": ASSUMPTIONS_QUIC if independent_streams else ASSUMPTIONS_TCP,
    }


ASSUMPTIONS_TCP = (
    "Expected value, not a schedule: each packet lost independently with probability loss_rate. Per "
    "connection the page waited for, a lost SYN or SYN-ACK waits the 1 s SYN timeout (Cardwell et al. 2000, "
    "3.1); every lost data segment costs a timeout with backoff, if fewer than three segments follow it, or a "
    "fast retransmit (Cardwell 3.3, Padhye et al. 1998), and the first loss of a burst makes the rest of the "
    "connection's data go from a halved window (from one segment after a timeout) in more rounds (Cardwell "
    "3.4), or, where more losses follow, in Padhye et al.'s periods of congestion avoidance at their "
    "steady rate (eq. (31)) if that is slower; a lost fast retransmission waits for the timeout (RFC 6582). "
    "Every stream of the TCP connection waits for the repair. A parallel connection off the page's path delays the page by its delay past its "
    "slack before the page's end; the page waits for the latest of the connections. HTTP/1.0 in parallel: the "
    "next object goes to whichever connection frees first, so the objects' delays are shared over the connections "
    "and the page waits for the later of that and one object's delay past its share."
)
ASSUMPTIONS_QUIC = (
    "Expected value, not a schedule: each packet lost independently with probability loss_rate; every lost "
    "packet is found by a later acknowledgement (about an RTT) or, for a tail packet, by the probe timeout "
    "(RFC 9002 6.1, 6.2; 999 ms before an RTT sample), and the first loss of a burst halves the window for "
    "the rest of the connection's data (7.3.2). Only the lost packet's stream waits for the repair (RFC 9000 "
    "2.2): an object that ended earlier than the page's last byte hides its delay up to that margin."
)
