"""Random loss: its expected cost in closed form, added to the lossless schedule and labelled as such.

The schedule (:mod:`latency_lab.engine.core`) has no loss. With a loss rate ``p`` per packet, independent, the
short-transfer TCP latency literature gives the expected extra time in closed form; the model adds it to
its deterministic page load time as an **expected value** (``expected_with_loss`` in a result), never to the
schedule, its breakdown or its formula. Per connection on the page's path:

- handshake (Cardwell, Savage & Anderson 2000, "Modeling TCP latency", 3.1): a lost SYN or SYN-ACK waits the
  initial SYN timeout ``T_s`` (1 s, RFC 6298 5.7; 3 s in the paper), doubling on repeats:
  ``E[T_hs] - RTT = T_s q / (1 - 2 q)``, ``q = 1 - (1-p)^2`` (:func:`handshake_extra_ms`);
- data (Cardwell et al. 3.3, the first loss): a flow of ``d`` segments loses one with probability
  ``l = 1 - (1 - p)^d``; it is recovered by a timeout with probability ``Q(p, w)`` (Padhye, Firoiu, Towsley &
  Kurose 1998, eq. for ``Q^(w)``: too few segments follow it in a window of ``w`` for three duplicate ACKs),
  costing ``E[Z_TO] = T_0 (1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6) / (1 - p)`` (backed-off timeouts),
  else by fast retransmit, about one RTT: ``E[T_loss] = l (Q E[Z_TO] + (1 - Q) RTT)`` (:func:`data_extra_ms`).
  (:func:`data_extra_ms` is this first-loss form; :mod:`latency_lab.analysis.expected_loss` counts every loss, ``d p``
  (:func:`expected_losses`), with the timeout chance at the segment's place (:func:`position_timeout_probability`)
  and the slower sending after it.)
- several losses in one transfer (Padhye et al. 1998's periods of congestion avoidance, each ending in a
  loss: :func:`steady_window`, :func:`steady_throughput` (their eq. (31)), followed from the window a loss
  halved by :func:`after_loss_ms`); Cardwell et al.'s whole latency for comparison, :func:`cardwell_latency_ms`.

QUIC (RFC 9002) detects a loss from any later acknowledged packet (packet threshold 3 or time threshold
9/8 RTT), so only a lost tail packet waits for the probe timeout ``PTO = RTT + 4 RTT/2 + max_ack_delay``
(6.2.1 with the first sample's ``rttvar = RTT/2``); QUIC has no SYN (its handshake packets are covered by
the PTO too, counted as data here). Head of line: HTTP/2 delivers nothing after a lost TCP segment until
it is repaired, so every other stream in flight waits as long; HTTP/3's streams are independent, so only
the lost packet's stream waits (:func:`head_of_line_ms`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable

import sympy

#: Initial SYN retransmission timeout (ms): 1 s (RFC 6298, 2.1 and 5.7).
SYN_TIMEOUT_MS = 1000.0


def handshake_extra_ms(p: float, syn_timeout_ms: float = SYN_TIMEOUT_MS) -> float:
    """Expected extra handshake time from lost SYNs or SYN-ACKs (ms): ``T_s q / (1 - 2q)``.

    Cardwell et al. 2000, 3.1: ``E[T_hs] = RTT + T_s ((1 - q)/(1 - 2q) - 1)``, ``q < 1/2``, where ``q`` is the
    probability that one attempt fails: its SYN or its SYN-ACK is lost, ``q = 1 - (1 - p)^2`` for a loss rate
    ``p`` per packet (each failure waits ``T_s``, doubling). ``p`` up to 0.29.
    """
    q = 1 - (1 - p) ** 2
    return syn_timeout_ms * q / (1 - 2 * q)


def loss_probability(p: float, segments: int) -> float:
    """Probability that a flow of ``d`` segments loses at least one: ``1 - (1 - p)^d`` (Cardwell 3.3)."""
    return 1 - (1 - p) ** segments


def expected_losses(p: float, segments: int) -> float:
    """Expected number of losses among ``d`` segments: ``d p`` (Cardwell 3.4 counts the losses of the whole
    transfer this way, ``p`` per packet sent, not only the first)."""
    return segments * p


def timeout_probability(p: float, w: float) -> float:
    """Probability a loss in a window of ``w`` segments is recovered by a timeout (dimensionless).

    ``Q(p, w) = min(1, (1 + (1-p)^3 (1 - (1-p)^(w-3))) / ((1 - (1-p)^w) / (1 - (1-p)^3)))``, and 1 for
    ``w <= 3`` (too few segments for three duplicate ACKs). Padhye et al. 1998, eq. (25).
    """
    if w <= 3 or p <= 0:
        return 1.0 if w <= 3 else 0.0
    # 1 - (1-p)^n as -expm1(n log1p(-p)): exact for tiny rates too (at p = 1e-127, 1 - p is 1.0 in floats and the
    # quotient was 0/0; its limit is 3 / w)
    lg = math.log1p(-p)
    a3 = math.exp(3 * lg)
    q = (1 - a3 * math.expm1((w - 3) * lg)) * -math.expm1(3 * lg) / -math.expm1(w * lg)
    return float(min(1.0, q))


def position_timeout_probability(p: float, m: int) -> float:
    """Probability a lost segment followed by ``m`` others of its flow (sent before its loss could be seen) is
    recovered by a timeout: fewer than three of them arrive to make three duplicate ACKs (dimensionless).

    ``Q_m(p) = sum_{j=0}^{2} C(m, j) (1-p)^j p^(m-j)``, 1 for ``m < 3``. Padhye et al. 1998, eq. (25)'s case
    analysis (three duplicate ACKs or a timeout) for a loss at a known place instead of averaged over a
    window: in a burst only its last segments time out, whatever the window (Cardwell et al. 2000, 3.3)."""
    if m < 3:
        return 1.0
    return float(sum(math.comb(m, j) * (1 - p) ** j * p ** (m - j) for j in range(3)))


@functools.lru_cache(maxsize=4096)  # called per run, a few times each, with few distinct (p, m): a lossy page's costing
def repair_timeout_probability(p: float, m: int) -> float:
    """Probability that a lost TCP segment followed by ``m`` others of its flow is repaired only by a timeout
    (dimensionless): ``1 - (1 - Q_m)(1 - p)``.

    Fewer than three duplicate ACKs come (``Q_m``, :func:`position_timeout_probability`; Padhye et
    al. 1998, eq. (25)'s case analysis), or they come and the fast retransmission (or NewReno's retransmission
    on a partial ACK) is itself lost, with probability ``p``: without SACK nothing but the retransmission
    timer finds a lost retransmission (RFC 6582 3.2; RFC 5681 3.2; RFC 6298 5), so the repair waits
    for the timeout, with backoff, as a timeout's own retransmissions do in Padhye's ``E[Z_TO]`` (eq. (27)).
    Where the timeout is fifty RTTs (RTO 1 s, RTT 20 ms) this second loss costs more than the fast repair."""
    q = position_timeout_probability(p, m)
    return 1 - (1 - q) * (1 - p)


def timeout_ms(p: float, rto_ms: float) -> float:
    """Expected duration of a timeout sequence with backoff (ms): ``T_0 f(p) / (1 - p)``,
    ``f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6``. Padhye et al. 1998, eq. (27)."""
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    return rto_ms * f / (1 - p)


def steady_window(p: float, b: int) -> float:
    """Padhye et al. 1998's expected window at the end of a triple-duplicate period of congestion avoidance
    (segments): ``E[W] = (2 + b)/(3b) + sqrt(8 (1 - p)/(3 b p) + ((2 + b)/(3b))^2)``, ``b`` segments per ACK.

    The window grows by ``1/b`` a round and halves at each loss indication; a period carries ``1/p``
    segments on average (Padhye, Firoiu, Towsley & Kurose 1998, "Modeling TCP throughput", eq. (13) and the
    ``E[W]`` before eq. (14))."""
    k = (2 + b) / (3 * b)
    return k + math.sqrt(8 * (1 - p) / (3 * b * p) + k * k)


def steady_throughput(p: float, rtt_ms: float, rto_ms: float, b: int, w_max: float) -> float:
    """TCP's steady-state send rate under random loss, triple duplicates and timeouts (segments per ms).

    Padhye et al. 1998, eq. (31) (the "full model"), with ``E[W]`` from :func:`steady_window`,
    ``Q = Q(p, w)`` (:func:`timeout_probability`) and ``f(p) = 1 + p + 2p^2 + ... + 32p^6`` (:func:`timeout_ms`):

    - ``E[W] < W_max``: ``((1-p)/p + E[W] + Q/(1-p)) / (RTT (b E[W]/2 + 1) + Q T_0 f(p)/(1-p))``;
    - else (the receive window caps it): ``((1-p)/p + W_max + Q/(1-p)) / (RTT (b W_max/8 + (1-p)/(p W_max) + 2)
      + Q T_0 f(p)/(1-p))`` with ``Q = Q(p, W_max)``.

    Numerator: segments sent per loss indication (``1/p`` until the loss, the rest of that round, and
    ``1/(1-p)`` during a timeout sequence); denominator: the time between indications (rounds of one RTT,
    timeouts with backoff). ``p`` in (0, 1)."""
    w = steady_window(p, b)
    timeouts = rto_ms * (1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6) / (1 - p)
    if w < w_max:
        q = timeout_probability(p, w)
        return ((1 - p) / p + w + q / (1 - p)) / (rtt_ms * (b * w / 2 + 1) + q * timeouts)
    q = timeout_probability(p, w_max)
    rounds = b * w_max / 8 + (1 - p) / (p * w_max) + 2
    return ((1 - p) / p + w_max + q / (1 - p)) / (rtt_ms * rounds + q * timeouts)


#: Periods of congestion avoidance after a loss followed one by one (:func:`after_loss_ms`) before the steady rate:
#: the window's distance from its steady value shrinks about fourfold a period (``W' = sqrt(W^2/4 + 2/(bp))``).
TRANSIENT_PERIODS = 3
#: :func:`after_loss_ms` follows the window a period's loss meets in bins of one segment up to this window, then
#: in bins ``BIN_RATIO`` times wider (above it a loss is followed by enough segments for three duplicate ACKs:
#: its timeout chance is about ``p``, flat), and keeps the windows the next periods start from to half a segment
#: up to it and ``BIN_RATIO`` apart above; mass beyond ``(1 - p)^k < TAIL_MASS`` goes in one last bin.
FINE_WINDOW = 8.0
BIN_RATIO = 1.25
TAIL_MASS = 1e-4
#: RFC 5681 (4): after a loss ``ssthresh = max(FlightSize / 2, 2 SMSS)``.
MIN_SSTHRESH = 2.0


def window_timeout_probability(p: float, w: float) -> float:
    """Probability that a segment lost in a window of ``w`` segments, with independent losses, is repaired only by a
    timeout (dimensionless): :func:`repair_timeout_probability` with ``m = floor(w) - 1``, the rest of the window
    sent after it before its loss can be seen (a sender clocked by ACKs keeps a window in flight).

    Padhye et al. 1998, eq. (25)'s ``Q(p, w)`` (about ``3/w``) takes every segment after the first loss of a
    round as lost too (drop-tail); with losses independent a segment each (a ``RateErrorModel``) they arrive, so
    a window of 6 or more times out mostly when the fast retransmission is lost (``p``), and one of 3 or less
    always (fewer than three duplicate ACKs; RFC 5681 3.2, RFC 6582)."""
    return repair_timeout_probability(p, max(int(w) - 1, 0))


def _segments_to(w: float, c0: float, ssthresh: float, b: int) -> float:
    """Segments a period sends before its window reaches ``w`` (segments): slow start from ``c0`` up to
    ``ssthresh``, one segment a ``b`` acknowledged (``c0 + k/b``), then congestion avoidance, ``1/b`` a round
    (``sqrt(S^2 + 2k/b)``, Padhye et al. 1998, 2.1)."""
    if w <= c0:
        return 0.0
    if c0 < ssthresh and w <= ssthresh:
        return b * (w - c0)
    k_ss = b * (ssthresh - c0) if c0 < ssthresh else 0.0
    base = max(ssthresh, c0)
    return k_ss + b * (w * w - base * base) / 2


def _window_after(k: float, c0: float, ssthresh: float, b: int, w_max: float) -> float:
    """The window after a period has sent ``k`` segments (segments, at most ``w_max``): :func:`_segments_to`
    inverted."""
    k_ss = b * (ssthresh - c0) if c0 < ssthresh else 0.0
    if k <= k_ss:
        return min(c0 + k / b, w_max)
    base = max(ssthresh, c0)
    return min(math.sqrt(base * base + 2 * (k - k_ss) / b), w_max)


def _rounds_for(k: float, c0: float, ssthresh: float, b: int, w_max: float) -> float:
    """Rounds a period takes to send ``k`` segments: slow start grows ``gamma = 1 + 1/b`` a round (Cardwell et al.
    2000, 3.2), congestion avoidance ``1/b`` (``b (W - S)`` rounds), and at ``w_max`` a window a round."""
    gamma = 1 + 1 / b
    k_ss = b * (ssthresh - c0) if c0 < ssthresh else 0.0
    if k <= k_ss:
        return math.log((c0 + k / b) / c0, gamma)
    rounds = math.log(ssthresh / c0, gamma) if c0 < ssthresh else 0.0
    base = max(ssthresh, c0)
    k_max = _segments_to(w_max, c0, ssthresh, b)
    if k <= k_max:
        return rounds + b * (_window_after(k, c0, ssthresh, b, w_max) - base)
    return rounds + b * (w_max - base) + (k - k_max) / w_max


def _mean_in(lo: float, hi: float, p: float) -> float:
    """Mean place of the first loss given it falls in ``[lo, hi)`` segments on (losses independent, rate ``p``;
    exponential in the continuum)."""
    lam = -math.log1p(-p)  # log1p: a rate of 1e-127 is not 0 (schemathesis found the division by zero)
    d = hi - lo
    if d == math.inf:
        return lo + min(1 / lam, 1e300)  # at p = 5e-324 the mean gap overflows to inf: as good as never
    if lam * d < 1e-6:  # (almost) uniform over the bin
        return lo + d / 2
    x = math.exp(-lam * d)
    return min(max(lo + 1 / lam - d * x / (1 - x), lo), hi)


def _key(w: float) -> float:
    """A period's starting window kept to half a segment up to :data:`FINE_WINDOW`, :data:`BIN_RATIO` apart above."""
    if w <= FINE_WINDOW:
        return round(w * 2) / 2
    return FINE_WINDOW * BIN_RATIO ** round(math.log(w / FINE_WINDOW, BIN_RATIO))


@functools.lru_cache(maxsize=8192)  # asked per run for the same rests and windows again and again (steady_ms)
def after_loss_ms(p: float, rest: int, w0: float, rtt_ms: float, rto_ms: float, b: int, w_max: float) -> float:
    """Expected time to send the ``rest`` segments of a transfer after a loss in a window of ``w0`` segments,
    more losses following, each segment lost independently with probability ``p`` (ms).

    Padhye et al. 1998's periods (section 2.1: the window grows ``1/b`` a round until a loss, then halves or, after
    a timeout, restarts), followed from the window the first loss halved, with the losses independent a segment
    each (as a per-packet error model makes them) instead of at the mean period's end: a period starting at window
    ``c0`` with ``ssthresh`` ``S`` meets its next loss at its ``k``-th segment with probability ``(1-p)^(k-1) p``, in
    the window it had grown to there (:func:`_window_after`; slow start below ``S``). That loss is repaired
    by a timeout with :func:`window_timeout_probability` (RFC 6582 NewReno without SACK: fewer than three
    duplicate ACKs, or a lost retransmission), costing :func:`timeout_ms`, after which the next period restarts at
    one segment in slow start up to ``S = max(w/2, 2)`` (RFC 5681 3.1 and (4)); else by a fast retransmit,
    after which it goes on at ``max(w/2, 2)`` (RFC 5681 3.2). The period takes the rounds to its loss and one more
    (:func:`_rounds_for`) and carries the segments to its loss and the window in flight. The windows a loss can
    meet are kept in bins (:data:`FINE_WINDOW`, :data:`BIN_RATIO`, :data:`TAIL_MASS`) and the periods' starting
    windows merged on a grid (:func:`_key`, time and segments left averaged), so the work stays bounded.

    Where the rest ends before the next loss it is sent in :func:`_rounds_for` rounds. After
    :data:`TRANSIENT_PERIODS` periods the rest of every branch goes at the steady rate (:func:`steady_throughput`,
    eq. (31)). What independence changes: a loss high in slow start (an initial window of 10) halves to a window
    that is followed by enough segments to fast-retransmit its next loss, so the first periods time out less than
    Padhye's ``Q(p, W)`` says, while the spread of the windows (a loss early in a period, a restart after a timeout)
    keeps the small windows that time out; ``p`` in (0, 1).

    The cost is kept bounded for a connection of many rounds (each round's loss asks for its rest): the periods
    depend on the window only through the grid point they start from (:func:`_key`), and are evaluated once per
    point for an unbounded rest (:func:`_after_loss_open`: its rounds, timeouts and segments, the share still sending, and how far any
    branch reached); a rest beyond twice that reach ends in no branch, so its time is the constant plus the
    remainder at the steady rate; a shorter one above :data:`EXACT_REST` segments is interpolated linearly
    between the rests of a geometric grid (:data:`REST_GRID_RATIO` apart), each evaluated once (``lru_cache``)."""
    h = _key(max(min(w0, w_max) / 2, MIN_SSTHRESH))
    z = timeout_ms(p, rto_ms)
    rate = steady_throughput(p, rtt_ms, rto_ms, b, w_max)
    tree = _after_loss_open(p, h, b, w_max)
    long_rest = max(math.ceil(2 * tree[4]), 1)
    if rest >= long_rest:
        return _periods_ms(tree, rest, rtt_ms, z, rate)
    if rest <= EXACT_REST:
        return _periods_ms(_after_loss_cached(p, rest, h, b, w_max), rest, rtt_ms, z, rate)
    i = math.floor(math.log(rest / EXACT_REST, REST_GRID_RATIO))
    lo = min(round(EXACT_REST * REST_GRID_RATIO**i), rest)
    hi = max(min(round(EXACT_REST * REST_GRID_RATIO ** (i + 1)), long_rest), rest)
    t_lo = _periods_ms(_after_loss_cached(p, lo, h, b, w_max), lo, rtt_ms, z, rate)
    if hi == lo:
        return t_lo
    t_hi = _periods_ms(tree if hi >= long_rest else _after_loss_cached(p, hi, h, b, w_max), hi, rtt_ms, z, rate)
    return t_lo + (t_hi - t_lo) * (rest - lo) / (hi - lo)


#: :func:`after_loss_ms` evaluates rests up to this many segments exactly, longer ones (up to twice the periods'
#: reach) between the points of a geometric grid this ratio apart.
EXACT_REST = 256
REST_GRID_RATIO = 1.1

#: The periods after a loss as :func:`_after_loss_tree` gives them: ``(rounds, timeouts, used, sending, reach)``.
Periods = tuple[float, float, float, float, float]


def _periods_ms(tree: Periods, rest: float, rtt_ms: float, z_ms: float, rate: float) -> float:
    """The time the periods ``tree`` take for ``rest`` segments at this round-trip time, expected timeout cost ``z_ms``
    (:func:`timeout_ms`) and steady ``rate`` (segments a ms, :func:`steady_throughput`): ``rounds rtt + timeouts z``
    to the periods' end, less the segments the still-sending branches consumed at the steady rate, plus their
    ``sending`` share of the rest at that rate (ms)."""
    rounds, timeouts, used, sending, _ = tree
    return rounds * rtt_ms + timeouts * z_ms - used / rate + sending * rest / rate


def after_loss_periods_ms(p: float, rest: int, w0: float, rtt_ms: float, rto_ms: float, b: int, w_max: float) -> float:
    """:func:`after_loss_ms` evaluated by its periods for this very rest, without its shortcuts (ms)."""
    h = _key(max(min(w0, w_max) / 2, MIN_SSTHRESH))
    rate = steady_throughput(p, rtt_ms, rto_ms, b, w_max)
    return _periods_ms(_tree(p, float(rest), h, b, w_max), rest, rtt_ms, timeout_ms(p, rto_ms), rate)


@functools.lru_cache(maxsize=8192)
def _after_loss_cached(p: float, rest: int, h: float, b: int, w_max: float) -> Periods:
    """The periods from grid window ``h`` for ``rest`` segments (:func:`_after_loss_tree`), each evaluation kept: they
    do not depend on the round-trip time or the timeout, so a sweep over those asks for each once."""
    return _tree(p, float(rest), h, b, w_max)


@functools.lru_cache(maxsize=4096)
def _after_loss_open(p: float, h: float, b: int, w_max: float) -> Periods:
    """The periods from grid window ``h`` for an unbounded rest (:func:`_after_loss_tree`)."""
    return _tree(p, math.inf, h, b, w_max)


#: The periods' evaluator where the native engine is built: its copy of :func:`_after_loss_tree` in C++
#: (latency_lab/engine/native/periods.cpp, ``periods(...)`` with this module's constants), set by :func:`use_periods`;
#: ``None``: :func:`_after_loss_tree` itself, the readable reference.
_periods: Callable[..., Periods] | None = None


def use_periods(periods: Callable[..., Periods] | None) -> None:
    """Evaluate the periods after a loss with ``periods`` (the native engine's, called by
    :mod:`latency_lab.analysis.native` when it is built; this layer imports no engine), or ``None`` for
    :func:`_after_loss_tree`; the remembered evaluations are forgotten. The C++ copy equals the reference
    (tests/latency_lab/mechanisms/test_loss_periods.py) and costs a fraction: a cold lossy run paid about 46 ms of CPU for
    its trees in Python (bench/loss_step_cost.py, 2026-11-28)."""
    global _periods
    _periods = periods
    for cached in (after_loss_ms, _after_loss_cached, _after_loss_open):
        cached.cache_clear()


def _tree(p: float, rest: float, h: float, b: int, w_max: float) -> Periods:
    """:func:`_after_loss_tree`, by the evaluator :func:`use_periods` chose."""
    if _periods is not None:
        return _periods(p, rest, h, b, w_max, TRANSIENT_PERIODS, FINE_WINDOW, BIN_RATIO, TAIL_MASS, MIN_SSTHRESH)
    return _after_loss_tree(p, rest, h, b, w_max)


def _after_loss_tree(p: float, rest: float, h: float, b: int, w_max: float) -> Periods:
    """The periods after a loss starting from window ``h`` (:func:`after_loss_ms`), for ``rest`` segments (may be
    infinite): ``(rounds, timeouts, used, sending, reach)``. The time is :func:`_periods_ms`: ``rounds rtt +
    timeouts z - used / rate + sending rest / rate`` (``rounds`` the expected round trips to each branch's end or
    the periods' end, ``timeouts`` the expected timeouts, each costing ``z`` (:func:`timeout_ms`); ``sending`` the
    probability of the branches still sending after the periods, having consumed ``used`` segments in all, at the
    steady ``rate``), and ``reach`` the most segments any branch consumed (rest beyond it: no branch ends within
    the periods). Nothing here depends on the round-trip time or the timeout: a branch's time is its rounds and its
    timeouts, counted apart and priced by :func:`_periods_ms`."""
    a = 1 - p
    # (start window, ssthresh) -> (probability, rounds weighted, timeouts weighted, segments consumed weighted)
    atoms: dict[tuple[float, float], tuple[float, float, float, float]] = {(h, h): (1.0, 0.0, 0.0, 0.0)}
    rounds_c = timeouts_c = reach = 0.0
    for _ in range(TRANSIENT_PERIODS):
        nxt: dict[tuple[float, float], tuple[float, float, float, float]] = {}
        for (c0, ssthresh), (pr, r_w, z_w, used_w) in atoms.items():
            r = r_w / pr
            zs = z_w / pr
            used = used_w / pr
            left = rest - used
            edges = [0.0]
            k_max = _segments_to(w_max, c0, ssthresh, b)
            j = float(int(c0) + 1)
            while j <= w_max and a ** edges[-1] > TAIL_MASS:
                k = _segments_to(j, c0, ssthresh, b)
                if k >= left:
                    break
                if k > edges[-1]:
                    edges.append(k)
                j = j + 1 if j < FINE_WINDOW else j * BIN_RATIO
            if edges[-1] < k_max < left and a ** edges[-1] > TAIL_MASS:
                edges.append(k_max)
            edges.append(left)
            for lo, hi in itertools.pairwise(edges):
                mass = pr * (a**lo - (a**hi if hi < math.inf else 0.0))
                if mass <= 0:
                    continue
                k = _mean_in(lo, hi, p)
                w = _window_after(k, c0, ssthresh, b, w_max)
                reach = max(reach, used + k + w)
                q = window_timeout_probability(p, w)
                r_loss = r + _rounds_for(k, c0, ssthresh, b, w_max) + 1
                if left - k - w <= 0:  # the rest ends with this period
                    rounds_c += mass * (r + _rounds_for(left, c0, ssthresh, b, w_max))
                    timeouts_c += mass * (zs + q)
                    continue
                s = _key(max(w / 2, MIN_SSTHRESH))
                for key, share, z_after in (((s, s), mass * (1 - q), zs), ((1.0, s), mass * q, zs + 1)):
                    if share > 0:
                        old = nxt.get(key, (0.0, 0.0, 0.0, 0.0))
                        nxt[key] = (
                            old[0] + share,
                            old[1] + share * r_loss,
                            old[2] + share * z_after,
                            old[3] + share * (used + k + w),
                        )
            if left < math.inf:  # no loss in the rest
                stays = pr * a**left
                rounds_c += stays * (r + _rounds_for(left, c0, ssthresh, b, w_max))
                timeouts_c += stays * zs
        atoms = nxt
    used_c = sending = 0.0
    for pr, r_w, z_w, used_w in atoms.values():
        rounds_c += r_w
        timeouts_c += z_w
        used_c += used_w
        sending += pr
    return rounds_c, timeouts_c, used_c, sending, reach


#: :func:`carried_ms`: the segments following a lost one in the middle of a response
#: (:mod:`latency_lab.analysis.expected_loss`'s ``FOLLOW_CAP``), whose repair its runs count.
CARRIED_FOLLOW = 10
#: :func:`carried_ms`: the part of a round each response after a loss leaves empty, on average (rounds).
PARTIAL_ROUND = 0.5


def carried_ms(
    p: float, carry: int, carry_ms: float, carry_n: int, rtt_ms: float, rto_ms: float, b: int, w_max: float
) -> float:
    """The slower sending of the responses that follow, on the same connection, the one a flow's first loss hit
    (ms): ``max(carry / X + n RTT / 2 - carry_ms - carry p C_mid, 0)``.

    A persistent connection keeps its congestion window and ``ssthresh`` between responses (RFC 5681 restarts
    only after an idle RTO, 4.1; ns-3 never), so after a loss the next responses start from the window the losses
    left (about Padhye's ``E[W]``, :func:`steady_window`: 7 segments at ``p = 0.03``, ``b = 2``, as ns-3's
    responses start), not from the lossless schedule's (slow start grown over every response before), and meet
    their own losses there: they go at the steady rate ``X`` (:func:`steady_throughput`, eq. (31), segments per
    ms), and each of the ``n`` responses ends in a round half empty on average (:data:`PARTIAL_ROUND`: a response
    of ``d`` segments in windows of ``W`` leaves ``ceil(d/W) - d/W`` of its last round unused, taken as uniform).
    ``carry``: the segments of those responses; ``carry_ms``: the time the lossless schedule took to send them (ms,
    each response from its first segment's leaving to its last one's arrival); ``carry p C_mid``: their own
    repairs, counted on their own segments (``C_mid = q E[Z_TO] + (1 - q) RTT``, ms, with ``q``
    :func:`repair_timeout_probability` at :data:`CARRIED_FOLLOW`, ms), taken out. Bursts of one segment
    (``carry <= n``: a client's requests) are not slowed by any window: 0. ``p`` in (0, 1). Against ns-3 (issue 29,
    ``validation.loss.ACROSS_POINTS``, 200 seeds): persistent pages of 4-10 responses of 20-60 KB at RTT 100-300 ms
    and p 0.02-0.05 were 19-40 % under ns-3's mean without it, within 8 % with it."""
    if carry <= carry_n or p <= 0:  # no data, or bursts of one segment (requests): no window slows them
        return 0.0
    rate = steady_throughput(p, rtt_ms, rto_ms, b, w_max)
    q = repair_timeout_probability(p, CARRIED_FOLLOW)
    c_mid = q * timeout_ms(p, rto_ms) + (1 - q) * rtt_ms
    return max(carry / rate + PARTIAL_ROUND * carry_n * rtt_ms - carry_ms - carry * p * c_mid, 0.0)


def slow_start_segments(p: float, d: int) -> float:
    """Expected segments sent in the initial slow start, up to and with the first loss (segments):
    ``E[d_ss] = (1 - (1-p)^d)(1 - p)/p + 1``, at most ``d`` (Cardwell, Savage & Anderson 2000, eq. (5))."""
    return min(float(d), (1 - (1 - p) ** d) * (1 - p) / p + 1)


def cardwell_latency_ms(
    p: float,
    d: int,
    rtt_ms: float,
    rto_ms: float,
    b: int,
    w1: float,
    w_max: float,
    delack_ms: float,
    syn_timeout_ms: float = SYN_TIMEOUT_MS,
) -> float:
    """Cardwell, Savage & Anderson 2000's expected latency of a ``d``-segment transfer on a new connection (ms):
    ``E[T] = E[T_hs] + E[T_ss] + E[T_loss] + E[T_ca] + E[T_delack]``.

    - ``E[T_hs] = RTT + T_s q/(1 - 2q)`` (3.1, :func:`handshake_extra_ms`);
    - slow start to the first loss: ``E[d_ss]`` (:func:`slow_start_segments`), growth ``gamma = 1 + 1/b`` a
      round from ``w1``: ``E[W_ss] = E[d_ss](gamma - 1)/gamma + w1/gamma``; ``E[T_ss] = RTT log_gamma(E[d_ss]
      (gamma - 1)/w1 + 1)``, or where ``E[W_ss] > W_max`` ``RTT (log_gamma(W_max/w1) + 1 + (E[d_ss] - (gamma
      W_max - w1)/(gamma - 1))/W_max)`` (3.2);
    - the first loss: ``(1 - (1-p)^d) (Q(p, E[W_ss]) E[Z_TO] + (1 - Q) RTT)`` (3.3);
    - the rest, ``d - E[d_ss]`` segments, at the steady-state rate (3.4; here Padhye's eq. (31),
      :func:`steady_throughput`);
    - ``E[T_delack]``: the delayed-ACK timer the first segment waits for (3.5; the caller says which).

    ``p`` in (0, 0.29) (the handshake's bound)."""
    gamma = 1 + 1 / b
    d_ss = slow_start_segments(p, d)
    w_ss = d_ss * (gamma - 1) / gamma + w1 / gamma
    if w_ss > w_max:
        t_ss = rtt_ms * (math.log(w_max / w1, gamma) + 1 + (d_ss - (gamma * w_max - w1) / (gamma - 1)) / w_max)
    else:
        t_ss = rtt_ms * math.log(d_ss * (gamma - 1) / w1 + 1, gamma)
    q = timeout_probability(p, w_ss)
    t_loss = loss_probability(p, d) * (q * timeout_ms(p, rto_ms) + (1 - q) * rtt_ms)
    t_ca = (d - d_ss) / steady_throughput(p, rtt_ms, rto_ms, b, w_max)
    return rtt_ms + handshake_extra_ms(p, syn_timeout_ms) + t_ss + t_loss + t_ca + delack_ms


def data_extra_ms(p: float, segments: int, w: float, rtt_ms: float, rto_ms: float) -> float:
    """Expected extra time of a flow from its first loss (ms): ``l (Q E[Z_TO] + (1 - Q) RTT)``. Cardwell 3.3."""
    q = timeout_probability(p, w)
    return loss_probability(p, segments) * (q * timeout_ms(p, rto_ms) + (1 - q) * rtt_ms)


def quic_data_extra_ms(p: float, packets: int, w: float, rtt_ms: float, max_ack_delay_ms: float) -> float:
    """QUIC's expected extra time from the first loss (ms): ``l (PTO / w + (1 - 1/w) RTT)``, a tail loss (one in
    ``w``) waiting ``PTO = 3 RTT + max_ack_delay`` (RFC 9002 6.2.1), any other found within about an RTT."""
    tail = 1 / max(w, 1.0)
    pto = 3 * rtt_ms + max_ack_delay_ms
    return loss_probability(p, packets) * (tail * pto + (1 - tail) * rtt_ms)


def head_of_line_ms(extra_ms: float, streams: int, independent: bool) -> float:
    """Expected time other streams wait behind a loss (ms, summed over streams): ``extra (n - 1)`` on one TCP
    byte stream (h2), 0 for QUIC's independent streams (h3)."""
    return 0.0 if independent else extra_ms * max(streams - 1, 0)


# ------------------------------------------------------------------------------------ the same in sympy


def handshake_extra_expr(p: sympy.Expr, syn_timeout: sympy.Expr) -> sympy.Expr:
    """:func:`handshake_extra_ms` as a sympy expression: ``T_s q / (1 - 2q)``, ``q = 1 - (1-p)^2`` (Cardwell 3.1)."""
    q = 1 - (1 - p) ** 2
    return syn_timeout * q / (1 - 2 * q)


def timeout_probability_expr(p: sympy.Expr, w: int) -> sympy.Expr:
    """:func:`timeout_probability` for a known window ``w`` (segments), as a sympy expression in ``p``
    (Padhye et al. 1998, eq. (25)); 1 for ``w <= 3``. Valid for ``p > 0``."""
    if w <= 3:
        return sympy.Integer(1)
    a = 1 - p
    return sympy.Min(1, (1 + a**3 * (1 - a ** (w - 3))) / ((1 - a**w) / (1 - a**3)))


def position_timeout_probability_expr(p: sympy.Expr, m: int) -> sympy.Expr:
    """:func:`position_timeout_probability` as a sympy expression in ``p``."""
    if m < 3:
        return sympy.Integer(1)
    return sympy.Add(*(math.comb(m, j) * (1 - p) ** j * p ** (m - j) for j in range(3)))


def timeout_expr(p: sympy.Expr, rto: sympy.Expr) -> sympy.Expr:
    """:func:`timeout_ms` as a sympy expression: ``T_0 f(p) / (1 - p)`` (Padhye et al. 1998, eq. (27))."""
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    return rto * f / (1 - p)


def tcp_cost_expr(p: sympy.Expr, w: int, rtt: sympy.Expr, rto: sympy.Expr, m: int | None = None) -> sympy.Expr:
    """Cost of a TCP loss in a window of ``w`` segments (ms): ``Q E[Z_TO] + (1 - Q) RTT`` (Cardwell 3.3);
    :func:`data_extra_ms` is ``l`` times it. With ``m`` (segments following the lost one), ``Q_m`` in place
    of Padhye's ``Q(p, w)``."""
    q = timeout_probability_expr(p, w) if m is None else position_timeout_probability_expr(p, m)
    return q * timeout_expr(p, rto) + (1 - q) * rtt


def quic_cost_expr(w: int, rtt: sympy.Expr, pto: sympy.Expr) -> sympy.Expr:
    """Cost of a QUIC loss in a window of ``w`` packets (ms): ``PTO / w + (1 - 1/w) RTT`` (RFC 9002 6.1, 6.2);
    :func:`quic_data_extra_ms` is ``l`` times it with ``PTO = 3 RTT + max_ack_delay``."""
    tail = sympy.Rational(1, max(w, 1))
    return tail * pto + (1 - tail) * rtt


class SlowerSending(sympy.Function):
    """The slower sending after a TCP loss with more losses to follow, as a sympy function (ms):
    ``SlowerSending(g, p, rest, w0, RTT, T_0, b, W_max, rest_ms, C, carry, carry_ms, n) = max(g, T_after - rest_ms
    - rest p C + carried)``, ``g`` one halving's regrowth, ``T_after`` :func:`after_loss_ms` (the periods of
    congestion avoidance after the loss; 0 with no rest), ``rest_ms`` the lossless time of the rest and ``C`` the
    loss's repair cost (:func:`latency_lab.mechanisms.loss_recovery.steady_ms`), ``carried`` :func:`carried_ms` of the
    ``n`` responses after (``carry`` segments, ``carry_ms`` lossless). Named in a formula and evaluated to its number once
    every argument is one: spelt out, its periods and their cases make hundreds of nested ``Piecewise`` and
    ``Max`` a run, which sympy compares at every substitution."""

    nargs = 13

    @classmethod
    def eval(cls, *args: sympy.Expr) -> sympy.Expr | None:
        if all(a.is_number for a in args):
            g, p, rest, w0, rtt, rto, b, w_max, rest_ms, cost, carry, carry_ms, n = (float(a) for a in args)
            steady = (
                after_loss_ms(p, int(rest), w0, rtt, rto, int(b), w_max) - rest_ms - rest * p * cost if rest else 0.0
            )
            carried = carried_ms(p, int(carry), carry_ms, int(n), rtt, rto, int(b), w_max)
            return sympy.Float(max(g, steady + carried))
        return None
