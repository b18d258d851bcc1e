"""HTTP/2 (RFC 9113): one TCP connection, every embedded object's request at once after the HTML, the
responses interleaved by stream (:mod:`latency_lab.protocols.multiplex`).

Like pipelining (seed 002, 5.2; seed 004) the requests after the HTML leave without waiting, but each is
small (HPACK) and the responses share the connection frame by frame instead of queueing whole; one
congestion window serves all streams. Browsers speak HTTP/2 only over TLS: set ``tls.version`` to compare
as deployed (the schedule also runs over plain TCP, h2c).
"""

from __future__ import annotations

from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.tcp import Connection
from latency_lab.protocols.base import Session
from latency_lab.protocols.multiplex import Mux


def load(s: Session, conn: Connection, names: list[str], point: Point) -> None:
    """Fetch a page's objects on a connection with streams: the HTML, then the objects each arrival reveals, in
    one go (every other object, after the HTML, unless ``page.object_parents`` says otherwise)."""
    mux: Mux = conn.mux if conn.mux is not None else Mux(s, conn)

    def done(name: str, t: Any, pkt: Packet) -> None:
        found = s.reveals[name]  # the HTML's objects, or those a style sheet or script names (page.object_parents)
        if found:
            mux.requests(found, s.think(Point(t, pkt, None, "request")), done)

    mux.requests([names[0]], s.think(point), done)


def run(s: Session, names: list[str], start: Point) -> None:
    s.persistent(start, lambda conn, point: load(s, conn, names, point))
