"""Delayed acknowledgments: when a receiver sends its ACK.

Seed 000, 2.2: TCP delays ACKs hoping to piggyback them on return traffic, but must ACK at least
every other full segment (RFC 1122); otherwise the ACK waits for the delayed-ACK timer (up to
200 ms on BSD-derived TCPs, 500 ms by the specification). A BSD receiver counts *bytes*: a short
header segment and one full segment are less than two full segments' worth, so that ACK waits
for the timer. ns-3 counts segments of any size.
"""

from __future__ import annotations


def ack_now(
    unacked_bytes: float,
    unacked_segments: int,
    mss_bytes: int,
    every_segments: int,
    counts_bytes: bool,
    timer_ms: float,
) -> bool:
    """Whether the receiver acknowledges at once (dimensionless predicate).

    bsd: ``unacked_bytes >= b * MSS``; ns3: ``unacked_segments >= b``; a timer of 0 means an
    ACK for every segment. Seed 000, 2.2.
    """
    if timer_ms <= 0:
        return True
    if counts_bytes:
        return unacked_bytes >= every_segments * mss_bytes
    return unacked_segments >= every_segments


def ack_time_ms(first_unacked_arrival_ms: float, timer_ms: float) -> float:
    """When a held ACK leaves (ms): ``t_first + T_d``, the timer started by the first unacknowledged segment.

    Seed 000, 2.2 (the observed stall, 170-190 ms, is the 200 ms timer less the time already
    spent receiving). BSD's timer is a 200 ms heartbeat rather than a per-connection timer; the
    model uses the per-connection form, which seed 000 reports the client falls into after the
    first exchange ("becomes synchronized with the server's slow-start clock").
    """
    return first_unacked_arrival_ms + timer_ms


def stall_ms(ack_departure_ms: float, last_arrival_ms: float) -> float:
    """How long an ACK was held beyond the segment that would have triggered it at once (ms).

    ``T_stall = t_ack - t_last``. Seed 000, 2.2.
    """
    return ack_departure_ms - last_arrival_ms
