"""Pipelined requests (GETLIST, HTTP/1.1 pipelining): every object request at once after the HTML.

Seed 002, 5.2 (GETLIST: a series of GETs sent without waiting for the previous one) and seed 004
(HTTP/1.1 pipelining). One connection; after the HTML has arrived the client writes every object
request back to back, each its own write, so Nagle's algorithm at the client may hold the later
ones until an ACK returns (seed 004: Nagle should be off for pipelined HTTP/1.1).
"""

from __future__ import annotations

from typing import Any

from model.engine.core import Packet, Point
from model.engine.tcp import Connection
from model.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    def opened(conn: Connection, point: Point) -> None:
        def done(name: str, t: Any, pkt: Packet) -> None:
            if name == names[0]:
                after = s.think(Point(t, pkt, None, "request"))
                for other in names[1:]:
                    s.request(conn, [other], after, done)

        s.request(conn, [names[0]], s.think(point), done)

    s.persistent(start, opened)
