"""Nagle's algorithm and sender-side silly-window avoidance: when a short segment may leave.

Seed 000, 2.3, after Stevens' summary of BSD TCP: the sender sends only if (a) a full segment can
be sent, (b) it can send half the peer's largest advertised window, or (c) it can send everything
it has and either expects no ACK or Nagle is off. Closing the connection sends what is held,
which is why HTTP/1.0 never met this stall. A BSD sender decides "expects no ACK" once, on entry
to its output routine; ns-3 asks again before every segment.
"""

from __future__ import annotations


def may_send(
    length_bytes: int,
    mss_bytes: int,
    is_all_buffered: bool,
    nothing_outstanding: bool,
    nagle_on: bool,
    closing: bool,
    half_window_rule: bool,
    max_peer_window_bytes: int,
) -> bool:
    """Whether a segment of ``length`` bytes may be sent now (dimensionless predicate).

    ``len = MSS`` or ``(len = buffered and (no ACK expected or not Nagle or closing))`` or
    ``len >= max_window / 2`` (BSD only). A window-limited short segment with more data behind it
    fails (a) and (c) and waits. Seed 000, 2.3.
    """
    if length_bytes >= mss_bytes:
        return True
    if is_all_buffered and (nothing_outstanding or not nagle_on or closing):
        return True
    return half_window_rule and length_bytes >= max_peer_window_bytes / 2
