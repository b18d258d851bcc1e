"""Pipelined requests (GETLIST, HTTP/1.1 pipelining): every object request at once after the HTML.

Seed 002, 5.2 (GETLIST: a series of GETs sent without waiting for the previous one) and seed 004
(HTTP/1.1 pipelining). One connection; after the HTML has arrived the client writes every object
request: with ``http.pipeline_writes`` ``each`` back to back, each its own write (seed 001, 5.3.2 and seed
002, 5.2: "a series of GETs sent back-to-back"), so Nagle's algorithm at the client may hold the later
ones until an ACK returns (seed 004: Nagle should be off for pipelined HTTP/1.1); with ``one`` all in one
write of ``n q`` bytes, so the requests share full segments (seed 004, Persistent Connections: "multiple
requests and responses can be contained in a single TCP segment"; libwww buffers its requests).
With ``page.object_parents`` the requests of the objects an object reveals are written, the same way, when
its last byte arrives (after the responses already asked for, on the same connection). With ``page.origins``
each origin has its own connection (opened when its first objects are discovered, after its DNS lookup, or
preconnected) and the requests of its objects are pipelined there, in order, once it is ready. With
``page.object_named_at_bytes`` they are written when the byte of the parent that names them has arrived.
"""

from __future__ import annotations

import functools
from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.tcp import Connection
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    def opened(conn: Connection, point: Point) -> None:
        def write(c: Connection, found: list[str], after: Point) -> None:
            if s.p.pipeline_one_write and len(found) > 1:
                s.requests_in_one_write(c, [[other] for other in found], after, done)
                return
            for other in found:
                s.request(c, [other], after, done)

        def write_when_ready(found: list[str], c: Connection, ready: Point) -> None:
            write(c, found, s.think(ready))

        def done(name: str, t: Any, pkt: Packet) -> None:
            found = s.reveals[name]
            if found:
                point = Point(t, pkt, None, "request")
                for o, group in s.by_origin(found):
                    if o == 0:
                        write(conn, group, s.think(point))
                    else:  # another origin's: pipelined on its own connection once that is ready
                        s.origin_conn(o, point, functools.partial(write_when_ready, group))

        s.request(conn, [names[0]], s.think(point), done)

    s.persistent(start, opened)
    s.preconnect_origins(start, close_after=False)
