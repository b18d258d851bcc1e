"""GETALL: one request; the server sends the HTML and every object back to back.

Seed 002, 5.1 (the server parses the HTML and returns it with all its inlined images in one
response, each with its own headers) and seed 001, 5.3. One connection, one request, one server
think time; only the window limits the stream.
"""

from __future__ import annotations

from model.protocols.base import Session


def run(s: Session) -> None:
    conn = s.new_connection(close_after=False)
    conn.on_open = lambda t, point: s.request(conn, list(s.names), s.think(point), lambda *a: None)
    conn.open(s.start, s.p.handshake)
