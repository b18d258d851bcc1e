"""Random loss: its expected cost in closed form, added to the lossless schedule and labelled as such.

The schedule (:mod:`model.engine.core`) has no loss. With a loss rate ``p`` per packet, independent, the
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
  (:func:`data_extra_ms` is this first-loss form; :mod:`model.analysis.expected_loss` counts every loss, ``d p``
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

import math

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
    a = 1 - p
    q = (1 + a**3 * (1 - a ** (w - 3))) / ((1 - a**w) / (1 - a**3))
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


#: Triple-duplicate periods after a loss followed one by one (:func:`after_loss_ms`) before the steady rate:
#: the window's distance from its steady value shrinks about fourfold a period (``W' = sqrt(W^2/4 + 2/(bp))``).
TRANSIENT_PERIODS = 3


def after_loss_ms(p: float, rest: int, w0: float, rtt_ms: float, rto_ms: float, b: int, w_max: float) -> float:
    """Expected time to send the ``rest`` segments of a transfer after a loss in a window of ``w0`` segments,
    more losses following at rate ``p`` (ms).

    Padhye et al. 1998's triple-duplicate periods (section 2.1), followed one by one from the window the loss
    halved instead of from their steady state: a period starts at ``s = W/2`` (at least 1), grows ``1/b`` a
    round until its next loss ``1/p`` segments on, so it ends at ``W' = sqrt(s^2 + 2/(b p))`` (at most
    ``W_max``) after ``X = b (W' - s)`` rounds, carries ``(1-p)/p + W'`` segments in ``X + 1`` rounds of one
    RTT and ends in a timeout with probability ``Q(p, W')`` (:func:`timeout_probability`, costing
    :func:`timeout_ms`). A rest shorter than the period is sent in ``b (sqrt(s^2 + 2 rest/b) - s)`` rounds.
    After :data:`TRANSIENT_PERIODS` periods the rest goes at the steady rate (:func:`steady_throughput`, eq.
    (31)), the periods' fixed point (``W^2 = 8/(3bp)``, Padhye's leading term): a window well above it (a
    loss late in slow start) sends faster at first and times out less, which the steady rate alone misses
    (Cardwell, Savage & Anderson 2000, 3.4 take the steady rate from the first loss on). ``p`` in (0, 1)."""
    z = timeout_ms(p, rto_ms)
    t = 0.0
    w = min(w0, w_max)
    left = float(rest)
    for _ in range(TRANSIENT_PERIODS):
        s = max(w / 2, 1.0)
        end = min(math.sqrt(s * s + 2 / (b * p)), w_max)
        carried = (1 - p) / p + end
        if left < carried:
            return t + b * (math.sqrt(s * s + 2 * left / b) - s) * rtt_ms
        t += (b * (end - s) + 1) * rtt_ms + timeout_probability(p, end) * z
        left -= carried
        w = end
    return t + left / steady_throughput(p, rtt_ms, rto_ms, b, w_max)


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
    ``SlowerSending(g, p, rest, w0, RTT, T_0, b, W_max, rest_ms, C) = max(g, T_after - rest_ms - rest p C)``,
    ``g`` one halving's regrowth, ``T_after`` :func:`after_loss_ms` (the periods of congestion avoidance after
    the loss), ``rest_ms`` the lossless time of the rest and ``C`` the loss's repair cost
    (:func:`model.mechanisms.loss_recovery.steady_ms`). Named in a formula and evaluated to its number once
    every argument is one: spelt out, its periods and their cases make hundreds of nested ``Piecewise`` and
    ``Max`` a run, which sympy compares at every substitution."""

    nargs = 10

    @classmethod
    def eval(cls, *args: sympy.Expr) -> sympy.Expr | None:
        if all(a.is_number for a in args):
            g, p, rest, w0, rtt, rto, b, w_max, rest_ms, cost = (float(a) for a in args)
            after = after_loss_ms(p, int(rest), w0, rtt, rto, int(b), w_max)
            return sympy.Float(max(g, after - rest_ms - rest * p * cost))
        return None
