"""Setting a connection up for the first request beyond TCP's handshake: DNS, TLS, TCP Fast Open.

:mod:`latency_lab.mechanisms.dns` and :mod:`latency_lab.mechanisms.tls` give the quantities; this module runs them on a connection of the
schedule. A :class:`Dialogue` writes a TLS handshake's flights (:func:`latency_lab.mechanisms.tls.handshake`) as data on
the connection, each side writing its next flight when the other's previous one has fully arrived, and
hands the connection to the protocol (the first request) at the flight the handshake names. Handshake
bytes are marked in the writer's stream (``Endpoint.hs_ranges``) so the applications count only their
own bytes (``Endpoint.app_received``). Packets carrying them are filed under ``tls_setup`` on the
critical path (:mod:`latency_lab.analysis.critical_path`).

QUIC's anti-amplification limit (RFC 9000 8.1, :func:`latency_lab.mechanisms.quic.amplification_allowance_bytes`):
when the handshake names one (``Handshake.amplification_limit``) and the server's first flight is larger, the
server writes the allowance at once and the rest when the client's next packet reaches it: the ACK the client
sends at once for the flight's first packet (its Handshake packet, which validates the client's address). That
ACK is TLS setup on the critical path too, so the round trip it adds is filed under ``tls_setup``.

TCP Fast Open (RFC 7413) is ``tcp.handshake = "fast_open"``: as T/TCP (``ttcp``, RFC 1644) the client's
first bytes ride on the SYN and the server answers before the handshake completes, but on every
connection (the cookie, RFC 7413 4.1, came from an earlier visit), at most one MSS less the SYN's option
bytes of data on the SYN (:func:`latency_lab.mechanisms.connection_setup.fast_open_syn_data_bytes`),
and the SYN carries the cookie option (:data:`latency_lab.mechanisms.connection_setup.FAST_OPEN_OPTION_BYTES`). With TLS the
SYN carries the ClientHello, and with 0-RTT early data the request too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from latency_lab.engine.core import Packet, Point
from latency_lab.engine.tcp import Connection, Endpoint
from latency_lab.mechanisms import tls

#: The object name of handshake bytes (packets' ``obj``); :func:`latency_lab.analysis.critical_path.category_of` reads it.
TLS_OBJECT = "tls"


class Dialogue:
    """A TLS handshake running on one connection; ``then(point)`` writes the first request."""

    def __init__(self, session: Any, conn: Connection, hs: tls.Handshake, then: Callable[[Point], None]) -> None:
        self.session = session
        self.conn = conn
        self.hs = hs
        self.then = then
        self.k = 0  # the next flight to write
        self.ends: list[float] = []  # each written flight's end offset in its writer's stream
        self.rest = 0  # bytes of the server's first flight held back by the anti-amplification limit
        self.tickets_sent = False
        conn.tls = self

    def start(self, point: Point) -> None:
        """The client writes its first flight (the ClientHello) at ``point``."""
        self._client_flight(point)

    def _write(self, ep: Endpoint, nbytes: int, point: Point, hold: bool = False) -> None:
        """``ep`` writes a flight at ``point`` (``hold``: kept in its buffer until the next write takes it).

        On a profile that hands arriving data to the application before ACKing it (``deliver_before_ack``,
        ns3) the flight still leaves after that ACK: ns-3's ``Send()`` defers the transmission by one time
        step, as the server's responses are deferred (:meth:`latency_lab.protocols.base.Session._server_data`).
        """
        if ep.profile.deliver_before_ack:
            self.session.eng.at(point.t, self._put, ep, nbytes, point, hold)
        else:
            self._put(point.t, ep, nbytes, point, hold)

    def _put(self, t: Any, ep: Endpoint, nbytes: int, point: Point, hold: bool) -> None:
        begin = ep.end_n
        held = ep.hold
        ep.hold = held or hold
        ep.write(t, ep.q.size(nbytes), TLS_OBJECT, point)
        ep.hold = held
        ep.hs_ranges.append((begin, ep.end_n))
        self.session.tls_bytes += nbytes
        self.ends.append(ep.end_n + self.rest)  # a flight split by the amplification limit ends with its rest

    def _client_flight(self, point: Point) -> None:
        k = self.k
        self.k = k + 1
        client = self.conn.client
        if k == self.hs.ready:
            # the flight goes with the first request: buffered until the request is written
            self._write(client, self.hs.flights[k], point, hold=True)
            self.then(point)
        else:
            self._write(client, self.hs.flights[k], point)

    def server_data(self, t: Any, pkt: Packet) -> None:
        """Data reached the server: if it completes the client's flight, the server writes its next one."""
        k = self.k
        if k < len(self.hs.flights) and k % 2 == 1 and self.conn.server.rcv_n >= self.ends[k - 1]:
            self.k = k + 1
            nbytes = self.hs.flights[k]
            limit = self.hs.amplification_limit
            if k == 1 and 0 < limit < nbytes:  # RFC 9000 8.1: the rest waits for the client's next packet
                self.rest = nbytes - limit
                nbytes = limit
            self._write(self.conn.server, nbytes, Point(t, pkt, None, "tls_setup"))
        elif (
            self.hs.tickets
            and not self.tickets_sent
            and k == len(self.hs.flights)
            and self.conn.server.rcv_n >= self.ends[k - 1]
        ):
            # TLS 1.3: the client's last flight has arrived; the server's tickets, each written on its own
            self.tickets_sent = True
            for nbytes in self.hs.tickets:
                self._write(self.conn.server, nbytes, Point(t, pkt, None, "tls_setup"))

    def _await_validation(self) -> None:
        """The client has just acknowledged the server's first handshake packet (at once, RFC 9000 13.2.1):
        when that ACK reaches the server the client's address is validated and the rest of the flight leaves."""
        eng = self.session.eng
        ack = eng.packets[-1]
        if ack.conn != self.conn.id or ack.dir != self.conn.client.dir or ack.n > 0:
            return
        rest = self.rest
        self.rest = 0
        ack.obj = TLS_OBJECT
        eng.at(ack.t_a, self._validated, ack, rest)

    def _validated(self, t: Any, ack: Packet, rest: int) -> None:
        server = self.conn.server
        begin = server.end_n
        server.write(t, server.q.size(rest), TLS_OBJECT, Point(t, ack, None, "tls_setup"))
        server.hs_ranges.append((begin, server.end_n))
        self.session.tls_bytes += rest

    def client_data(self, t: Any, pkt: Packet) -> None:
        """Data reached the client: if it completes the server's flight, the client answers or is ready."""
        if self.rest > 0:
            self._await_validation()
        k = self.k
        if k % 2 == 1 or k > len(self.hs.flights) or self.conn.client.rcv_n < self.ends[k - 1]:
            return
        point = Point(t, pkt, None, "tls_setup")
        if k < len(self.hs.flights):
            self._client_flight(point)
        elif k == self.hs.ready:
            self.k = k + 1
            self.then(point)


def secure(
    session: Any, conn: Connection, mode: str, then: Callable[[Point], None], index: int | None = None
) -> Callable[[Point], None]:
    """``then`` preceded by the scenario's TLS handshake on ``conn`` (unchanged without TLS, or when the
    connection is already open: ``tcp.handshake = "none"`` stands for a warm connection, TLS included).
    ``index``: how many connections to the same server came before (resumption needs an earlier one); by default
    those to the HTML's origin."""
    p = session.p
    if p.tls == "none" or mode == "none":
        return then
    if index is None:
        index = len(session.conns) - 1 - session.other_conns
    resumed = tls.resumed(p.tls_resumption, index)
    tickets = (p.tls_ticket_bytes,) * p.tls_tickets
    hs = tls.handshake(
        p.tls, resumed, p.tls_early_data, p.tls_client_hello, p.tls_server_flight, p.tls_false_start, tickets
    )
    session.tls_handshakes += 1
    return lambda point: Dialogue(session, conn, hs, then).start(point)


def after_lookup(session: Any, point: Point) -> Point:
    """The point a session's first connection may open: after the DNS lookup (:mod:`latency_lab.mechanisms.dns`), if any."""
    q = session.q
    if session.conns or session.dns_done or session.p.dns_ms <= 0:
        return point
    session.dns_done = True
    session.dns_lookups += 1
    return Point(point.t + q.dns, point, q.dns, "dns")
