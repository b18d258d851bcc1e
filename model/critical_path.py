"""Where the time went: the page load time split along its critical path.

Starting from the last byte of the last object, walk back through what each time was made of: a
packet's arrival is its serialization plus propagation; a packet that waited for a busy link
follows the packet ahead of it; a packet that waited for an ACK (a full window, or a segment Nagle
held) follows the sender's link back across the idle gap, which is filed as slow-start idle,
delayed-ACK stall or Nagle stall; a write or request follows the arrival that prompted it plus the
think time. Every step is a difference of two times, so the parts add up to the page load time
exactly, for floats and for linear forms alike.
"""

from __future__ import annotations

from typing import Any

from model.engine import DOWN, Packet, Point, Quantities
from model.lin import value

CATEGORIES = (
    "connection_setup",
    "request",
    "server",
    "transmission",
    "slow_start_idle",
    "delayed_ack_stall",
    "nagle_stall",
)


def category_of(pkt: Packet) -> str:
    """The breakdown category of a packet's own time on the path."""
    kind = pkt.kind
    if kind in ("SYN", "SYNACK", "FIN") or (kind == "ACK" and pkt.cause and pkt.cause[0] == "handshake"):
        return "connection_setup"
    return "transmission" if pkt.dir == DOWN else "request"


def walk(final: Packet, q: Quantities) -> tuple[dict[str, Any], int]:
    """Split ``final.t_a`` into :data:`CATEGORIES`; also count the round trips on the path."""
    acc: dict[str, Any] = {c: q.zero for c in CATEGORIES}
    trips = 0
    node: Packet | Point | None = final
    arriving = True
    while node is not None:
        if isinstance(node, Point):
            if node.extra is not None:
                acc[node.cat] = acc[node.cat] + node.extra
            node = node.base
            arriving = True
            continue
        p = node
        if arriving:
            cat = category_of(p)
            acc[cat] = acc[cat] + (p.t_a - p.t_s)
            if p.dir == DOWN:
                trips += 1
            arriving = False
            continue
        # at p.t_s: either the link was busy (follow the packet ahead) or p left when queued
        prev = p.prev
        if prev is not None and p.t_s > p.t_q:
            cat = category_of(prev)
            acc[cat] = acc[cat] + prev.tx
            node = prev
            continue
        cause = p.cause
        kind = cause[0]
        if kind == "app":
            node = cause[1]
        elif kind == "release" and prev is not None:
            ack: Packet = cause[1]
            gap = p.t_q - prev.t_e
            if cause[2] == "nagle":
                acc["nagle_stall"] = acc["nagle_stall"] + gap
            else:
                held = ack.held
                if held is not None and value(held) > 0:
                    dack = held if held < gap else gap
                    acc["delayed_ack_stall"] = acc["delayed_ack_stall"] + dack
                    acc["slow_start_idle"] = acc["slow_start_idle"] + (gap - dack)
                else:
                    acc["slow_start_idle"] = acc["slow_start_idle"] + gap
            trips += 1
            cat = category_of(prev)
            acc[cat] = acc[cat] + prev.tx
            node = prev
        elif kind == "arrival":
            _, base, extra, cat = cause[:4]
            if extra is not None:
                acc[cat] = acc[cat] + extra
            node = base
            arriving = True
        elif kind in ("handshake", "ack", "release"):
            node = cause[1]
            arriving = True
        else:  # pragma: no cover - every cause kind is handled above
            raise AssertionError(f"unknown cause {kind!r}")
    return acc, trips
