"""QUIC's transport rules, for HTTP/3: the same window and ACK mechanisms with QUIC's constants.

A QUIC connection (RFC 9000) runs over UDP: there is no SYN exchange; the client's first packet carries
its TLS 1.3 ClientHello (RFC 9001), padded to a full datagram (RFC 9000 14.1), and the server answers with
its handshake flight; the client's Finished leaves with the first request, so the first response byte
arrives after **2 round trips** on a new connection (1 with 0-RTT on resumption, RFC 9001 4.6). The
schedule runs it on the engine's endpoints (:mod:`model.engine.tcp`) configured by :func:`model.protocols.h3.configure`:

- packets carry ``max_datagram - QUIC_PACKET_OVERHEAD`` stream bytes (:func:`stream_payload_bytes`);
- the initial window is ``min(10 max_datagram, max(14720, 2 max_datagram))`` bytes (RFC 9002 7.2),
  :func:`initial_window_segments` of them;
- slow start adds every acknowledged byte (RFC 9002 7.3.1: no per-ACK limit);
- a receiver acknowledges every second ack-eliciting packet or after ``max_ack_delay`` (RFC 9000 13.2.2,
  18.2: 25 ms by default), and handshake packets at once (RFC 9000 13.2.1);
- no Nagle; the window is not reset after idle (RFC 9002 7.8 leaves it to pacing, not modelled);
- one byte sequence per connection as TCP's, with the streams interleaved on it (:mod:`model.protocols.multiplex`):
  without loss QUIC's independent streams deliver as TCP would; the difference, head-of-line blocking
  under loss, is :mod:`model.mechanisms.loss`'s.

Left out: the anti-amplification limit (a server may send 3 times what it received before the client's
address is validated, RFC 9000 8.1: a 4,000-byte flight against a 1,200-byte Initial would wait for the
client's next packet unless the certificate is compressed, RFC 8879), ACK frequency negotiation, pacing,
and the 12-byte difference between the IP+UDP and IP+TCP headers (the per-packet overhead ``o`` is used for
both).
"""

from __future__ import annotations

from model.mechanisms import tls
from model.scenario.profiles import TcpProfile

#: QUIC bytes in a 1-RTT packet beyond the stream data: short header (1 flag byte, 8-byte connection ID,
#: 2-byte packet number), the AEAD tag (16) and a STREAM frame header (3).
QUIC_PACKET_OVERHEAD = 30
#: ACK every this many ack-eliciting packets (RFC 9000 13.2.2).
ACK_ELICITING_THRESHOLD = 2
#: The client's Handshake packet with its Finished (bytes of crypto data).
CLIENT_FINISHED_BYTES = 58

#: QUIC's rules in the engine's terms (see :mod:`model.scenario.profiles` for the fields).
QUIC_PROFILE = TcpProfile(
    name="quic",
    description="QUIC (RFC 9000/9002): IW 10 datagrams, byte-counting slow start, ACK every 2 packets or 25 ms.",
    syn_ack_opens_window=False,
    ack_counts_bytes=False,
    nagle_idle_at_entry=False,
    close_sends_held=True,
    cwnd_counts_bytes=True,
    cwnd_abc_limit_segments=1_000_000,
)


def stream_payload_bytes(max_datagram_bytes: int) -> int:
    """Stream bytes a full QUIC packet carries (bytes): ``max_datagram - 30`` (see QUIC_PACKET_OVERHEAD)."""
    return max_datagram_bytes - QUIC_PACKET_OVERHEAD


def initial_window_bytes(max_datagram_bytes: int) -> int:
    """QUIC's initial congestion window (bytes): ``min(10 D, max(14720, 2 D))``. RFC 9002, 7.2."""
    return min(10 * max_datagram_bytes, max(14_720, 2 * max_datagram_bytes))


def initial_window_segments(max_datagram_bytes: int) -> int:
    """The initial window in full packets (segments): ``floor(IW / D)``; 10 for D = 1200. RFC 9002, 7.2."""
    return initial_window_bytes(max_datagram_bytes) // max_datagram_bytes


def handshake(resumed: bool, early_data: bool, max_datagram_bytes: int, server_flight_bytes: int) -> tls.Handshake:
    """QUIC's TLS 1.3 handshake (RFC 9001): the ClientHello fills the first datagram (padded, RFC 9000 14.1),
    the server's flight follows, the client's Finished goes with the first request: 1 round trip; 0 with
    0-RTT on resumption (the request goes with the ClientHello)."""
    hello = stream_payload_bytes(max_datagram_bytes)
    if resumed and early_data:
        return tls.Handshake("QUIC 0-RTT", (hello, tls.RESUMED_SERVER_FLIGHT_13_BYTES, CLIENT_FINISHED_BYTES), 0, 0)
    flight = tls.RESUMED_SERVER_FLIGHT_13_BYTES if resumed else server_flight_bytes
    return tls.Handshake("QUIC", (hello, flight, CLIENT_FINISHED_BYTES), 2, 1)
