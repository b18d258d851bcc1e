"""GETALL: one request; the server sends the HTML and every object back to back.

Seed 002, 5.1 (the server parses the HTML and returns it with all its inlined images in one
response, each with its own headers) and seed 001, 5.3. One connection, one request, one server
think time; only the window limits the stream. ``page.object_parents`` does not delay it: the server, which
parses the HTML, sends every object the page needs (the ones its style sheets and scripts name too) in the
one response, in index order. With ``page.origins`` the HTML's server sends the HTML and its own origin's objects; once the HTML
has arrived the client sends one GETALL to each other origin, on its own connection, for that origin's objects.
"""

from __future__ import annotations

import functools
from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.tcp import Connection
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    if not s.origins:
        s.persistent(start, lambda conn, point: s.request(conn, list(names), s.think(point), lambda *a: None))
        return
    groups = s.by_origin(names)

    def done(name: str, t: Any, pkt: Packet) -> None:
        if name != names[0]:
            return
        point = Point(t, pkt, None, "request")  # the HTML has arrived: the other origins' objects are known
        for o, group in groups[1:]:
            s.origin_conn(o, point, functools.partial(ask, group))

    def ask(found: list[str], c: Connection, ready: Point) -> None:
        s.request(c, found, s.think(ready), lambda *a: None)

    s.persistent(start, lambda conn, point: s.request(conn, groups[0][1], s.think(point), done))
    s.preconnect_origins(start, close_after=False)
