"""HTTP/1.0: a new connection per object, one after another.

Seed 002, section 3 (figure 3-1): each object costs a connection setup round trip and a
request round trip, so the first inlined image cannot start before four round trips and every
further one needs at least two more. The client asks for the embedded objects only after the HTML
has fully arrived; the server closes each connection after its response, which also sends what
Nagle holds (seed 000, 2.3). One object at a time in index order: every parent ``page.object_parents`` can
name comes earlier, so it has arrived before its child is asked for and the tree changes nothing. An object of
another origin (``page.origins``) goes on a connection to that origin, after its DNS lookup (the first time), or on
its preconnected connection if that is still unused.
"""

from __future__ import annotations

from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    def done(name: str, t: Any, pkt: Packet) -> None:
        if name not in s.objects:  # a byte that names objects (page.object_named_at_bytes): asked for in order anyway
            return
        i = names.index(name) + 1
        if i < len(names):
            point = Point(t, pkt, None, "request")
            if s.origin(names[i]):  # another origin's (page.origins): its DNS lookup first, or its preconnection
                s.origin_fetch([names[i]], point, done)
            else:
                s.fetch_on_new_connection([names[i]], point, done)

    s.fetch_on_new_connection([names[0]], start, done)
    s.preconnect_origins(start, close_after=True)
