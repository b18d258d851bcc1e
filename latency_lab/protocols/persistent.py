"""Persistent connection without pipelining: one connection, one request at a time.

Seed 002, section 4 (a long-lived connection: the first image arrives after two round trips, not
four) and seed 001, 5.2; seed 000 measures this mode (P-HTTP) and its delayed-ACK and Nagle
stalls. Each request leaves only after the previous response has fully arrived, so every object
still costs a round trip. One object at a time in index order: every parent ``page.object_parents`` can
name comes earlier, so it has arrived before its child is asked for and the tree changes nothing. With
``page.origins`` each origin has its own persistent connection (opened when its first object is next, after its DNS
lookup, or preconnected), and the requests still go one at a time in index order.
"""

from __future__ import annotations

from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.tcp import Connection
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    def opened(conn: Connection, point: Point) -> None:
        def done(name: str, t: Any, pkt: Packet) -> None:
            if name not in s.objects:  # a byte that names objects (page.object_named_at_bytes): in order anyway
                return
            i = names.index(name) + 1
            if i < len(names):
                after = Point(t, pkt, None, "request")
                o = s.origin(names[i])
                if o:  # another origin's object: on that origin's persistent connection, once it is ready
                    s.origin_conn(o, after, lambda c, pt: s.request(c, [names[i]], s.think(pt), done))
                else:
                    s.request(conn, [names[i]], s.think(after), done)

        s.request(conn, [names[0]], s.think(point), done)

    s.persistent(start, opened)
    s.preconnect_origins(start, close_after=False)
