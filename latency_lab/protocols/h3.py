"""HTTP/3 (RFC 9114) over QUIC (RFC 9000): the streams of HTTP/2 on a QUIC connection (:mod:`latency_lab.mechanisms.quic`).

The connection opens with QUIC's combined transport and TLS 1.3 handshake, one round trip (0-RTT when a
session is resumed with early data, ``tls.resumption`` and ``tls.early_data``), after the DNS lookup if
any; TCP's handshake and ``tcp.handshake`` do not apply, and TLS is always 1.3 whatever ``tls.version``
says. Requests and responses are multiplexed as for ``h2`` (:mod:`latency_lab.protocols.multiplex`, QPACK for HPACK).
With ``page.origins`` each origin has its own QUIC connection (after its DNS lookup, or preconnected), as for h2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from latency_lab.engine.core import Point
from latency_lab.engine.lin import Lin
from latency_lab.engine.tcp import Connection
from latency_lab.mechanisms import quic, tls
from latency_lab.protocols import h2, secure_setup
from latency_lab.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    s.quic_open = lambda c, point, index, then: open_quic(s, c, point, index, then)  # the other origins' too
    conn = s.keep_conn
    if conn is not None:
        h2.load(s, conn, names, start)
        s.preconnect_origins(start, close_after=False, streams=True)
        return
    start = secure_setup.after_lookup(s, start)
    conn = s.new_connection(close_after=False)
    s.keep_conn = conn
    opened = conn
    open_quic(s, conn, start, len(s.conns) - 1 - s.other_conns, lambda point: h2.load(s, opened, names, point))
    s.preconnect_origins(start, close_after=False, streams=True)


def open_quic(s: Session, conn: Connection, start: Point, index: int, then: Callable[[Point], None]) -> None:
    """QUIC's handshake on ``conn`` at ``start``, then ``then(point)``; ``index``: the connections to the same server
    before it (resumption needs one)."""
    p = s.p
    configure(conn)
    resumed = tls.resumed(p.tls_resumption, index)
    hs = quic.handshake(resumed, p.tls_early_data, p.quic_datagram, p.tls_server_flight)
    s.tls_handshakes += 1
    secure_setup.Dialogue(s, conn, hs, then).start(start)


def configure(conn: Connection) -> None:
    """Make a connection's two endpoints follow QUIC's rules (its packets, window and ACKs)."""
    q = conn.eng.q
    p = q.p
    payload = quic.stream_payload_bytes(p.quic_datagram)
    delay: Any = Lin.const(p.quic_ack_delay) if q.traced else p.quic_ack_delay
    for ep in (conn.client, conn.server):
        ep.set_profile(quic.QUIC_PROFILE)
        ep.mss = q.size(payload)
        ep.mss_n = payload
        ep.nagle = False
        ep.window_packets = False  # RFC 9002: bytes in flight
        ep.cwnd = quic.initial_window_segments(p.quic_datagram)
        ep.cwnd_cap = p.rwnd // payload + 2
        ep.dack_bytes = False
        ep.dack_segments = quic.ACK_ELICITING_THRESHOLD
        ep.dack_ms = p.quic_ack_delay
        ep.dack = delay
        ep.idle_restart = "keep"
        ep.quick_ack = False
        ep.quickacks = 0
        ep.pingpong_ack = False
        ep.ack_handshake = True
