"""Where the time went: the page load time split along its critical path.

Starting from the last byte of the last object, walk back along the causes of each time: a packet
arrives one serialization and one propagation after it starts; a packet that waited for a busy link
follows the packet ahead of it; a segment that waited for an ACK (a full window, or a short segment
Nagle held) follows that ACK back to the data that triggered it, and that round trip is filed as
slow-start idle or Nagle stall, a delayed-ACK timer on the way as delayed-ACK stall; a write or
request follows the arrival that prompted it plus its think time. Every step adds a closed-form
term, so the parts add up to the page load time exactly, and the number of server-to-client
crossings on the path is the coefficient of the round-trip time in the symbolic expression.

On a split-proxy path (seed 003, :mod:`latency_lab.protocols.proxy`) the round-trip time ``RTT`` is the long-haul
link's (``network``), the one the seed varies: round trips count the path's crossings of the
long-haul link toward the client. The legs at either end have their own delays (``d_c``, ``d_s``),
whose coefficients count the crossings of each leg; their time is filed in the same categories.
"""

from __future__ import annotations

from typing import Any

from latency_lab.engine.core import DOWN, Packet, Point, Quantities
from latency_lab.engine.lin import value

CATEGORIES = (
    "dns",
    "connection_setup",
    "tls_setup",
    "request",
    "server",
    "propagation",
    "serialization",
    "slow_start_idle",
    "delayed_ack_stall",
    "nagle_stall",
)


def category_of(pkt: Packet) -> str:
    """The breakdown category of a packet's own time on the path."""
    kind = pkt.kind
    if kind in ("SYN", "SYNACK", "FIN", "RST") or (kind == "ACK" and pkt.cause and pkt.cause[0] == "handshake"):
        return "connection_setup"
    if pkt.obj == "tls":  # a TLS handshake flight (latency_lab.protocols.secure_setup)
        return "tls_setup"
    # odd links carry data toward the client: its time on the path is serialization at the link's rate, and the
    # flight after it (propagation) when the walk arrives with it (:func:`walk`)
    return "serialization" if pkt.dir & 1 else "request"


def walk(
    final: Packet, q: Quantities, stop: Point | None = None, steps: list[Any] | None = None
) -> tuple[dict[str, Any], int]:
    """Split ``final.t_a`` (less ``stop.t``) into :data:`CATEGORIES`; count the round trips on the path.

    ``stop`` is where a page began (a later page of a session): the walk ends there, and a path that
    reaches back past it through a busy link is cut at its time. ``steps``, when given, receives every
    amount the walk files, last first, as ``(category, amount, connection, object)`` (connection -1 and
    object None for a point of the schedule): the same numbers the breakdown adds, so the stalls read off
    them (:func:`stalls`) add up to the breakdown's parts by construction.
    """
    acc: dict[str, Any] = {c: q.zero for c in CATEGORIES}
    trips = 0
    node: Packet | Point | None = final
    arriving = True
    queued = False  # at a packet's queue time rather than its departure
    role: str | None = None  # while following an ACK back: the stall its round trip belongs to
    last = "serialization"  # the category of the last step, to cut an overshoot past ``stop``
    last_tx: Any = (
        None  # when the last step was a packet's serialization and flight toward the client: its serialization
    )
    while node is not None:
        if stop is not None:
            if node is stop:
                break
            at = node.t if isinstance(node, Point) else node.t_a if arriving else node.t_q if queued else node.t_s
            if at < stop.t:
                over = stop.t - at
                if last_tx is not None:
                    # the packet left before the page began: its serialization came first, then its flight
                    part = last_tx if last_tx < over else over
                    acc["serialization"] = acc["serialization"] - part
                    acc["propagation"] = acc["propagation"] - (over - part)
                    if steps is not None:
                        steps.append(("serialization", -part, -1, None))
                        steps.append(("propagation", -(over - part), -1, None))
                else:
                    acc[last] = acc[last] - over
                    if steps is not None:
                        steps.append((last, -over, -1, None))
                break
        if isinstance(node, Point):
            if node.extra is not None:
                acc[node.cat] = acc[node.cat] + node.extra
                last = node.cat
                last_tx = None
                if steps is not None:
                    steps.append((node.cat, node.extra, -1, None))
            node = node.base
            arriving = True
            role = None
            continue
        p = node
        if arriving:
            cat = category_of(p)
            last_tx = None
            if role is None:
                if cat == "serialization":  # toward the client: the bits at the link's rate, then the flight
                    acc[cat] = acc[cat] + p.tx
                    acc["propagation"] = acc["propagation"] + (p.t_a - p.t_e)
                    last_tx = p.tx
                    if steps is not None:
                        steps.append(("propagation", p.t_a - p.t_e, p.conn, p.obj))
                        steps.append((cat, p.tx, p.conn, p.obj))
                else:
                    acc[cat] = acc[cat] + (p.t_a - p.t_s)
                    if steps is not None:
                        steps.append((cat, p.t_a - p.t_s, p.conn, p.obj))
            elif p.kind == "DATA" and p.n > 0:
                # the segment that prompted the ACK: its bits are its own category's, its flight is the stall
                acc[cat] = acc[cat] + p.tx
                acc[role] = acc[role] + (p.t_a - p.t_e)
                if steps is not None:
                    steps.append((role, p.t_a - p.t_e, p.conn, p.obj))
                    steps.append((cat, p.tx, p.conn, p.obj))
                role = None
            else:
                acc[role] = acc[role] + (p.t_a - p.t_s)
                if steps is not None:
                    steps.append((role, p.t_a - p.t_s, p.conn, p.obj))
            last = role or cat
            if p.dir == DOWN:  # the direct path's, or the long-haul link's, way to the client
                trips += 1
            arriving = False
            continue
        # at p.t_s: either the link was busy (follow the packet ahead) or p left when queued
        prev = p.prev
        if not queued and prev is not None and p.t_s > p.t_q:
            cat = role or category_of(prev)
            acc[cat] = acc[cat] + prev.tx
            last = cat
            last_tx = None
            if steps is not None:
                steps.append((cat, prev.tx, prev.conn, prev.obj))
            node = prev
            continue
        queued = False
        cause = p.cause
        kind = cause[0]
        if kind == "app":
            node = cause[1]
            role = None
        elif kind == "release":
            node = cause[1]  # the ACK that opened the window or let Nagle's held segment go
            role = "nagle_stall" if cause[2] == "nagle" else "slow_start_idle"
            arriving = True
        elif kind == "pace":
            # paced after an idle period: one interval after the segment before (seed 000, 2.4)
            acc["slow_start_idle"] = acc["slow_start_idle"] + cause[2]
            last = "slow_start_idle"
            last_tx = None
            if steps is not None:
                steps.append(("slow_start_idle", cause[2], p.conn, p.obj))
            node = cause[1]
            queued = True
        elif kind == "arrival":
            _, base, extra, cat = cause[:4]
            if extra is not None:
                # a timer on a Nagle chain is part of the Nagle stall (seed 000, 2.3)
                if role == "nagle_stall":
                    cat = role
                acc[cat] = acc[cat] + extra
                last = cat
                last_tx = None
                if steps is not None:
                    steps.append((cat, extra, p.conn, p.obj))
            node = base
            arriving = True
        elif kind in ("handshake", "ack"):
            node = cause[1]
            arriving = True
        else:  # pragma: no cover - every cause kind is handled above
            raise AssertionError(f"unknown cause {kind!r}")
    return acc, trips


#: The breakdown's stall parts: the waits a stall on the critical path is made of.
STALL_PARTS = ("slow_start_idle", "delayed_ack_stall", "nagle_stall")


def stalls(steps: list[Any], end: float) -> list[dict[str, Any]]:
    """The stalls on the critical path, read off a walk's ``steps`` (:func:`walk`) that ended at ``end`` (ms).

    A stall is a run of consecutive steps filed under :data:`STALL_PARTS` (a window waiting for an ACK,
    the delayed-ACK timer that held that ACK, a Nagle hold), in time order. Each is
    ``{"start_ms", "duration_ms", "connection", "object", "parts_ms": {part: ms}, "segments": [(part, start_ms,
    ms)]}`` (``segments``: the parts as they ran, in time order); the parts of all stalls add up to the walk's
    breakdown of those parts (the same amounts).
    """
    out: list[dict[str, Any]] = []
    t = end
    current: dict[str, Any] | None = None
    for cat, amount, conn, obj in steps:
        x = value(amount)
        if x == 0:
            continue
        t -= x
        if cat not in STALL_PARTS:
            current = None
            continue
        if current is None:
            current = {
                "start_ms": t,
                "duration_ms": 0.0,
                "connection": conn,
                "object": obj,
                "parts_ms": {},
                "segments": [],
            }
            out.append(current)
        current["start_ms"] = t
        current["duration_ms"] += x
        current["parts_ms"][cat] = current["parts_ms"].get(cat, 0.0) + x
        segments = current["segments"]
        if segments and segments[-1][0] == cat:
            segments[-1][1] = t
            segments[-1][2] += x
        else:
            segments.append([cat, t, x])
        if current["connection"] < 0 and conn >= 0:
            current["connection"] = conn
        if current["object"] is None and obj is not None and conn == current["connection"]:
            current["object"] = obj
    for st in out:
        st["segments"] = [(c, start, ms) for c, start, ms in reversed(st["segments"])]
    out.reverse()
    return out


def path_stalls(steps_by_page: list[list[Any]], ends: list[float]) -> list[dict[str, Any]]:
    """The result document's ``path_stalls`` (:class:`latency_lab.analysis.result.StallOnPath`): each page's stalls on its
    critical path (:func:`stalls` of its walk's ``steps``, the page's walk ending at ``ends[k]`` ms), in time order.

    ``kind`` is the part most of the stall is (the first of :data:`STALL_PARTS` on a tie); ``parts_ms`` has each.
    Over all the entries the parts add up to the breakdown's stall parts: one walk gives both.
    """
    out: list[dict[str, Any]] = []
    for k, (steps, end) in enumerate(zip(steps_by_page, ends, strict=True)):
        for st in stalls(steps, end):
            parts = st["parts_ms"]
            out.append(
                {
                    "page": k + 1,
                    "kind": max((c for c in STALL_PARTS if c in parts), key=lambda c: parts[c]),
                    "start_ms": st["start_ms"],
                    "duration_ms": st["duration_ms"],
                    "connection": st["connection"],
                    "object": st["object"],
                    "parts_ms": {c: parts[c] for c in STALL_PARTS if c in parts},
                    "segments": [[c, start, ms] for c, start, ms in st["segments"]],
                }
            )
    return out


#: The counts read off the path stalls: a stall is counted under each part it has (as the teaching panel lists it).
STALL_COUNT_NAMES = {
    "slow_start_idle": "slow_start_rounds",
    "delayed_ack_stall": "delayed_ack_stalls",
    "nagle_stall": "nagle_stalls",
}


def stall_counts(path: list[dict[str, Any]], restarts: int) -> dict[str, int]:
    """A result's stall counts: the stalls on the critical path having each part (:data:`STALL_COUNT_NAMES`), and the
    slow-start restarts (events of no duration, on any connection: their cost is in the slow-start waits after them)."""
    out = {name: sum(1 for st in path if part in st["parts_ms"]) for part, name in STALL_COUNT_NAMES.items()}
    out["slow_start_restarts"] = restarts
    return out
