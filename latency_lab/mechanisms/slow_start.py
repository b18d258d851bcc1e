"""Slow start and windows: how much a sender may have outstanding.

Seed 002, section 3.1 (slow start opens the window round by round; a short connection never
reaches the path's rate) and seed 000, 2.2 (the window grows by one segment for each ACK, and the
reply window of a BSD server starts at two segments). The sender may have
``min(cwnd * MSS, rwnd)`` bytes unacknowledged. Without loss the model never leaves slow start:
the congestion window grows by one segment per ACK until the receive window caps it.
"""

from __future__ import annotations

import math
from typing import Any


def initial_window_segments(iw_segments: int, syn_ack_opens_window: bool) -> int:
    """Server's congestion window when its first reply starts (segments).

    ``w0 = IW + 1`` on BSD-derived stacks, whose handshake ACK counts as an ACK of new data
    (seed 000, 2.2, footnote 1); ``w0 = IW`` otherwise.
    """
    return iw_segments + 1 if syn_ack_opens_window else iw_segments


def window_after_ack(cwnd_segments: int) -> int:
    """Congestion window after one ACK of new data in slow start (segments): ``w + 1``.

    Seed 000, 2.2: "for each segment acknowledged the congestion window increases by a
    full-size segment". One ACK covering two segments (a delayed ACK) still adds one.
    """
    return cwnd_segments + 1


def window_after_ack_bytes(
    cwnd_segments: int, carried_bytes: float, acked_bytes: float, mss_bytes: int, limit_segments: int = 1
) -> tuple[int, float]:
    """Congestion window (segments) and bytes carried over after an ACK, counting acknowledged bytes.

    ``w + min(floor((carried + acked) / MSS), L)`` with the remainder ``(carried + acked) mod MSS`` carried
    to the next ACK (ns-3's ``TcpSocketBase::ProcessAck`` and ``TcpNewReno::SlowStart``; RFC 3465's byte
    counting, ``L`` = 1 there and in RFC 5681 3.1's ``cwnd += min(N, SMSS)``; Linux and QUIC (RFC 9002,
    7.3.1) add every acknowledged segment, a large ``L``). An ACK of a short segment alone does not open
    the window.
    """
    total = carried_bytes + acked_bytes
    if total >= mss_bytes:
        return cwnd_segments + min(int(total // mss_bytes), limit_segments), total % mss_bytes
    return cwnd_segments, total


def window_after_ack_packets(cwnd_segments: int, acked_packets: int, cap_segments: int) -> int:
    """Congestion window (segments) after an ACK, counting acknowledged packets: ``min(w + n, cap)``.

    ``n`` is the number of segments the ACK newly acknowledges, short ones included: Linux's ``tcp_slow_start``
    (net/ipv4/tcp_cong.c) adds ``acked``, the packets ``tcp_clean_rtx_queue`` (net/ipv4/tcp_input.c) freed, so an
    ACK of a 200-byte header segment and a full segment adds two where byte counting adds one. ``cap`` is the
    receive window in segments (the model never leaves slow start without loss).
    """
    return min(cwnd_segments + acked_packets, cap_segments)


def cwnd_limited(cwnd_segments: int, max_in_flight_packets: int) -> bool:
    """Whether a sender in slow start uses its window enough to grow it (dimensionless predicate).

    ``w < 2 max_out``: Linux's ``tcp_is_cwnd_limited`` (include/net/tcp.h) in slow start, ``max_out`` the most
    packets in flight over the last window (``max_packets_out``, kept by ``tcp_cwnd_validate`` in
    net/ipv4/tcp_output.c; RFC 7661's idea). A sender limited by its application, such as a client with one
    request segment out under a 10-segment window, does not grow it (``cubictcp_cong_avoid`` returns first).
    """
    return cwnd_segments < 2 * max_in_flight_packets


def usable_window_bytes(cwnd_segments: int, mss_bytes: Any, rwnd_bytes: Any, outstanding_bytes: Any) -> Any:
    """Bytes the sender may still send (bytes): ``min(w MSS, rwnd) - outstanding``.

    Seed 000, 2.5 (a socket buffer smaller than the bandwidth-delay product caps throughput).
    """
    return min(cwnd_segments * mss_bytes, rwnd_bytes) - outstanding_bytes


def growth_factor(ack_every_segments: int) -> float:
    """Window growth per round in slow start: ``gamma = 1 + 1/b`` (dimensionless).

    With an ACK for every ``b`` segments each round's window is ``1 + 1/b`` times the last
    (doubling with an ACK per segment). Seed 002, 3.1 (doubling per round trip).
    """
    return 1.0 + 1.0 / ack_every_segments


def rounds_to_send(segments: int, w0_segments: int, ack_every_segments: int = 1) -> int:
    """Slow-start rounds needed to send ``N`` segments from window ``w0`` (rounds).

    ``R = ceil(log_gamma(N (gamma - 1) / w0 + 1))``: the windows ``w0 gamma^k`` add up to
    ``w0 (gamma^R - 1)/(gamma - 1) >= N``. Seed 002, 3.1. Exact for ``b = 1``.
    """
    if segments <= 0:
        return 0
    g = growth_factor(ack_every_segments)
    return max(1, math.ceil(math.log(segments * (g - 1) / w0_segments + 1, g) - 1e-12))


def textbook_latency_ms(
    object_bytes: int, mss_bytes: int, rate_bps: float, rtt_ms: float, w0_segments: int = 1
) -> float:
    """Latency of one object over a new connection with slow start (ms), the textbook closed form.

    ``T = 2 RTT + O/R + P (RTT + S/R) - (2^P - 1) w0 S/R`` with ``S/R`` the time of one segment,
    ``K = ceil(log2(O / (w0 S) + 1))`` windows and ``P = min(Q, K - 1)`` the idle rounds, ``Q`` the
    rounds after which the window covers the round trip. Assumes an ACK per segment, no header
    overhead and negligible request and ACK sizes. Seed 002, sections 3 and 3.1.
    """
    s_over_r = 8000.0 * mss_bytes / rate_bps
    k = math.ceil(math.log2(object_bytes / (w0_segments * mss_bytes) + 1))
    q = 0
    while w0_segments * 2.0**q * s_over_r < s_over_r + rtt_ms:
        q += 1
        if q > 64:  # pragma: no cover - only for absurd inputs
            break
    p = min(q, k - 1)
    latency: float = 2 * rtt_ms + 8000.0 * object_bytes / rate_bps + p * (rtt_ms + s_over_r)
    return latency - (2.0**p - 1) * w0_segments * s_over_r


def window_limited_rate_bps(window_bytes: int, mss_bytes: int, rtt_ms: float, segment_ms: float = 0.0) -> float:
    """Throughput of a transfer whose receive window is below the bandwidth-delay product (bit/s).

    ``X = 8000 floor(W / M) M / (RTT + t_seg)``, ``t_seg`` the serialization of a segment and its ACK
    (ms; negligible on a fast link): the sender never has more than the receive window ``W``
    unacknowledged, so at most ``W`` bytes leave per round trip however fast the link, and while more
    data waits it sends only full segments (a window-limited short segment waits, seed 000, 2.3 (a)),
    so ``floor(W / M)`` segments of ``M`` bytes. With seed 003's 32,767-byte buffers (table 1) over a
    640 ms satellite round trip that is about 400 kb/s of a 34 Mb/s E3 (seed 003, introduction:
    standard window sizes perform poorly over high bandwidth-delay paths; seed 000, 2.5).
    """
    return 8000.0 * (window_bytes // mss_bytes) * mss_bytes / (rtt_ms + segment_ms)
