"""Split proxies: a proxy at each end of a long-haul link, relaying HTTP over warm connections.

Seed 003 (McGregor, Pearson & Cleary, "US and NZ proxies", "US Proxy Model", table 1). The path is
client - client leg - local proxy - long-haul link (the scenario's ``network``) - remote proxy -
server leg - server, and a fetch uses three TCP connections instead of one:

- client to local proxy, opened as the protocol opens its connections (a new one per object for
  HTTP/1.0, one kept open for the persistent protocols);
- local proxy to remote proxy: ``proxy.long_haul_connections`` connections opened long before the
  page and kept busy by other users, so they need no handshake, their windows are already as open
  as the receive window lets them be, and slow start happens only once (no restart after idle);
- remote proxy to server, one for each client connection ("persistent HTTP is only used between the
  US proxy and the web server": a persistent client connection keeps its server connection).

What each proxy does, with the seed's assumption that proxy processing takes no time:

- A request is relayed once it has fully arrived, on the long-haul connection with the fewest bytes
  waiting or unacknowledged (the seed's rule for replies; it does not say how requests go).
- Replies are relayed segment by segment (store and forward per segment, as the seed's US proxy
  queues "the packets of the reply as they arrive"): the long-haul connection is chosen when a
  reply's first segment reaches the remote proxy (the least loaded, as above) and every segment of
  it, less any part that belongs to the next reply, is written there with ``proxy.mux_overhead_bytes``
  of multiplexing header ("20 bytes per HTTP reply segment received from an HTTP server"). TCP then
  repackages the stream into full segments, replies interleaved.
- The local proxy strips the header and forwards each relayed segment to its client once the whole
  of it has arrived; a reply that overtook an earlier one of the same client connection (on another
  long-haul connection) waits for it, so each client connection gets its replies in order. It closes
  an HTTP/1.0 client connection after the reply's last byte, as the server closed its own.

Each leg is its own pair of FIFO links (:mod:`latency_lab.engine.core`); the round-trip time ``RTT`` and the
round trips counted are the long-haul link's (:mod:`latency_lab.analysis.critical_path`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from latency_lab.engine.core import CLIENT_LEG, PATH, SERVER_LEG, Packet, Point
from latency_lab.engine.tcp import Connection, Endpoint

if TYPE_CHECKING:
    from latency_lab.protocols.base import Session


class Reply:
    """One request's reply on its way from the server to the client."""

    __slots__ = ("bounds", "buffer", "conn", "got_n", "lane", "names", "sent_n", "size", "size_n")

    def __init__(self, names: list[str], conn: Connection, s: Session) -> None:
        q = s.q
        self.names = names
        self.conn = conn  # the client connection that asked
        self.size: Any = q.zero
        self.bounds: list[tuple[float, str]] = []  # (end offset within the reply, object name)
        size_n = 0.0
        for name in names:
            nbytes = s.objects[name].bytes
            self.size = self.size + q.header + q.size(nbytes)
            size_n += s.p.header + nbytes
            self.bounds.append((size_n, name))
        self.size_n = size_n
        self.lane: Connection | None = None  # the long-haul connection carrying it
        self.got_n = 0.0  # bytes that reached the remote proxy
        self.sent_n = 0.0  # bytes the local proxy forwarded to the client
        self.buffer: list[tuple[Any, float, Point]] = []  # pieces that arrived before their turn

    def name_at(self, offset: float) -> str:
        """The object whose bytes are at ``offset`` within the reply."""
        for end, name in self.bounds:
            if offset < end:
                return name
        return self.bounds[-1][1]


class _Lane:
    """A long-haul connection's streams: requests up, reply pieces down."""

    __slots__ = ("chunk_i", "chunks", "requests", "served")

    def __init__(self) -> None:
        self.requests: list[Reply] = []  # requests relayed on it, in order
        self.served = 0
        self.chunks: list[tuple[float, Reply, Any, float]] = []  # (stream end offset, reply, piece, bytes)
        self.chunk_i = 0


class _Upstream:
    """A server-leg connection: the replies it will carry, in order, and how far its stream has come."""

    __slots__ = ("conn", "ends", "i", "offset", "offset_n", "open", "pending", "replies")

    def __init__(self, conn: Connection, zero: Any) -> None:
        self.conn = conn
        self.replies: list[Reply] = []
        self.ends: list[tuple[Any, float]] = []  # each reply's end offset in the stream (form, number)
        self.i = 0
        self.offset: Any = zero
        self.offset_n = 0.0
        self.open = False
        self.pending: list[tuple[Reply, Point]] = []  # requests waiting for the connection to open


class SplitProxy:
    """The two proxies of a split-proxy path, and the warm connections between them."""

    def __init__(self, s: Session) -> None:
        self.s = s
        x = s.p.proxy
        assert x is not None
        self.lanes: list[tuple[Connection, _Lane]] = []
        for _ in range(x.connections):
            conn = s.add_connection(PATH)
            conn.open(s.start, "warm")
            lane = _Lane()
            conn.server.on_data = lambda t, pkt, c=conn, ln=lane: self._remote_request(c, ln, t, pkt)
            conn.client.on_data = lambda t, pkt, c=conn, ln=lane: self._local_piece(c, ln, t, pkt)
            self.lanes.append((conn, lane))
        self.lane_of = {conn.id: lane for conn, lane in self.lanes}
        self.queues: dict[int, list[Reply]] = {}  # client connection id -> its replies, in request order
        self.heads: dict[int, int] = {}  # client connection id -> the reply being forwarded
        self.upstream: dict[int, _Upstream] = {}  # client connection id -> its server connection
        self.cwnd_cache: int | None = None  # fast start on the server leg

    # ------------------------------------------------------------------ requests
    def attach(self, conn: Connection) -> None:
        """A new client connection: the local proxy answers it."""
        assert conn.leg == CLIENT_LEG
        conn.server.on_data = lambda t, pkt, c=conn: self._local_request(c, t, pkt)
        self.queues[conn.id] = []
        self.heads[conn.id] = 0

    def _least_loaded(self, side: int) -> tuple[Connection, _Lane]:
        """The long-haul connection with the fewest bytes awaiting transmission or unacknowledged (seed 003)."""
        best = self.lanes[0]
        best_load = None
        for conn, lane in self.lanes:
            ep = conn.client if side == 0 else conn.server
            load = ep.end_n - ep.una_n
            if best_load is None or load < best_load:
                best, best_load = (conn, lane), load
        return best

    def _local_request(self, c: Connection, t: Any, pkt: Packet) -> None:
        """Requests complete at the local proxy: relay each up the least loaded long-haul connection."""
        s = self.s
        done = int(c.server.rcv_n // s.p.request)
        while c.served < done:
            names = c.requests[c.served]
            c.served += 1
            reply = Reply(names, c, s)
            self.queues[c.id].append(reply)
            conn, lane = self._least_loaded(0)
            lane.requests.append(reply)
            conn.client.write(t, s.q.request, names[0], Point(t, pkt, None, "request"))

    def _remote_request(self, conn: Connection, lane: _Lane, t: Any, pkt: Packet) -> None:
        """Requests complete at the remote proxy: send each to the server on the client's server connection."""
        done = int(conn.server.rcv_n // self.s.p.request)
        while lane.served < done:
            reply = lane.requests[lane.served]
            lane.served += 1
            self._to_server(reply, Point(t, pkt, None, "request"))

    def _to_server(self, reply: Reply, point: Point) -> None:
        s = self.s
        c = reply.conn
        up = self.upstream.get(c.id)
        if up is None:
            up = self._open_upstream(c, point)
        up.replies.append(reply)
        last = up.ends[-1] if up.ends else (s.q.zero, 0.0)
        up.ends.append((last[0] + reply.size, last[1] + reply.size_n))
        up.conn.requests.append(reply.names)
        if up.open:
            up.conn.client.write(point.t, s.q.request, reply.names[0], point)
        else:
            up.pending.append((reply, point))

    def _open_upstream(self, c: Connection, point: Point) -> _Upstream:
        """The remote proxy's connection to the server for client connection ``c`` (HTTP/1.0: closed by the
        server after its reply; persistent: kept, seed 003 "Persistent HTTP")."""
        s = self.s
        mode = s.open_mode(SERVER_LEG)
        sc = s.add_connection(SERVER_LEG)
        sc.close_after = c.close_after
        if s.p.idle_restart == "fast_start" and self.cwnd_cache is not None:
            sc.server.cwnd = max(sc.server.cwnd, self.cwnd_cache)
        sc.server.on_data = lambda t, pkt, cc=sc: s._server_data(cc, t, pkt)
        sc.server.on_fin = lambda t, pkt, cc=sc: cc.server.send_control(
            "ACK", t, ("arrival", pkt, None, "connection_setup")
        )
        sc.client.on_fin = lambda t, pkt, cc=sc: s._client_fin(cc, t, pkt)
        up = _Upstream(sc, s.q.zero)
        sc.client.on_data = lambda t, pkt, u=up: self._remote_reply(u, t, pkt)
        self.upstream[c.id] = up
        if mode == "ttcp":
            # T/TCP: the first request rides on the SYN (written just after this returns)
            s.eng.at(point.t, self._open_ttcp, up, point)
            up.open = True
            sc.client.hold = True
            return up
        sc.on_open = lambda t, pt, u=up: self._opened(u, pt)
        sc.open(point, mode)
        return up

    def _open_ttcp(self, t: Any, up: _Upstream, point: Point) -> None:
        up.conn.client.hold = False
        up.conn.open(point, "ttcp")

    def _opened(self, up: _Upstream, point: Point) -> None:
        up.open = True
        for reply, _ in up.pending:
            up.conn.client.write(point.t, self.s.q.request, reply.names[0], point)
        up.pending.clear()

    def idle_close(self, t: Any, c: Connection) -> None:
        """The server's idle timeout closes the server connection behind client connection ``c`` too."""
        up = self.upstream.pop(c.id, None)
        if up is not None:
            up.conn.server.close(t, Point(t, None, None, "connection_setup"))

    # ------------------------------------------------------------------- replies
    def _remote_reply(self, up: _Upstream, t: Any, pkt: Packet) -> None:
        """A reply segment reaches the remote proxy: relay it, split at reply boundaries, with its header."""
        s = self.s
        q = s.q
        ep: Endpoint = up.conn.client
        rcv, rcv_n = ep.rcv, ep.rcv_n
        point = Point(t, pkt, None, "serialization")
        while up.offset_n < rcv_n and up.i < len(up.replies):
            reply = up.replies[up.i]
            end, end_n = up.ends[up.i]
            whole = end_n <= rcv_n
            stop, stop_n = (end, end_n) if whole else (rcv, rcv_n)
            piece, piece_n = stop - up.offset, stop_n - up.offset_n
            if reply.lane is None:
                reply.lane = self._least_loaded(1)[0]
            lane = self.lane_of[reply.lane.id]
            name = reply.name_at(reply.got_n)
            reply.got_n += piece_n
            sender = reply.lane.server
            sender.write(t, piece + q.mux, name, point)
            lane.chunks.append((sender.end_n, reply, piece, piece_n))
            up.offset, up.offset_n = stop, stop_n
            if whole:
                up.i += 1
                self.cwnd_cache = up.conn.server.cwnd

    def _local_piece(self, conn: Connection, lane: _Lane, t: Any, pkt: Packet) -> None:
        """Relayed pieces complete at the local proxy: forward each to its client, in its client's order."""
        rcv_n = conn.client.rcv_n
        point = Point(t, pkt, None, "serialization")
        while lane.chunk_i < len(lane.chunks) and lane.chunks[lane.chunk_i][0] <= rcv_n:
            _, reply, piece, piece_n = lane.chunks[lane.chunk_i]
            lane.chunk_i += 1
            c = reply.conn
            queue = self.queues[c.id]
            if queue[self.heads[c.id]] is reply:
                self._forward(reply, piece, piece_n, t, point)
            else:
                reply.buffer.append((piece, piece_n, point))

    def _forward(self, reply: Reply, piece: Any, piece_n: float, t: Any, point: Point) -> None:
        c = reply.conn
        c.server.write(t, piece, reply.name_at(reply.sent_n), point)
        reply.sent_n += piece_n
        if reply.sent_n < reply.size_n:
            return
        self.heads[c.id] += 1
        queue = self.queues[c.id]
        head = self.heads[c.id]
        if head < len(queue):
            waiting = queue[head]
            held, waiting.buffer = waiting.buffer, []
            for part, part_n, _ in held:
                self._forward(waiting, part, part_n, t, point)
        elif c.close_after and head == len(c.requests):
            c.server.close(t, point)
