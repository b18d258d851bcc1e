"""What the HTTP client and server applications do, shared by every protocol's schedule.

The server reads requests of ``request_bytes`` each, waits its think time (plus the per-connection
overhead before a connection's first request), then writes each response: the header on its own
when ``header_flush`` is set (seed 000, 2.2), and the rest in ``server_write_bytes`` writes (seed
000, 2.3: Apache writes in 4 KB chunks). A server that closes after its response (HTTP/1.0) sends
its FIN with the last data. The client waits its think time before each request. An object is
complete when its last byte reaches the client.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from model.engine import Engine, Packet, Point, Quantities
from model.lin import value
from model.tcp import Connection, Endpoint

DoneFn = Callable[[str, Any, Packet], None]


class ObjectRecord:
    __slots__ = ("bytes", "connection", "end", "end_pkt", "name", "start")

    def __init__(self, name: str, nbytes: int) -> None:
        self.name = name
        self.bytes = nbytes
        self.connection = -1
        self.start: Any = None
        self.end: Any = None
        self.end_pkt: Packet | None = None


class Session:
    """One page load: the engine, its connections, the page's objects and the idle periods seen."""

    def __init__(self, q: Quantities) -> None:
        self.q = q
        self.p = q.p
        self.eng = Engine(q)
        self.conns: list[Connection] = []
        names = ["html"] + [f"obj{i}" for i in range(1, len(self.p.objects) + 1)]
        sizes = [self.p.html, *self.p.objects]
        self.objects = {n: ObjectRecord(n, s) for n, s in zip(names, sizes, strict=True)}
        self.names = names
        self.events: list[dict[str, Any]] = []
        self.window_stalls = 0
        self.start = Point(q.zero, None, None, "request")

    # ------------------------------------------------------------ connections
    def new_connection(self, close_after: bool) -> Connection:
        conn = Connection(self, len(self.conns))
        self.conns.append(conn)
        conn.close_after = close_after
        conn.server.on_data = lambda t, pkt, c=conn: self._server_data(c, t, pkt)
        conn.client.on_data = lambda t, pkt, c=conn: self._client_data(c, t, pkt)
        conn.client.on_fin = lambda t, pkt, c=conn: c.client.send_control(
            "FIN", t, ("arrival", pkt, None, "connection_setup"), fin=True
        )
        conn.server.on_fin = lambda t, pkt, c=conn: c.server.send_control(
            "ACK", t, ("arrival", pkt, None, "connection_setup")
        )
        return conn

    def think(self, point: Point) -> Point:
        """The client's think time before a request (seed 000, figure 2: 0.650 ms)."""
        q = self.q
        if value(q.client_think) <= 0:
            return point
        return Point(point.t + q.client_think, point, q.client_think, "request")

    def request(self, conn: Connection, names: list[str], point: Point, on_done: DoneFn) -> None:
        """The client writes one request for ``names`` (one object, or all of them for GETALL)."""
        q = self.q
        conn.on_done = on_done
        conn.requests.append(names)
        for name in names:
            rec = self.objects[name]
            rec.connection = conn.id
            if rec.start is None:
                rec.start = point.t
            conn.expect_end += rec.bytes + self.p.header
            conn.expect.append((conn.expect_end, name))
        self.eng.at(point.t, self._client_write, conn, q.request, names[0], point)

    def _client_write(self, t: Any, conn: Connection, nbytes: Any, name: str, point: Point) -> None:
        conn.client.write(t, nbytes, name, point)

    def fetch_on_new_connection(self, names: list[str], point: Point, on_done: DoneFn) -> Connection:
        """Open a connection for one request (HTTP/1.0 style); the server closes after responding."""
        conn = self.new_connection(close_after=True)
        for name in names:
            if self.objects[name].start is None:
                self.objects[name].start = point.t
        conn.on_open = lambda t, pt, c=conn: self.request(c, names, self.think(pt), on_done)
        conn.open(point, self.p.handshake)
        return conn

    # ----------------------------------------------------------------- server
    def _server_data(self, conn: Connection, t: Any, pkt: Packet) -> None:
        p, q = self.p, self.q
        done = int(conn.server.rcv_n // p.request)
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
        for name in names:
            body = q.size(self.objects[name].bytes)
            if p.header_flush:
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
        expect = conn.expect
        rcv = conn.client.rcv_n
        while conn.expect_i < len(expect) and rcv >= expect[conn.expect_i][0]:
            name = expect[conn.expect_i][1]
            conn.expect_i += 1
            rec = self.objects[name]
            rec.end = t
            rec.end_pkt = pkt
            assert conn.on_done is not None
            conn.on_done(name, t, pkt)

    # ------------------------------------------------------------------ idle
    def record_idle(self, ep: Endpoint, reason: str, t: Any, gap: Any, ack: Packet, obj: str) -> None:
        """An idle period of a sender ended at ``t``: file it as the events a student reads.

        ``obj`` is the object whose data had been held; ``ack`` the packet that let it go.
        """
        p = self.p
        sender, receiver = ep.name, ep.peer.name
        g = value(gap)
        held = value(ack.held) if ack.held is not None else 0.0
        start = value(t) - g
        if reason == "nagle":
            why = (
                f"Nagle's algorithm held the {sender}'s final {ep.blocked_len}-byte segment while earlier data "
                f"was unacknowledged; it left when the {receiver}'s ACK arrived"
            )
            if held > 0:
                why += f", which the {receiver}'s delayed-ACK timer had held {held:.1f} ms"
            self._event("nagle_stall", start, g, ep, obj, why)
            return
        self.window_stalls += 1
        dack = min(held, g)
        full = ep.blocked_window
        if p.rwnd <= full:
            wnd = f"receive window ({full} bytes)"
        else:
            wnd = f"congestion window ({full // p.mss} segment{'s' if full // p.mss != 1 else ''}, {full} bytes)"
        if g - dack > 0:
            why = f"the {sender}'s {wnd} was full: it waited for the {receiver}'s ACK to come back before sending more"
            self._event("slow_start_idle", start, g - dack, ep, obj, why)
        if dack > 0:
            note = ack.cause[4] if len(ack.cause) > 4 else ""
            why = (
                f"the {receiver} held its ACK for its {p.dack_ms:g} ms delayed-ACK timer ({note}) "
                f"while the {sender}'s {wnd} was full"
            )
            self._event("delayed_ack_stall", start + g - dack, dack, ep, obj, why)

    def _event(self, kind: str, start: float, duration: float, ep: Endpoint, obj: str, why: str) -> None:
        self.events.append(
            {
                "kind": kind,
                "start_ms": start,
                "duration_ms": duration,
                "connection": ep.conn.id,
                "object": obj,
                "why": why,
            }
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
