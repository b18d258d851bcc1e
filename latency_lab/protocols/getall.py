"""GETALL: one request; the server sends the HTML and every object back to back.

Seed 002, 5.1 (the server parses the HTML and returns it with all its inlined images in one
response, each with its own headers) and seed 001, 5.3. One connection, one request, one server
think time; only the window limits the stream. ``page.object_parents`` does not delay it: the server, which
parses the HTML, sends every object the page needs (the ones its style sheets and scripts name too) in the
one response, in index order.
"""

from __future__ import annotations

from latency_lab.engine.core import Point
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    s.persistent(start, lambda conn, point: s.request(conn, list(names), s.think(point), lambda *a: None))
