"""HTTP/3 (RFC 9114) over QUIC (RFC 9000): the streams of HTTP/2 on a QUIC connection (:mod:`model.quic`).

The connection opens with QUIC's combined transport and TLS 1.3 handshake, one round trip (0-RTT when a
session is resumed with early data, ``tls.resumption`` and ``tls.early_data``), after the DNS lookup if
any; TCP's handshake and ``tcp.handshake`` do not apply, and TLS is always 1.3 whatever ``tls.version``
says. Requests and responses are multiplexed as for ``h2`` (:mod:`model.multiplex`, QPACK for HPACK).
"""

from __future__ import annotations

from model import quic, secure_setup, tls
from model.engine import Point
from model.protocols import h2
from model.protocols.base import Session


def run(s: Session, names: list[str], start: Point) -> None:
    conn = s.keep_conn
    if conn is not None:
        h2.load(s, conn, names, start)
        return
    p = s.p
    start = secure_setup.after_lookup(s, start)
    conn = s.new_connection(close_after=False)
    s.keep_conn = conn
    quic.configure(conn)
    resumed = tls.resumed(p.tls_resumption, len(s.conns) - 1)
    hs = quic.handshake(resumed, p.tls_early_data, p.quic_datagram, p.tls_server_flight)
    s.tls_handshakes += 1
    opened = conn
    secure_setup.Dialogue(s, conn, hs, lambda point: h2.load(s, opened, names, point)).start(start)
