"""The sentences of the schedule's events: why a sender idled, why an ACK was held, why a window restarted.

One home for them, so that the Python engine (:mod:`latency_lab.engine.tcp`, :mod:`latency_lab.protocols.base`) and the native
one (:mod:`latency_lab.analysis.native`, which records the numbers and writes the sentences afterwards) say the same
thing in the same words. Pure: numbers in, text and event dictionaries out. Times in ms, sizes in bytes.
"""

from __future__ import annotations

from typing import Any


def held_note(
    counts_bytes: bool, segs: int, nbytes: int, dack_segments: int, mss: int, endpoint_dack_segments: int
) -> str:
    """Why the delayed-ACK timer held an ACK, in words: what had arrived unacknowledged (seed 000, 2.2).

    ``counts_bytes``, ``dack_segments`` and ``mss`` are the scenario's (its profile's ACK rule);
    ``endpoint_dack_segments`` the receiving endpoint's own count (QUIC's differs).
    """
    if counts_bytes:
        if segs == 2 and nbytes < 2 * mss:
            what = "one short segment and one full segment"
        else:
            what = f"{segs} segment{'s' if segs > 1 else ''}"
        return f"{what}, {nbytes} bytes, less than {dack_segments} full segments' worth ({dack_segments * mss} bytes)"
    return f"{segs} segment{'s' if segs > 1 else ''} unacknowledged, fewer than {endpoint_dack_segments}"


def restart_why(name: str, idle: float, rto: float, before: int, after: int) -> str:
    """Why a sender's window restarted after an idle period (seed 000, 2.4)."""
    if after < before:
        return (
            f"the {name} sent nothing for {idle:.0f} ms, longer than its {rto:.0f} ms retransmission "
            f"timeout, so its congestion window restarts from {before} to {after} segment{'s' if after > 1 else ''}"
        )
    return (
        f"the {name} sent nothing for {idle:.0f} ms, longer than its {rto:.0f} ms retransmission "
        f"timeout; it keeps its {before}-segment window but paces the segments one round trip apart"
    )


def event(kind: str, start: float, duration: float, connection: int, obj: str | None, why: str) -> dict[str, Any]:
    """One event of the output document (:class:`latency_lab.analysis.result.Event`)."""
    return {
        "kind": kind,
        "start_ms": start,
        "duration_ms": duration,
        "connection": connection,
        "object": obj,
        "why": why,
    }


def idle_split(g: float, held: float) -> tuple[float, float]:
    """A window stall of ``g`` ms split into its slow-start idle part and its delayed-ACK part: the ACK that ended it
    had been held ``held`` ms by the receiver's timer, which counts up to the whole stall (seed 000, 2.2)."""
    dack = min(held, g)
    return g - dack, dack


def idle_events(
    events: list[dict[str, Any]],
    mss: int,
    sender: str,
    receiver: str,
    reason: str,
    t: float,
    g: float,
    held: float,
    connection: int,
    obj: str | None,
    blocked_len: int,
    blocked_window: int,
    rwnd_n: int,
    peer_dack_ms: float,
    note: str,
) -> None:
    """File an idle period of a sender that ended at ``t`` after ``g`` ms as the events a student reads.

    ``reason`` is what held the data (``nagle`` or ``window``), ``held`` how long the delayed-ACK timer held the ACK
    that let it go (0 if none), ``note`` why the timer held it (:func:`held_note`).
    """
    start = t - g
    if reason == "nagle":
        why = (
            f"Nagle's algorithm held the {sender}'s final {blocked_len}-byte segment while earlier data "
            f"was unacknowledged; it left when the {receiver}'s ACK arrived"
        )
        if held > 0:
            why += f", which the {receiver}'s delayed-ACK timer had held {held:.1f} ms"
        events.append(event("nagle_stall", start, g, connection, obj, why))
        return
    first = len(events)
    idle, dack = idle_split(g, held)
    full = blocked_window
    if rwnd_n <= full:
        wnd = f"receive window ({full} bytes)"
    else:
        wnd = f"congestion window ({full // mss} segment{'s' if full // mss != 1 else ''}, {full} bytes)"
    if idle > 0:
        why = f"the {sender}'s {wnd} was full: it waited for the {receiver}'s ACK to come back before sending more"
        events.append(event("slow_start_idle", start, idle, connection, obj, why))
    if dack > 0:
        why = (
            f"the {receiver} held its ACK for its {peer_dack_ms:g} ms delayed-ACK timer ({note}) "
            f"while the {sender}'s {wnd} was full"
        )
        events.append(event("delayed_ack_stall", start + g - dack, dack, connection, obj, why))
    events[first]["window_stall"] = True
