"""Streams on one connection: HTTP/2 (RFC 9113) and HTTP/3 (RFC 9114) request and response multiplexing.

The client sends its requests without waiting for earlier responses, each on its own stream, the ones after
the first with headers compressed against those already sent (HPACK, RFC 7541; QPACK, RFC 9204): a request
of ``multiplex.request_bytes`` (40 bytes by default, a typical repeat request's HEADERS frame) after the
first's ``http.request_bytes``. Requests written at the same instant leave together, packed into full
segments. The server answers the requests that arrive together as one batch after one think time (it
handles them concurrently), and writes their responses interleaved round-robin, one DATA frame of
``multiplex.frame_bytes`` per stream in turn (16,384 bytes, HTTP/2's default maximum frame size,
RFC 9113 6.5.2), so the small responses of a batch complete first and the large ones share the link, as a
server that ignores priorities does. Given the requests' RFC 9218 priorities (``page.object_urgency``,
``page.object_incremental``), it writes the more urgent responses first, and within one urgency the
non-incremental ones whole in request order before the incremental ones in turns (:func:`frame_order`). Responses of a later
batch follow the bytes already written: the server hands its frames to the transport at once (a socket
buffer that holds them, without TCP_NOTSENT_LOWAT). All streams share one congestion window. An object is
complete when its last frame arrives.

h2's SETTINGS (RFC 9113 3.4, 6.5): given ``multiplex.server_settings_bytes`` and ``multiplex.settings_ack_bytes``
(0, not written, by default), the server writes, once per connection, its SETTINGS record and its ACK of the
client's SETTINGS, each a write of its own, when the client's first bytes after the handshake (its preface, with
the first request) arrive: after the TLS 1.3 session tickets written at that arrival
(:mod:`latency_lab.protocols.secure_setup`), before the first response (and before a 103 Early Hints). Each leaves
as a segment of its own when the window allows: a whole slot of a window of packets (``tcp.window_counts_packets``,
as Linux counts: an nginx + Chromium capture over TLS 1.3 showed 2 tickets, SETTINGS and its ACK using 4 of the
initial window's 10 segments, issue 28), its bytes of a window of ``cwnd x MSS`` bytes. Their bytes are the connection's, not an object's (``SETTINGS_OBJECT``; the client's
application skips them as it skips handshake bytes). Over plain TCP (h2c) the same rule holds (the server's
SETTINGS when the client's preface arrives), though nginx writes them in its first response's segment there. Not
on h3: its SETTINGS ride on QUIC's control streams, and the two fields are ignored. With 0-RTT early data the
request arrives before the client's Finished, so the SETTINGS precede the tickets.

Left out: the 9-byte frame headers and the client's connection preface, SETTINGS and SETTINGS ACK (the response
header of ``http.response_header_bytes`` stands for the compressed HEADERS frame, the first request's
``http.request_bytes`` for the client's first flight), flow control windows per stream (the connection's receive
window applies), server push, and a later batch's more urgent responses overtaking bytes already written (the
server hands its frames to the transport at once).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.lin import value
from latency_lab.engine.tcp import Connection

DoneFn = Callable[[str, Any, Packet], None]
#: The name a 103 Early Hints response is expected under on its connection: this, then the HTML's name.
HINTS_PREFIX = "103:"
#: The object name of h2's SETTINGS records (packets' ``obj``): the connection's bytes, not an object's.
SETTINGS_OBJECT = "h2_settings"


def _no_hints(html: str, t: Any, pkt: Packet) -> None:  # pragma: no cover - a 103 is written only where h2.load set it
    raise AssertionError(f"a 103 Early Hints response for {html} arrived on a connection that expects none")


def round_robin(sizes: list[float], frame: float) -> list[tuple[int, float]]:
    """The frames of responses written together: ``(stream index, bytes)`` in the order they are written.

    Each turn gives every unfinished stream one frame of ``min(frame, left)`` bytes (RFC 9113 5, streams
    interleaved on the connection); a stream of ``n`` bytes takes ``ceil(n / frame)`` turns.
    """
    left = list(sizes)
    out: list[tuple[int, float]] = []
    while any(x > 0 for x in left):
        for i, x in enumerate(left):
            if x > 0:
                chunk = min(frame, x)
                out.append((i, chunk))
                left[i] = x - chunk
    return out


def frame_order(sizes: list[float], frame: float, priorities: list[tuple[int, bool]]) -> list[tuple[int, float]]:
    """The frames of responses written together, by their RFC 9218 priorities ``(urgency, incremental)``:
    ``(stream index, bytes)`` in the order they are written.

    The more urgent first (a lower urgency); within one urgency the non-incremental streams whole, one after
    another in request order, then the incremental ones in turns (:func:`round_robin`), as Cloudflare's quiche
    orders them (RFC 9218 10 leaves the mix to the server). All of one urgency and incremental (no priorities
    given): :func:`round_robin` of them all.
    """
    out: list[tuple[int, float]] = []
    for urgency in sorted({u for u, _ in priorities}):
        for i, (u, incremental) in enumerate(priorities):
            if u == urgency and not incremental:  # whole, in request order
                out += [(i, n) for _, n in round_robin([sizes[i]], frame)]
        turns = [i for i, (u, incremental) in enumerate(priorities) if u == urgency and incremental]
        out += [(turns[k], n) for k, n in round_robin([sizes[i] for i in turns], frame)]
    return out


class Mux:
    """The streams of one connection: requests written, responses framed round-robin."""

    def __init__(self, session: Any, conn: Connection) -> None:
        self.s = session
        self.conn = conn
        self.req_ends: list[float] = []  # cumulative end offset of each request (application bytes)
        self.req_names: list[str] = []
        self.req_end = 0.0
        self.read = 0  # requests the server has taken
        self.down_end = 0.0  # application bytes the server has written
        self.batches = 0
        # what the client does when a 103 Early Hints response arrives, given the HTML's name (h2.load sets it)
        self.on_hints: Callable[[str, Any, Packet], None] = _no_hints
        # h2's SETTINGS records to write once the client's first bytes arrive (none on h3: QUIC's control streams)
        p = session.p
        h3 = session.quic_open is not None
        self.settings = [] if h3 else [n for n in (p.mux_server_settings, p.mux_settings_ack) if n > 0]
        conn.mux = self

    def requests(self, names: list[str], point: Point, on_done: DoneFn) -> None:
        """The client writes requests for ``names`` at ``point``, in one go (the first stream's request
        full size, later ones compressed)."""
        s, q = self.s, self.s.q
        self.conn.on_done = on_done
        sizes = []
        for name in names:
            rec = s.objects[name]
            rec.connection = self.conn.id
            if rec.start is None:
                rec.start = point.t
            size = q.request if not self.req_names else q.size(s.p.mux_request)
            sizes.append(size)
            self.req_end += value(size)
            self.req_ends.append(self.req_end)
            self.req_names.append(name)
        s.eng.at(point.t, self._write_requests, names, sizes, point)

    def _write_requests(self, t: Any, names: list[str], sizes: list[Any], point: Point) -> None:
        client = self.conn.client
        held = client.hold
        client.hold = True
        for name, size in zip(names, sizes, strict=True):
            client.write(t, size, name, point)
        client.hold = held
        client.output(t, ("app", point))

    def server_data(self, t: Any, pkt: Packet) -> None:
        """Requests completed by this arrival become one batch, answered after one think time."""
        got = self.conn.server.app_received()
        if self.settings and got > 0:  # the client's preface has arrived: h2's SETTINGS records, once
            self._write_settings(t, pkt)
        batch = []
        while self.read < len(self.req_ends) and got >= self.req_ends[self.read]:
            batch.append(self.req_names[self.read])
            self.read += 1
        if not batch:
            return
        s = self.s
        q = s.q
        if batch[0] in s.hints:  # a page's HTML, with hints: the 103 Early Hints first, at once (RFC 8297)
            s.eng.at(pkt.t_a, self._write_hints, batch[0], Point(pkt.t_a, pkt, None, "server"))
        extra = q.server_think
        if self.batches == 0 and value(q.conn_overhead) > 0:
            extra = extra + q.conn_overhead
        self.batches += 1
        last: Point | None = self.conn.last_write
        base: Packet | Point = pkt
        begin = pkt.t_a
        if s.hinted and all(name in s.hinted for name in batch):
            # requests a 103 named: the server handles them beside the HTML's (its think time runs from their
            # arrival, not after the HTML's), and writes their responses after the bytes written before
            if last is not None and value(last.t) > value(begin + extra):
                base, begin, extra = last, last.t, q.zero
        elif last is not None and last.t > begin:
            base, begin = last, last.t
        w = begin + extra
        point = Point(w, base, extra if value(extra) > 0 else None, "server")
        self.conn.last_write = point
        s.eng.at(w, self._write_responses, batch, point)

    def _write_settings(self, t: Any, pkt: Packet) -> None:
        """The server writes its SETTINGS record and its SETTINGS ACK, each on its own, as it writes the tickets
        (:meth:`latency_lab.protocols.secure_setup.Dialogue._write`: after ns-3's deferred ACK where the profile
        delivers data before ACKing it)."""
        srv = self.conn.server
        point = Point(t, pkt, None, "server")
        records, self.settings = self.settings, []
        for nbytes in records:
            if srv.profile.deliver_before_ack:
                self.s.eng.at(t, self._put_settings, nbytes, point)
            else:
                self._put_settings(t, nbytes, point)

    def _put_settings(self, t: Any, nbytes: int, point: Point) -> None:
        srv = self.conn.server
        begin = srv.end_n
        srv.write(t, srv.q.size(nbytes), SETTINGS_OBJECT, point)
        srv.hs_ranges.append((begin, srv.end_n))  # not the application's bytes (Endpoint.app_received)

    def _write_hints(self, t: Any, html: str, point: Point) -> None:
        """The server writes the 103 Early Hints response for ``html`` (``http.early_hints_bytes``), a write of its
        own; the client acts on it when its last byte arrives."""
        s = self.s
        srv = self.conn.server
        size = s.p.early_hints_bytes
        srv.write(t, s.q.size(size), html, point)
        self.down_end += size
        self.conn.expect.append((self.down_end, HINTS_PREFIX + html))

    def _write_responses(self, t: Any, names: list[str], point: Point) -> None:
        s, q, p = self.s, self.s.q, self.s.p
        srv = self.conn.server
        held = srv.hold
        srv.hold = True
        alone = p.mux_headers_alone
        if alone:  # the HEADERS frames first, in a write of their own (multiplex.headers_alone)
            for name in names:
                srv.write(t, q.header, name, point)
                self.down_end += value(q.header)
                if s.objects[name].bytes <= 0:
                    self.conn.expect.append((self.down_end, name))
            srv.hold = held
            srv.output(t, ("app", point))
            srv.hold = True
        totals = [
            (q.size(s.objects[name].bytes) if alone else q.header + q.size(s.objects[name].bytes)) for name in names
        ]
        sizes = [value(x) for x in totals]
        sent = [0.0] * len(names)
        # the bytes of each stream that name objects as it streams (page.object_named_at_bytes), from its start
        head = 0 if alone else p.header
        marks = [[(head + at, pseudo) for at, pseudo in s.named.get(name, ())] for name in names]
        for i, n in frame_order(sizes, p.frame, [s.priority[name] for name in names]):
            last = sent[i] + n >= sizes[i]
            # the last frame carries what is left of header + body, so a stream's frames add up to its form
            part = (totals[i] - q.size(sent[i]) if sent[i] else totals[i]) if last else q.size(n)
            while marks[i] and marks[i][0][0] <= sent[i] + n:  # a byte that names objects is in this frame
                at, pseudo = marks[i].pop(0)
                self.conn.expect.append((self.down_end + at - sent[i], pseudo))
            sent[i] += n
            srv.write(t, part, names[i], point)
            self.down_end += n
            if last:
                self.conn.expect.append((self.down_end, names[i]))
        srv.hold = held
        srv.output(t, ("app", point))
