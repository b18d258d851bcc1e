"""QUIC's transport rules, for HTTP/3: the same window and ACK mechanisms with QUIC's constants.

A QUIC connection (RFC 9000) runs over UDP: there is no SYN exchange; the client's first packet carries
its TLS 1.3 ClientHello (RFC 9001), padded to a full datagram (RFC 9000 14.1), and the server answers with
its handshake flight; the client's Finished leaves with the first request, so the first response byte
arrives after **2 round trips** on a new connection (3 when the server's flight is larger than the
anti-amplification limit below; 1 with 0-RTT on resumption, RFC 9001 4.6). The
schedule runs it on the engine's endpoints (:mod:`latency_lab.engine.tcp`) configured by :func:`latency_lab.protocols.h3.configure`:

- packets carry ``max_datagram - QUIC_PACKET_OVERHEAD`` stream bytes (:func:`stream_payload_bytes`);
- the initial window is ``min(10 max_datagram, max(14720, 2 max_datagram))`` bytes (RFC 9002 7.2),
  :func:`initial_window_segments` of them;
- slow start adds every acknowledged byte (RFC 9002 7.3.1: no per-ACK limit);
- a receiver acknowledges every second ack-eliciting packet or after ``max_ack_delay`` (RFC 9000 13.2.2,
  18.2: 25 ms by default), and handshake packets at once (RFC 9000 13.2.1);
- no Nagle; the window is not reset after idle (RFC 9002 7.8 leaves it to pacing, not modelled);
- one byte sequence per connection as TCP's, with the streams interleaved on it (:mod:`latency_lab.protocols.multiplex`):
  without loss QUIC's independent streams deliver as TCP would; the difference, head-of-line blocking
  under loss, is :mod:`latency_lab.mechanisms.loss`'s.

The anti-amplification limit (RFC 9000 8.1): until it has validated the client's address, a server sends
at most ``AMPLIFICATION_FACTOR = 3`` times the UDP payload bytes it has received from it. On a new connection
it has received the client's Initial, padded to one full datagram of ``D = quic.max_datagram_bytes`` (RFC
9000 14.1), so its first flight may carry ``3 D`` bytes of datagrams, in full packets of ``D - 30`` crypto
bytes (:data:`QUIC_PACKET_OVERHEAD`)::

    A = 3 (D - 30)   bytes of the server's flight before validation   (3,510 for D = 1,200)

(:func:`amplification_allowance_bytes`; the server's ACK of the Initial rides in that first datagram in a
real stack, so it is not charged). A flight ``F > A`` is split: ``A`` bytes leave at once and ``F - A`` when
the client's next packet arrives, the ACK it sends at once for the first handshake packet (RFC 9000 13.2.1).
That datagram carries a Handshake packet, and "receipt of a packet protected with Handshake keys confirms
that the peer successfully processed an Initial packet" (8.1): the address is validated and the rest of the
flight leaves whole (quiche sets ``verified_peer_address`` on the first Handshake packet it receives,
``MAX_AMPLIFICATION_FACTOR = 3``, in ``quiche/src/lib.rs``; quic-go sets ``peerAddressValidated`` in
``sentPacketHandler.ReceivedPacket`` for ``EncryptionHandshake``, ``amplificationFactor = 3``, in
``internal/ackhandler/sent_packet_handler.go``). Counting that datagram's bytes instead gives the same: it
carries an Initial ACK, so it is padded to ``D`` too (14.1), and ``6 D`` covers any flight up to ``6 (D - 30)``.
The rest arrives about one round trip after the first part: a cold h3 connection takes **2 round trips**
before the request, as TCP with TLS 1.3 does (:attr:`latency_lab.mechanisms.tls.Handshake.round_trips`).

Whether it binds is the size of the certificate chain. ``tls.server_flight_bytes`` keeps its 4,000-byte
default (an uncompressed chain of two RSA-2048 certificates with the handshake's other messages, the figure
TLS over TCP uses), above ``A`` = 3,510: Nawrocki et al., "On the Interplay between TLS Certificates and QUIC
Performance" (arXiv:2211.02421, 2022) found the certificates of 35% of the 272k QUIC services of the Tranco top
million too large for the limit. Certificate compression (RFC 8879, by Cloudflare and Google authors) brings
such a chain under it, but it needs support at both ends and is not yet everywhere; so the default keeps the
uncompressed chain and h3 pays the extra round trip on a cold connection. A
compressed or ECDSA chain (``tls.server_flight_bytes`` of about 3,000 or less) gives the 1-RTT handshake.

Left out: ACK frequency negotiation, pacing, the larger Initials browsers send (Chromium pads to 1,250 bytes
and Firefox to 1,350, per Nawrocki et al.; ``quic.max_datagram_bytes`` can be set to either), the long headers of
Initial and Handshake packets (the 30-byte short-header overhead is used for all), and the 12-byte difference
between the IP+UDP and IP+TCP headers (the per-packet overhead ``o`` is used for both).
"""

from __future__ import annotations

from latency_lab.mechanisms import tls
from latency_lab.scenario.profiles import TcpProfile

#: QUIC bytes in a 1-RTT packet beyond the stream data: short header (1 flag byte, 8-byte connection ID,
#: 2-byte packet number), the AEAD tag (16) and a STREAM frame header (3).
QUIC_PACKET_OVERHEAD = 30
#: ACK every this many ack-eliciting packets (RFC 9000 13.2.2).
ACK_ELICITING_THRESHOLD = 2
#: The client's Handshake packet with its Finished (bytes of crypto data).
CLIENT_FINISHED_BYTES = 58
#: Before validating the client's address a server sends at most this many times the bytes it has received
#: from it (RFC 9000 8.1).
AMPLIFICATION_FACTOR = 3

#: QUIC's rules in the engine's terms (see :mod:`latency_lab.scenario.profiles` for the fields).
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


def amplification_allowance_bytes(max_datagram_bytes: int) -> int:
    """Bytes of the server's first flight that may leave before the client's address is validated (bytes):
    ``A = 3 (D - 30)``, three full datagrams for the client's ``D``-byte Initial. RFC 9000, 8.1 and 14.1."""
    return AMPLIFICATION_FACTOR * stream_payload_bytes(max_datagram_bytes)


def handshake(resumed: bool, early_data: bool, max_datagram_bytes: int, server_flight_bytes: int) -> tls.Handshake:
    """QUIC's TLS 1.3 handshake (RFC 9001): the ClientHello fills the first datagram (padded, RFC 9000 14.1),
    the server's flight follows, the client's Finished goes with the first request: 1 round trip, 2 when the
    flight is larger than the anti-amplification allowance (RFC 9000 8.1, :func:`amplification_allowance_bytes`);
    0 with 0-RTT on resumption (the request goes with the ClientHello)."""
    hello = stream_payload_bytes(max_datagram_bytes)
    limit = amplification_allowance_bytes(max_datagram_bytes)
    if resumed and early_data:
        flights = (hello, tls.RESUMED_SERVER_FLIGHT_13_BYTES, CLIENT_FINISHED_BYTES)
        return tls.Handshake("QUIC 0-RTT", flights, 0, 0, limit)
    flight = tls.RESUMED_SERVER_FLIGHT_13_BYTES if resumed else server_flight_bytes
    return tls.Handshake("QUIC", (hello, flight, CLIENT_FINISHED_BYTES), 2, 2 if flight > limit else 1, limit)
