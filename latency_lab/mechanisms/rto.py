"""The retransmission timer and what an idle sender does with it: RFC 6298's estimator and the restart rule.

The model has no loss, so the retransmission timeout (RTO) never fires; it matters because a sender that has
sent nothing for longer than one RTO restarts its congestion window (seed 000, 2.4; RFC 5681, 4.1). The RTO
comes from the round-trip times the sender measures on its own packets: the handshake's (SYN to SYN-ACK at the
client, SYN-ACK to the handshake's ACK at the server) and then its data's, sent to acknowledged, which on a
slow link include the serialization and queueing of the window ahead and the receiver's delayed-ACK time.
All times in ms.
"""

from __future__ import annotations

#: RFC 6298, 2.3: the gains of the smoothed round-trip time and of its variation.
ALPHA = 1 / 8
BETA = 1 / 4
#: RFC 6298, 2.2: the variation's weight in the timeout.
K = 4


def first_sample(r_ms: float) -> tuple[float, float]:
    """SRTT and RTTVAR (ms) after the first round-trip measurement ``R``: ``SRTT = R``, ``RTTVAR = R / 2``.

    RFC 6298, 2.2 (Linux ``tcp_rtt_estimator`` in net/ipv4/tcp_input.c starts its ``mdev``, four RTTVARs, at
    ``2 R`` the same way, "make sure rto = 3*rtt").
    """
    return r_ms, r_ms / 2


def update(srtt_ms: float, rttvar_ms: float, r_ms: float) -> tuple[float, float]:
    """SRTT and RTTVAR (ms) after a later measurement ``R'`` (RFC 6298, 2.3), RTTVAR first, with the old SRTT:

    ``RTTVAR = (1 - beta) RTTVAR + beta |SRTT - R'|``, ``SRTT = (1 - alpha) SRTT + alpha R'``, alpha 1/8, beta 1/4.
    """
    rttvar = (1 - BETA) * rttvar_ms + BETA * abs(srtt_ms - r_ms)
    return (1 - ALPHA) * srtt_ms + ALPHA * r_ms, rttvar


def timeout_ms(
    srtt_ms: float,
    rttvar_ms: float,
    granularity_ms: float,
    rto_min_ms: float,
    rto_max_ms: float,
    min_on_variation: bool = False,
) -> float:
    """The retransmission timeout (ms) from SRTT and RTTVAR.

    RFC 6298, 2.3-2.5: ``RTO = min(max(RTO_min, SRTT + max(G, 4 RTTVAR)), RTO_max)``, ``G`` the clock
    granularity (4.4BSD's slow timer ticks every 500 ms, ``PR_SLOWHZ``; Stevens vol. 2, 25.10), ``RTO_min`` 1 s
    (RFC 6298, 2.4), ``RTO_max`` at least 60 s. ``min_on_variation``: Linux puts its floor on the variation term
    instead, ``RTO = SRTT + max(4 RTTVAR, RTO_min)`` (``tcp_rtt_estimator`` keeps ``rttvar_us =
    max(mdev_max_us, tcp_rto_min_us(sk))`` and ``__tcp_set_rto`` returns ``srtt + rttvar``; TCP_RTO_MIN 200 ms),
    so a steady 1 s round trip (RTTVAR decayed to 0) gives 1.2 s there and ``1 s + G`` by the RFC.
    """
    if min_on_variation:
        rto = srtt_ms + max(granularity_ms, K * rttvar_ms, rto_min_ms)
    else:
        rto = max(rto_min_ms, srtt_ms + max(granularity_ms, K * rttvar_ms))
    return min(rto, rto_max_ms)


def restart_window(cwnd_segments: int, iw_segments: int, idle_ms: float, rto_ms: float, halve: bool) -> int:
    """The congestion window (segments) of a sender that restarts after sending nothing for ``idle`` ms.

    Called only after a real idle period: nothing in flight and nothing sent for longer than the RTO (RFC 5681,
    4.1; the application writes again, Linux ``tcp_slow_start_after_idle_check`` in include/net/tcp.h, called
    from ``tcp_sendmsg``: a sender waiting for ACKs is not idle). Without ``halve`` the window restarts at
    ``min(IW, cwnd)`` (RFC 5681, 4.1; 4.4BSD resets it to one segment, seed 000, 2.4). With ``halve`` (Linux
    ``tcp_cwnd_restart`` in net/ipv4/tcp_output.c, RFC 2861's decay) it is halved once per RTO of idle time
    beyond the first, and not below ``min(IW, cwnd)``: ``max(min(IW, w), floor(w / 2^(ceil(idle / RTO) - 1)))``.
    """
    restart = min(iw_segments, cwnd_segments)
    if not halve:
        return restart
    cwnd = cwnd_segments
    delta = idle_ms - rto_ms
    while delta > 0 and cwnd > restart:
        cwnd >>= 1
        delta -= rto_ms
    return max(cwnd, restart)
