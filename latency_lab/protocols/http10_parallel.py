"""HTTP/1.0 with parallel connections: the objects over up to N simultaneous connections.

Seed 004 (the HTTP/1.0 browsers it measures open several connections at once; seed 001, 5.5
notes Navigator's limit of 6). The HTML comes on its own connection; once it has arrived the client
opens ``parallel_connections`` connections, one object each, and opens the next as each finishes.
Live connections share the link first come, first served. With ``page.object_parents`` an object is
discovered when its parent arrives and queues behind those discovered before it (ties in index order); a
free slot takes the first waiting object. With ``page.origins`` the limit is per origin (as browsers' 6 per
origin): a free slot of an origin takes the first waiting object of that origin, on a connection to it. With
``page.object_named_at_bytes`` an object is discovered when the byte of its parent that names it has arrived.
"""

from __future__ import annotations

from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    pending: list[str] = []  # discovered objects no connection has asked for yet, in discovery order
    busy = [0] * (1 + len(s.origins))  # object connections open, by origin

    def done(name: str, t: Any, pkt: Packet) -> None:
        point = Point(t, pkt, None, "request")
        pending.extend(s.reveals[name])
        if name != names[0] and name in s.objects:  # not a byte that names objects (page.object_named_at_bytes)
            busy[s.origin(name)] -= 1
        i = 0
        while i < len(pending):  # the first waiting object of each origin with a free slot, in discovery order
            other = pending[i]
            o = s.origin(other)
            if busy[o] >= s.p.parallel:
                i += 1
                continue
            busy[o] += 1
            del pending[i]
            if o:
                s.origin_fetch([other], point, done)
            else:
                s.fetch_on_new_connection([other], point, done)

    s.fetch_on_new_connection([names[0]], start, done)
    s.preconnect_origins(start, close_after=True)
