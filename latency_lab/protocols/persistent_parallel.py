"""Persistent connections in parallel, as HTTP/1.1 browsers load a page (issue 28).

Up to ``http.parallel_connections`` persistent connections to the server (Chrome and Firefox: 6 per origin;
seed 001, 5.5 notes Navigator's limit of 6). The HTML comes first on one connection; once it has arrived the
client asks for the objects, each on the first free connection: the HTML's own connection takes the first,
connections already open and idle the next ones in the order they were opened, and while objects wait and
fewer than ``parallel_connections`` are open the client opens a new connection for each waiting object (its
request leaves when the connection is ready). When an object's response has fully arrived its connection
takes the next waiting object (one request at a time: no pipelining). With ``page.object_parents`` an object
is discovered when its parent has arrived: it joins the waiting objects (in discovery order, ties in index order)
and is taken as the HTML's objects are; with ``page.object_named_at_bytes`` when the byte of its parent that names
it has arrived, while the parent's connection is still busy with it. The connections stay open across the
session's pages; the server's idle timeout closes them all (:meth:`latency_lab.protocols.base.Session._object_done`).

With ``http.preconnect`` the client opens the other ``parallel_connections - 1`` connections at the click, beside
the HTML's, as a browser does for a ``<link rel=preconnect>`` hint (or a warm pool): they are then open when
the HTML arrives, and the objects cost ``ceil(n / m)`` round trips, Kurose & Ross's "persistent HTTP with m
parallel connections" (their DNS-and-HTTP interactive problem). A preconnected connection has no request to
put on its SYN, so with ``tcp.handshake`` ttcp or fast_open it opens with the three-way handshake.

With ``page.origins`` each origin has a pool of its own, up to ``parallel_connections`` connections (Chrome's 6 per
origin), opened after the origin's DNS lookup as its objects wait; a preconnected origin (``preconnected``) has one
connection opened at the click. An object revealed by another origin's object joins its own origin's pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.tcp import Connection
from latency_lab.protocols import secure_setup
from latency_lab.protocols.base import Session


class Pool:
    """The session's persistent connections (the HTML's first), the idle ones, and the objects waiting."""

    def __init__(self, s: Session, origin: int = 0) -> None:
        self.s = s
        self.origin = origin  # 0 the HTML's; k the k-th of page.origins (whose connections are all in ``conns``)
        self.free: list[Connection] = []
        self.pending: list[str] = []  # the discovered objects no connection has asked for yet, in discovery order
        self.conns: list[Connection] = []  # another origin's connections (the HTML's are keep_conn and s.pool)

    def done(self, name: str, t: Any, pkt: Packet) -> None:
        """An object's last byte arrived: its connection takes the next waiting object, or idles."""
        s = self.s
        point = Point(t, pkt, None, "request")
        found = s.reveals[name]  # the objects are known once their parent (the HTML, or page.object_parents') arrived
        mine = found if not s.origins else [other for other in found if s.origin(other) == self.origin]
        self.pending.extend(mine)
        if name in s.objects:  # not a byte that names objects (page.object_named_at_bytes), whose connection is busy
            conn = s.conns[s.objects[name].connection]
            if self.pending:
                s.request(conn, [self.pending.pop(0)], s.think(point), self.done)
            else:
                self.free.append(conn)
        if mine:
            self.dispatch(point)
        if len(mine) < len(found):  # objects of other origins (page.origins): each origin's pool takes its own
            for o, group in s.by_origin(found):
                if o != self.origin:
                    pool = pool_of(s, o)
                    pool.pending.extend(group)
                    pool.dispatch(point)

    def dispatch(self, point: Point) -> None:
        """Objects were discovered: idle connections take the waiting objects, then new connections open."""
        s = self.s
        while self.pending and self.free:
            conn = self.free.pop(0)
            s.request(conn, [self.pending.pop(0)], s.think(point), self.done)
        if self.origin == 0:
            while self.pending and 1 + len(s.pool) < s.p.parallel:
                s.pool.append(s.fetch_on_new_connection([self.pending.pop(0)], point, self.done, close_after=False))
            return
        while self.pending and len(self.conns) < s.p.parallel:  # another origin's: after its DNS lookup
            name = self.pending.pop(0)
            if s.objects[name].start is None:
                s.objects[name].start = point.t
            then = self._first(name)
            self.conns.append(s.open_origin(self.origin, point, False, then))

    def _first(self, name: str) -> Callable[[Connection, Point], None]:
        """What a new connection to another origin does once ready: ask for ``name``."""
        return lambda conn, pt: self.s.request(conn, [name], self.s.think(pt), self.done)

    def preconnect(self, point: Point) -> None:
        """Open the other connections now (``http.preconnect``); each idles once ready."""
        s = self.s
        mode = s.open_mode()
        if mode in ("ttcp", "fast_open"):
            mode = "three_way"
        while 1 + len(s.pool) < s.p.parallel:
            conn = s.new_connection(close_after=False)
            s.pool.append(conn)
            self._open(conn, mode, point)

    def _open(self, conn: Connection, mode: str, point: Point) -> None:
        ready = secure_setup.secure(self.s, conn, mode, lambda pt: self.ready(conn, pt))
        conn.on_open = lambda t, pt: ready(pt)
        conn.open(point, mode)

    def ready(self, conn: Connection, point: Point) -> None:
        """A preconnected connection is ready: it takes a waiting object, or idles."""
        if self.pending:
            self.s.request(conn, [self.pending.pop(0)], self.s.think(point), self.done)
        else:
            self.free.append(conn)


def pool_of(s: Session, o: int) -> Pool:
    """Origin ``o``'s pool: the HTML's (``o`` 0), or another's, made on its first use or after the idle timeout closed
    its connections."""
    if o == 0:
        html: Pool = s.pool_state
        return html
    st = s.origins[o - 1]
    if st.pool is None:
        st.pool = Pool(s, o)
    pool: Pool = st.pool
    return pool


def run(s: Session, names: list[str], start: Point) -> None:
    pool = s.pool_state
    if pool is None or s.keep_conn is None:  # the first page, or the idle timeout closed the connections
        pool = s.pool_state = Pool(s)
        s.pool.clear()
    else:  # the next page: the HTML goes on the HTML's connection, the others wait idle
        pool.free = [conn for conn in pool.free if conn is not s.keep_conn]
    pool.pending = []
    preconnect = s.p.preconnect and not s.pool and s.p.parallel > 1
    start = secure_setup.after_lookup(s, start)
    s.persistent(start, lambda conn, point: s.request(conn, [names[0]], s.think(point), pool.done))
    if preconnect:
        pool.preconnect(start)
    for st in s.origins:  # the other origins: their pools wait idle for this page's objects
        if st.pool is not None:
            st.pool.pending = []
        if st.preconnected and (st.pool is None or not st.pool.conns):  # one connection each, opened at the click
            other = pool_of(s, st.index)
            other.conns.append(s.open_origin(st.index, start, False, other.ready))
