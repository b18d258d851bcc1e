"""HTTP/1.0 with parallel connections: the objects over up to N simultaneous connections.

Seed 004 (the HTTP/1.0 browsers it measures open several connections at once; seed 001, 5.5
notes Navigator's limit of 6). The HTML comes on its own connection; once it has arrived the client
opens ``parallel_connections`` connections, one object each, and opens the next as each finishes.
Live connections share the link first come, first served. With ``page.object_parents`` an object is
discovered when its parent arrives and queues behind those discovered before it (ties in index order); a
free slot takes the first waiting object.
"""

from __future__ import annotations

from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    pending: list[str] = []  # discovered objects no connection has asked for yet, in discovery order
    busy = [0]  # object connections open

    def done(name: str, t: Any, pkt: Packet) -> None:
        point = Point(t, pkt, None, "request")
        pending.extend(s.reveals[name])
        if name != names[0]:
            busy[0] -= 1
        while pending and busy[0] < s.p.parallel:
            busy[0] += 1
            s.fetch_on_new_connection([pending.pop(0)], point, done)

    s.fetch_on_new_connection([names[0]], start, done)
