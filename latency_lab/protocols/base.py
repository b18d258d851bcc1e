"""What the HTTP client and server applications do, shared by every protocol's schedule.

The server reads requests of ``request_bytes`` each, waits its think time (plus the per-connection
overhead before a connection's first request), then writes each response: the header on its own
when ``header_flush`` is set (seed 000, 2.2; with ``header_flush_persistent_only`` not on a connection
it closes after the response), and the rest in ``server_write_bytes`` writes (seed
000, 2.3: Apache writes in 4 KB chunks). A server that closes after its response (HTTP/1.0) sends
its FIN with the last data. The client waits its think time before each request. An object is
complete when its last byte reaches the client; a page when all its objects are. An embedded object is
discovered when its parent (``page.object_parents``: the HTML, or an earlier embedded object such as the style
sheet that names a font) has arrived, and its request leaves only then (:attr:`Session.reveals`); with
``page.object_named_at_bytes`` when the byte of its parent that names it has (HTML parsed as it streams). A session loads
the page ``session.pages`` times, each after the user's think time (seed 000, 2.4; seed 001, 5.2):
a persistent connection carries over unless the server's idle timeout closed it. On a split-proxy
path (seed 003) the client's connections end at the local proxy, which relays (:mod:`latency_lab.protocols.proxy`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol

from latency_lab.engine import words
from latency_lab.engine.core import CLIENT_LEG, PATH, Engine, Packet, Point, Quantities, origin_leg
from latency_lab.engine.lin import Lin, value
from latency_lab.engine.tcp import Connection, Endpoint
from latency_lab.protocols import secure_setup
from latency_lab.protocols.multiplex import HINTS_PREFIX
from latency_lab.scenario.schema import DEFAULT_URGENCY

DoneFn = Callable[[str, Any, Packet], None]

#: The pseudo name of a byte of a parent's body that names objects (page.object_named_at_bytes): ``NAMED_PREFIX``
#: parent ``@`` offset. A protocol's done callback gets it as it gets an object's name, and reveals
#: ``Session.reveals[it]``; it is no object (no record, no end).
NAMED_PREFIX = "named:"


class ObjectRecord:
    __slots__ = ("bytes", "connection", "end", "end_pkt", "name", "page", "start")

    def __init__(self, name: str, nbytes: int, page: int) -> None:
        self.name = name
        self.bytes = nbytes
        self.page = page
        self.connection = -1
        self.start: Any = None
        self.end: Any = None
        self.end_pkt: Packet | None = None


Driver = Callable[["Session", list[str], Point], None]
ReadyFn = Callable[[Connection, Point], None]


class OriginState:
    """An origin beside the HTML's (``page.origins``; issue 28) in a session: its DNS lookup, its persistent
    connection (or, for the protocols that open one per object, its preconnected one until a request takes it), the
    callers waiting for that connection to be ready, and persistent_parallel's pool of its connections."""

    __slots__ = (
        "coalesce",
        "conn",
        "dns_ms",
        "early_preconnect",
        "index",
        "lookup_end",
        "opened",
        "pool",
        "preconnected",
        "ready",
        "taken",
        "waiters",
    )

    def __init__(self, index: int, dns_ms: float, preconnected: bool, coalesce: bool = False) -> None:
        self.index = index
        self.dns_ms = dns_ms
        self.preconnected = preconnected
        self.coalesce = coalesce  # h2/h3: on the HTML's connection (RFC 9113 9.1.1)
        self.early_preconnect = False  # h2/h3: the HTML's 103 Early Hints names it with rel=preconnect
        self.lookup_end: Point | None = None  # when its DNS lookup ends (once started)
        self.conn: Connection | None = None
        self.ready: Point | None = None  # when ``conn`` became ready (None while it opens)
        self.waiters: list[ReadyFn] = []
        self.taken = False  # the preconnected connection of a protocol that opens one per object was used
        self.opened = 0  # connections opened to it (TLS resumption counts per server)
        self.pool: Any = None  # persistent_parallel's Pool of its connections


class Relay(Protocol):
    """What a session asks of a split proxy's relay (:class:`latency_lab.protocols.proxy.SplitProxy`): the session is
    given the relay's constructor and does not import it (issue 29: no import circle between the two modules)."""

    def attach(self, conn: Connection) -> None: ...

    def idle_close(self, t: Any, conn: Connection) -> None: ...


class Session:
    """A browsing session: the engine, its connections, the pages' objects and the idle periods seen.

    ``relay`` builds the split proxies' relay for a path with ``network.proxy`` (``SplitProxy``; required there)."""

    def __init__(self, q: Quantities, relay: Callable[[Session], Relay] | None = None) -> None:
        self.q = q
        self.p = p = q.p
        self.eng = Engine(q)
        self.conns: list[Connection] = []
        sizes = [p.html, *p.objects]
        self.objects: dict[str, ObjectRecord] = {}
        self.page_names: list[list[str]] = []
        # the objects each object's arrival reveals, in index order (page.object_parents; issue 28), every page alike
        self.reveals: dict[str, list[str]] = {}
        # by object: the body offsets on the wire (sorted) at which objects it names are revealed, each with its
        # pseudo name (page.object_named_at_bytes; issue 28)
        self.named: dict[str, list[tuple[int, str]]] = {}
        parents = p.object_parents or (0,) * len(p.objects)
        for k in range(p.pages):
            prefix = "" if k == 0 else f"p{k + 1}:"
            names = [f"{prefix}html"] + [f"{prefix}obj{i}" for i in range(1, len(p.objects) + 1)]
            self.page_names.append(names)
            for name, size in zip(names, sizes, strict=True):
                self.objects[name] = ObjectRecord(name, size, k)
                self.reveals[name] = []
            # HTML parsed as it streams (page.object_named_at_bytes): an object named before its parent's end is
            # revealed when that byte of the parent's body arrives, by a pseudo name ``NAMED_PREFIX parent@offset``
            # (its objects in ``reveals``) that the client expects at that byte (:meth:`_register`, multiplex.Mux)
            named_at = p.object_named_at or (-1,) * len(p.objects)
            for i, (parent, at) in enumerate(zip(parents, named_at, strict=True), start=1):
                if 0 <= at < sizes[parent]:
                    pseudo = f"{NAMED_PREFIX}{names[parent]}@{at}"
                    if pseudo not in self.reveals:
                        self.reveals[pseudo] = []
                        self.named.setdefault(names[parent], []).append((at, pseudo))
                    self.reveals[pseudo].append(names[i])
                else:
                    self.reveals[names[parent]].append(names[i])
        for marks in self.named.values():
            marks.sort()
        # each object's origin (page.object_origins; issue 28): 0 the HTML's, k the k-th of page.origins
        origin_of = p.object_origins or (0,) * len(p.objects)
        self.origin_of: dict[str, int] = {}
        for names in self.page_names:
            self.origin_of[names[0]] = 0
            for name, origin in zip(names[1:], origin_of, strict=True):
                self.origin_of[name] = origin
        # each object's RFC 9218 priority on h2 and h3 (page.object_urgency, page.object_incremental; issue 28), by
        # which multiplex.frame_order writes a batch's responses; none given: all of one urgency and incremental, so
        # a batch's streams take turns
        given = tuple(zip(p.object_urgency, p.object_incremental, strict=True))
        unordered = (DEFAULT_URGENCY, not given)  # the HTML's (alone in its batch) and, none given, every object's
        self.priority: dict[str, tuple[int, bool]] = {}
        for names in self.page_names:
            self.priority[names[0]] = unordered
            for name, priority in zip(names[1:], given or (unordered,) * len(p.objects), strict=True):
                self.priority[name] = priority
        coalesce = p.origin_coalesce or (False,) * len(p.origin_dns_ms)
        self.origins: list[OriginState] = [
            OriginState(k, dns, pre, co)
            for k, (dns, pre, co) in enumerate(
                zip(p.origin_dns_ms, p.origin_preconnected, coalesce, strict=True), start=1
            )
        ]
        # 103 Early Hints (RFC 8297; issue 28), on h2 and h3 (multiplex.Mux writes it): with a hint given, the server
        # answers each page's HTML request with a 103 first; ``hints`` holds, by HTML name, the objects it names (in
        # index order), whose requests leave when it arrives (and not again when their parent arrives: ``hinted``)
        early = p.origin_early_preconnect or (False,) * len(p.origin_dns_ms)
        for st, flag in zip(self.origins, early, strict=True):
            st.early_preconnect = flag
        self.hints: dict[str, list[str]] = {}
        self.hinted: set[str] = set()
        if p.object_early_hint or any(early):
            flags = p.object_early_hint or (False,) * len(p.objects)
            for names in self.page_names:
                self.hints[names[0]] = [name for name, flag in zip(names[1:], flags, strict=True) if flag]
                self.hinted.update(self.hints[names[0]])
        self.other_conns = 0  # connections to the other origins (the HTML origin's TLS resumption does not count them)
        self.quic_open: Callable[[Connection, Point, int, Callable[[Point], None]], None] | None = None  # h3's
        self.events: list[dict[str, Any]] = []
        self.restarts = 0
        self.start = Point(q.zero, None, None, "request")
        self.page = 0
        self.page_start: list[Point] = [self.start]
        self.page_end: list[Packet] = []
        self.page_left = len(self.page_names[0])
        self.keep_conn: Connection | None = None  # the persistent connection, while it is open
        self.pool: list[Connection] = []  # persistent_parallel: its other persistent connections, while open
        self.pool_state: Any = None  # persistent_parallel: its Pool (latency_lab.protocols.persistent_parallel)
        self.driver: Driver | None = None
        self.cwnd_cache: int | None = None  # fast start: the window of the last connection used
        # split proxies (seed 003): the client's connections go to the local proxy, which relays
        if p.proxy is not None and relay is None:
            raise ValueError("a path with split proxies needs the relay (latency_lab.protocols.proxy.SplitProxy)")
        self.relay: Relay | None = relay(self) if p.proxy is not None and relay is not None else None
        self.client_leg = CLIENT_LEG if self.relay is not None else PATH
        self.tls_handshakes = 0
        self.tls_bytes = 0  # TLS handshake bytes written, both ways
        self.dns_lookups = 0
        self.dns_done = False

    @property
    def names(self) -> list[str]:
        """The current page's object names, HTML first."""
        return self.page_names[self.page]

    def run(self, driver: Driver) -> None:
        """Load the page ``session.pages`` times with ``driver`` (a protocol's schedule)."""
        self.driver = driver
        driver(self, self.page_names[0], self.start)
        self.eng.run()

    def release(self) -> None:
        """Break the schedule's reference cycles once its result has been read (connections and their endpoints
        point at each other, and the applications' callbacks at the session): the packets, points and
        connections are then freed by reference counting at once instead of by Python's cyclic collector,
        which cost about a fifth of a prediction (``bench/bench_predict.py``)."""
        eng = self.eng
        eng.heap.clear()
        for conn in self.conns:
            conn.release()
        # what a protocol's own closures may still hold (a callback that calls itself is a cycle): the
        # session, a connection, a point, but no longer the schedule behind them
        for pkt in eng.packets:
            pkt.prev = None
            pkt.cause = ()
        eng.packets.clear()
        eng.link_last.clear()
        self.conns.clear()
        self.objects.clear()
        self.page_start.clear()
        self.page_end.clear()
        self.events.clear()
        self.relay = None
        self.driver = None
        self.keep_conn = None
        self.pool.clear()
        self.pool_state = None
        for st in self.origins:  # the other origins' connections, waiting callbacks and pools
            st.conn = st.ready = st.lookup_end = st.pool = None
            st.waiters = []
        self.quic_open = None

    def _object_done(self, rec: ObjectRecord, t: Any, pkt: Packet) -> None:
        if rec.page != self.page:  # pragma: no cover - pages do not overlap
            return
        self.page_left -= 1
        if self.page_left:
            return
        self.page_end.append(pkt)
        if self.page + 1 >= self.p.pages:
            return
        p = self.p
        if self.keep_conn is not None and p.idle_timeout is not None and p.user_think > p.idle_timeout:
            self.eng.at(t + p.idle_timeout, self._idle_close, self.keep_conn)
            for conn in self.pool:  # persistent_parallel's other connections idle as long
                self.eng.at(t + p.idle_timeout, self._idle_close, conn)
            self.keep_conn = None
            self.pool.clear()
        if self.origins and p.idle_timeout is not None and p.user_think > p.idle_timeout:
            for st in self.origins:  # the other origins' persistent connections idle as long
                if st.conn is not None and not st.conn.close_after:
                    self.eng.at(t + p.idle_timeout, self._idle_close, st.conn)
                    st.conn, st.ready, st.waiters = None, None, []
                if st.pool is not None:
                    for conn in st.pool.conns:
                        self.eng.at(t + p.idle_timeout, self._idle_close, conn)
                    st.pool = None
        start = Point(t + p.user_think, pkt, None, "request")
        self.eng.at(start.t, self._next_page, start)

    def _next_page(self, t: Any, start: Point) -> None:
        self.page += 1
        self.page_start.append(start)
        self.page_left = len(self.names)
        assert self.driver is not None
        self.driver(self, self.names, start)

    def _idle_close(self, t: Any, conn: Connection) -> None:
        """The server's idle timeout closes the persistent connection (seed 002, section 4)."""
        conn.server.close(t, Point(t, None, None, "connection_setup"))
        if self.relay is not None:
            self.relay.idle_close(t, conn)

    def persistent(self, start: Point, on_open: Callable[[Connection, Point], None]) -> None:
        """Use the open persistent connection, or open one, then ``on_open(conn, point)``."""
        conn = self.keep_conn
        if conn is not None:
            on_open(conn, start)
            return
        mode = self.open_mode()
        start = secure_setup.after_lookup(self, start)
        conn = self.new_connection(close_after=False)
        self.keep_conn = conn
        ready = secure_setup.secure(self, conn, mode, lambda point: on_open(conn, point))
        if mode in ("ttcp", "fast_open"):
            self._ttcp(conn, start, lambda: ready(start), mode)
            return
        conn.on_open = lambda t, point: ready(point)
        conn.open(start, mode)

    def open_mode(self, leg: int | None = None) -> str:
        """How the next new connection on ``leg`` (the client's, by default) opens: T/TCP needs an earlier
        connection between the same hosts (its TAO cache)."""
        mode = self.p.handshake
        leg = self.client_leg if leg is None else leg
        if mode == "ttcp" and not any(c.leg == leg and c.origin == 0 for c in self.conns):
            return "three_way"
        return mode

    def record_restart(self, ep: Endpoint, t: Any, idle: Any, before: int, after: int) -> None:
        """A sender restarted after idling longer than the retransmission timeout (seed 000, 2.4)."""
        self.restarts += 1
        why = words.restart_why(ep.name, value(idle), value(ep.rto), before, after)  # its timeout at the time
        self.events.append(words.event("slow_start_restart", value(t), 0.0, ep.conn.id, ep._obj_at(ep.nxt_n), why))

    # ------------------------------------------------------------ other origins (issue 28)
    def origin(self, name: str) -> int:
        """The origin of object ``name``: 0 the HTML's, k the k-th of ``page.origins``."""
        return self.origin_of[name]

    def by_origin(self, names: list[str]) -> list[tuple[int, list[str]]]:
        """``names`` grouped by origin, the HTML's first, then the others in index order (each group in order)."""
        groups: dict[int, list[str]] = {}
        for name in names:
            groups.setdefault(self.origin_of[name], []).append(name)
        return sorted(groups.items())

    def lookup(self, o: int, point: Point) -> Point:
        """The point a connection to origin ``o`` may open: after its DNS lookup, which the first connection to it
        starts (later ones wait for it to end; an address once looked up is cached for the session)."""
        st = self.origins[o - 1]
        if st.dns_ms <= 0:
            return point
        end = st.lookup_end
        if end is None:
            q = self.q
            dns: Any = Lin.const(st.dns_ms) if q.traced else st.dns_ms
            self.dns_lookups += 1
            st.lookup_end = end = Point(point.t + dns, point, dns, "dns")
            return end
        return end if value(end.t) > value(point.t) else point

    def origin_mode(self) -> str:
        """How a connection to another origin opens: as the HTML's, but with the three-way handshake where the
        HTML's uses T/TCP or Fast Open (no TAO cache or cookie for that server in the model)."""
        mode = self.p.handshake
        return "three_way" if mode in ("ttcp", "fast_open") else mode

    def open_origin(self, o: int, point: Point, close_after: bool, then: ReadyFn) -> Connection:
        """Open a connection to origin ``o`` at ``point`` (after its DNS lookup), then ``then(conn, point)`` once
        it is ready: TCP's handshake and TLS's, or QUIC's for h3."""
        st = self.origins[o - 1]
        looked = self.lookup(o, point)
        conn = self.new_connection(close_after=close_after, leg=origin_leg(self.p, o))
        conn.origin = o
        self.other_conns += 1
        index = st.opened
        st.opened += 1

        def start(*_: Any) -> None:
            if self.quic_open is not None:
                self.quic_open(conn, looked, index, lambda pt: then(conn, pt))
                return
            mode = self.origin_mode()
            ready = secure_setup.secure(self, conn, mode, lambda pt: then(conn, pt), index)
            conn.on_open = lambda t, pt: ready(pt)
            conn.open(looked, mode)

        if looked is point:
            start()
        else:  # its first packet joins the link when the lookup ends, behind those queued before then, not ahead
            self.eng.at(looked.t, start)
        return conn

    def origin_conn(self, o: int, point: Point, then: ReadyFn) -> None:
        """``then(conn, point)`` on origin ``o``'s persistent connection: at once if it is ready, when it is if it
        is opening, or after opening it (its DNS lookup first)."""
        st = self.origins[o - 1]
        if st.conn is not None and st.ready is not None:
            then(st.conn, point)
            return
        st.waiters.append(then)
        if st.conn is None:
            st.conn = self.open_origin(o, point, False, lambda c, pt: self._origin_ready(st, c, pt))

    def _origin_ready(self, st: OriginState, conn: Connection, point: Point) -> None:
        st.conn = conn
        st.ready = point
        waiters, st.waiters = st.waiters, []
        for then in waiters:
            then(conn, point)

    def origin_fetch(self, names: list[str], point: Point, on_done: DoneFn) -> None:
        """HTTP/1.0 to another origin: the object on the preconnected connection if one waits unused, else on a new
        connection (after the origin's DNS lookup)."""
        o = self.origin_of[names[0]]
        st = self.origins[o - 1]
        for name in names:
            if self.objects[name].start is None:
                self.objects[name].start = point.t
        if st.conn is not None and not st.taken:
            st.taken = True
            self.origin_conn(o, point, lambda c, pt: self.request(c, names, self.think(pt), on_done))
            return
        self.open_origin(o, point, True, lambda c, pt: self.request(c, names, self.think(pt), on_done))

    def preconnect_origins(self, start: Point, close_after: bool, streams: bool = False) -> None:
        """The preconnected origins' connections open at the page's start (a ``<link rel=preconnect>`` hint): one
        each, kept for its objects (``close_after``: the first object's, HTTP/1.0), unless one is open already. On
        h2 and h3 (``streams``) an origin coalesced with the HTML's has no connection: only its lookup starts."""
        for st in self.origins:
            if st.preconnected and streams and st.coalesce:
                self.lookup(st.index, start)
                continue
            if st.preconnected and (st.conn is None or st.taken):
                st.conn, st.ready, st.waiters, st.taken = None, None, [], False
                st.conn = self.open_origin(st.index, start, close_after, functools.partial(self._origin_ready, st))

    # ------------------------------------------------------------ connections
    def add_connection(self, leg: int) -> Connection:
        """A new connection on ``leg`` (:data:`latency_lab.engine.core.PATH` and the rest), numbered in order."""
        conn = Connection(self, len(self.conns), leg)
        self.conns.append(conn)
        return conn

    def new_connection(self, close_after: bool, leg: int | None = None) -> Connection:
        """A new connection of the client's (to the server, or to the local proxy on a split-proxy path; on ``leg``,
        another origin's own path, if given)."""
        conn = self.add_connection(self.client_leg if leg is None else leg)
        conn.close_after = close_after
        if self.p.idle_restart == "fast_start" and self.cwnd_cache is not None:
            conn.server.cwnd = max(conn.server.cwnd, self.cwnd_cache)  # TCP fast start (seed 001, 5.2)
        conn.server.on_data = lambda t, pkt, c=conn: self._server_data(c, t, pkt)
        conn.client.on_data = lambda t, pkt, c=conn: self._client_data(c, t, pkt)
        conn.client.on_fin = lambda t, pkt, c=conn: self._client_fin(c, t, pkt)
        conn.server.on_fin = lambda t, pkt, c=conn: c.server.send_control(
            "ACK", t, ("arrival", pkt, None, "connection_setup")
        )
        if self.relay is not None:
            self.relay.attach(conn)
        return conn

    def _client_fin(self, conn: Connection, t: Any, pkt: Packet) -> None:
        """The server closed: the client acknowledges and closes too (one FIN+ACK, or on ns-3 an ACK of
        the data and its FIN, then the client's own FIN)."""
        cause = ("arrival", pkt, None, "connection_setup")
        if pkt.n > 0 and self.p.profile.fin_on_data_acked_alone:
            conn.client.send_control("ACK", t, cause)
        conn.client.send_control("FIN", t, cause, fin=True)
        if conn.client.profile.last_ack_any_ack:
            conn.client.last_ack = False  # LAST_ACK: the next ACK closes (latency_lab.scenario.profiles)

    def think(self, point: Point) -> Point:
        """The client's think time before a request (seed 000, figure 2: 0.650 ms)."""
        q = self.q
        if value(q.client_think) <= 0:
            return point
        return Point(point.t + q.client_think, point, q.client_think, "request")

    def request(self, conn: Connection, names: list[str], point: Point, on_done: DoneFn) -> None:
        """The client writes one request for ``names`` (one object, or all of them for GETALL)."""
        self._register(conn, names, point, on_done)
        self.eng.at(point.t, self._client_write, conn, self.q.request, names[0], point)

    def requests_in_one_write(self, conn: Connection, requests: list[list[str]], point: Point, on_done: DoneFn) -> None:
        """The client writes several requests at once, one write of their bytes (``http.pipeline_writes`` one)."""
        for names in requests:
            self._register(conn, names, point, on_done)
        self.eng.at(point.t, self._client_write, conn, self.q.request * len(requests), requests[0][0], point)

    def _register(self, conn: Connection, names: list[str], point: Point, on_done: DoneFn) -> None:
        """What the client expects back for one request, and when the objects were first asked for."""
        conn.on_done = on_done
        conn.requests.append(names)
        for name in names:
            rec = self.objects[name]
            rec.connection = conn.id
            if rec.start is None:
                rec.start = point.t
            if name in self.named:  # the objects it names as it streams: revealed when that byte arrives
                body = conn.expect_end + self.p.header
                conn.expect.extend((body + at, pseudo) for at, pseudo in self.named[name])
            conn.expect_end += rec.bytes + self.p.header
            conn.expect.append((conn.expect_end, name))

    def _client_write(self, t: Any, conn: Connection, nbytes: Any, name: str, point: Point) -> None:
        conn.client.write(t, nbytes, name, point)

    def fetch_on_new_connection(
        self, names: list[str], point: Point, on_done: DoneFn, close_after: bool = True
    ) -> Connection:
        """Open a connection for one request: HTTP/1.0 style, the server closing after responding, or with
        ``close_after`` false a persistent connection that stays open (persistent_parallel)."""
        mode = self.open_mode()
        for name in names:
            if self.objects[name].start is None:
                self.objects[name].start = point.t
        point = secure_setup.after_lookup(self, point)
        conn = self.new_connection(close_after=close_after)
        ready = secure_setup.secure(self, conn, mode, lambda pt: self.request(conn, names, self.think(pt), on_done))
        if mode in ("ttcp", "fast_open"):
            self._ttcp(conn, point, lambda: ready(point), mode)
            return conn
        conn.on_open = lambda t, pt: ready(pt)
        conn.open(point, mode)
        return conn

    def _ttcp(self, conn: Connection, start: Point, write_request: Callable[[], None], mode: str = "ttcp") -> None:
        """T/TCP on a repeat connection (or TCP Fast Open): the client writes its request (after its think
        time), held until the SYN takes it along; the server answers without waiting for the handshake."""
        conn.client.hold = True
        write_request()  # schedules the client's write at start + client think time
        point = self.think(start)
        self.eng.at(point.t, self._open_ttcp, conn, point, mode)

    def _open_ttcp(self, t: Any, conn: Connection, point: Point, mode: str = "ttcp") -> None:
        conn.client.hold = False
        conn.open(point, mode)

    # ----------------------------------------------------------------- server
    def _server_data(self, conn: Connection, t: Any, pkt: Packet) -> None:
        p, q = self.p, self.q
        if conn.tls is not None:
            conn.tls.server_data(t, pkt)
        if conn.mux is not None:  # h2, h3: streams (latency_lab.protocols.multiplex)
            conn.mux.server_data(t, pkt)
            return
        done = int(conn.server.app_received() // p.request)
        while conn.served < done:
            idx = conn.served
            conn.served += 1
            extra = q.server_think
            if idx == 0 and value(q.conn_overhead) > 0:
                extra = extra + q.conn_overhead
            last: Point | None = conn.last_write
            base: Packet | Point = pkt
            begin = pkt.t_a
            if last is not None and last.t > begin:
                base, begin = last, last.t
            w = begin + extra
            point = Point(w, base, extra if value(extra) > 0 else None, "server")
            conn.last_write = point
            names = conn.requests[idx]
            last_response = conn.close_after and idx == len(conn.requests) - 1
            self.eng.at(w, self._server_write, conn, names, point, last_response)

    def _server_write(self, t: Any, conn: Connection, names: list[str], point: Point, close: bool) -> None:
        """The server's writes for one request: header (flushed or not) and body in chunks."""
        p, q = self.p, self.q
        srv: Endpoint = conn.server
        chunk = p.write
        if chunk > 0:  # each write is a step: refuse a runaway before its list of writes is built
            self.eng.ensure(sum(int(self.objects[name].bytes + p.header) // chunk for name in names))
        for name in names:
            body = q.size(self.objects[name].bytes)
            if p.header_flush and not (conn.close_after and p.flush_persistent_only):
                if p.header > 0:
                    srv.write(t, q.header, name, point)
                parts = _chunks(body, value(body), chunk, q)
            else:
                total = q.header + body
                parts = _chunks(total, value(total), chunk, q)
            for part in parts:
                srv.write(t, part, name, point)
        if close:
            srv.close(t, point)

    # ----------------------------------------------------------------- client
    def _client_data(self, conn: Connection, t: Any, pkt: Packet) -> None:
        if conn.tls is not None:
            conn.tls.client_data(t, pkt)
        expect = conn.expect
        rcv = conn.client.app_received()
        while conn.expect_i < len(expect) and rcv >= expect[conn.expect_i][0]:
            name = expect[conn.expect_i][1]
            conn.expect_i += 1
            if name.startswith(HINTS_PREFIX):  # a 103 Early Hints response has arrived (multiplex.Mux wrote it)
                assert conn.mux is not None
                conn.mux.on_hints(name[len(HINTS_PREFIX) :], t, pkt)
                continue
            if name.startswith(NAMED_PREFIX):  # the byte of a parent that names objects has arrived: reveal them
                assert conn.on_done is not None
                conn.on_done(name, t, pkt)
                continue
            rec = self.objects[name]
            rec.end = t
            rec.end_pkt = pkt
            self.cwnd_cache = conn.server.cwnd
            assert conn.on_done is not None
            conn.on_done(name, t, pkt)
            self._object_done(rec, t, pkt)

    # ------------------------------------------------------------------ idle
    def record_idle(self, ep: Endpoint, reason: str, t: Any, gap: Any, ack: Packet, obj: str) -> None:
        """An idle period of a sender ended at ``t``: file it as the events a student reads
        (:func:`latency_lab.engine.words.idle_events`). ``obj`` is the object whose data had been held; ``ack`` the packet
        that let it go."""
        words.idle_events(
            self.events,
            self.p.mss,
            ep.name,
            ep.peer.name,
            reason,
            value(t),
            value(gap),
            value(ack.held) if ack.held is not None else 0.0,
            ep.conn.id,
            obj,
            ep.blocked_len,
            ep.blocked_window,
            ep.rwnd_n,
            ep.peer.dack_ms,
            ack.cause[4] if len(ack.cause) > 4 else "",
        )


def _chunks(total: Any, total_n: float, chunk: int, q: Quantities) -> list[Any]:
    """Split ``total`` bytes into application writes of ``chunk`` bytes (0: one write)."""
    if total_n <= 0:
        return []
    if chunk <= 0 or total_n <= chunk:
        return [total]
    n_full = int((total_n - 1) // chunk)
    c = q.size(chunk)
    return [c] * n_full + [total - c * n_full]
