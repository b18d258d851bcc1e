"""HTTP/2 (RFC 9113): one TCP connection, every embedded object's request at once after the HTML, the
responses interleaved by stream (:mod:`latency_lab.protocols.multiplex`).

Like pipelining (seed 002, 5.2; seed 004) the requests after the HTML leave without waiting, but each is
small (HPACK) and the responses share the connection frame by frame instead of queueing whole; one
congestion window serves all streams. Browsers speak HTTP/2 only over TLS: set ``tls.version`` to compare
as deployed (the schedule also runs over plain TCP, h2c). With ``page.origins`` each origin has one connection of
its own (after its DNS lookup, or preconnected) and its objects' streams go there, unless it is coalesced with the
HTML's (``coalesce_with_html``, RFC 9113 9.1.1): then its streams go on the HTML's connection once its lookup has
ended. With ``page.object_named_at_bytes`` an object's stream opens when the byte of its parent that names it has
arrived (the done callback gets that byte's pseudo name, :data:`latency_lab.protocols.base.NAMED_PREFIX`).
"""

from __future__ import annotations

import functools
from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.lin import value
from latency_lab.engine.tcp import Connection
from latency_lab.protocols.base import Session
from latency_lab.protocols.multiplex import Mux


def load(s: Session, conn: Connection, names: list[str], point: Point) -> None:
    """Fetch a page's objects on a connection with streams: the HTML, then the objects each arrival reveals, in
    one go (every other object, after the HTML, unless ``page.object_parents`` says otherwise)."""
    mux: Mux = conn.mux if conn.mux is not None else Mux(s, conn)

    def ask(found: list[str], c: Connection, ready: Point) -> None:
        streams(c).requests(found, s.think(ready), done)

    def coalesced(t: Any, found: list[str], ready: Point) -> None:
        mux.requests(found, s.think(ready), done)

    def done(name: str, t: Any, pkt: Packet) -> None:
        found = s.reveals[name]  # the HTML's objects, or those a style sheet or script names (page.object_parents)
        if s.hinted:  # those a 103 Early Hints named were asked for when it arrived
            found = [other for other in found if other not in s.hinted]
        if found:
            discover(found, Point(t, pkt, None, "request"))

    def hints(html: str, t: Any, pkt: Packet) -> None:
        """The 103 Early Hints for ``html`` arrived: the objects it names are asked for at once, and the origins it
        names with rel=preconnect start their connections (or, coalesced, their lookups)."""
        after = Point(t, pkt, None, "request")
        if s.hints[html]:
            discover(s.hints[html], after)
        for st in s.origins:
            if st.early_preconnect and st.coalesce:
                s.lookup(st.index, after)
            elif st.early_preconnect and st.conn is None:
                st.conn = s.open_origin(st.index, after, False, functools.partial(s._origin_ready, st))

    def discover(found: list[str], after: Point) -> None:
        """Ask for ``found``: each origin's on its connection (the HTML's, a coalesced origin's after its lookup)."""
        for o, group in s.by_origin(found):
            if o == 0:
                mux.requests(group, s.think(after), done)
            elif s.origins[o - 1].coalesce:  # on the HTML's connection (RFC 9113 9.1.1), after the lookup
                ready = s.lookup(o, after)
                if value(ready.t) > value(after.t):
                    s.eng.at(ready.t, coalesced, group, ready)
                else:
                    mux.requests(group, s.think(after), done)
            else:  # another origin's (page.origins): streams on its own connection, once that is ready
                s.origin_conn(o, after, functools.partial(ask, group))

    mux.on_hints = hints
    mux.requests([names[0]], s.think(point), done)


def streams(conn: Connection) -> Mux:
    """The streams of ``conn`` (a connection to another origin gets its own on its first request)."""
    return conn.mux if conn.mux is not None else Mux(conn.session, conn)


def run(s: Session, names: list[str], start: Point) -> None:
    s.persistent(start, lambda conn, point: load(s, conn, names, point))
    s.preconnect_origins(start, close_after=False, streams=True)
