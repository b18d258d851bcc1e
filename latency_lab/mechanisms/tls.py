"""TLS handshakes as packets: the flights a client and server exchange before the first request.

The handshake is a short dialogue of *flights* on the connection, each written by one side once it has
received the other side's previous flight; the bytes travel in TCP segments like any other data, under
the same window, ACK and Nagle rules, so a server flight larger than the initial window costs slow-start
rounds (as certificate chains do). The client may send its first request after the flight named in
:data:`HANDSHAKES`. Sizes are TLS records (5-byte header) with today's common choices: ECDHE on X25519 or
P-256, an RSA-2048 or ECDSA certificate chain of two certificates, AES-GCM (16-byte tag).

TLS 1.3, full handshake (RFC 8446, 2 and figure 1): ClientHello (with key share) -> ServerHello,
EncryptedExtensions, Certificate, CertificateVerify, Finished -> client Finished, sent with the first
request: **1 round trip**. Resumed with a PSK (RFC 8446, 2.2): the server's flight has no certificate; with
early data (2.3) the first request goes with the ClientHello: **0 round trips**, the client's
EndOfEarlyData and Finished following when the server's flight arrives.

TLS 1.2, full handshake (RFC 5246, 7.3, figure 1): ClientHello -> ServerHello, Certificate,
ServerKeyExchange, ServerHelloDone -> ClientKeyExchange, ChangeCipherSpec, Finished -> ChangeCipherSpec,
Finished: **2 round trips** before the request. With False Start (RFC 7918, ``tls.false_start``), an
optional client behaviour that "reduces handshake latency to one round trip" (its abstract), the client
sends its first request right after its own ChangeCipherSpec and Finished instead of waiting for the
server's (RFC 7918, 4): the request leaves with the client's second flight, **1 round trip** before the
request, and the server's ChangeCipherSpec and Finished arrive ahead of the response. Clients do it only
with a forward-secret key exchange and a strong cipher (RFC 7918, 5), the model's ECDHE and AES-GCM.
Abbreviated handshake on resumption (RFC 5246, 7.3, figure 2; RFC 5077 tickets): ClientHello ->
ServerHello, ChangeCipherSpec, Finished -> ChangeCipherSpec, Finished with the request: **1 round trip**,
False Start or not (the client already speaks last).

Left out: TLS record overhead on application data (22-29 bytes per record of up to 16 KB, about 0.15%),
the server's NewSessionTicket after the handshake, OCSP stapling, and the time to compute signatures and
key exchanges (``http.connection_overhead_ms`` can stand for it).
"""

from __future__ import annotations

from dataclasses import dataclass

#: ClientHello (bytes): browsers pad it to 512 bytes (RFC 7685's padding extension; Chrome, Firefox).
CLIENT_HELLO_BYTES = 512
#: Server's first flight of a full handshake with a two-certificate chain (bytes): about 4 KB.
SERVER_FLIGHT_BYTES = 4000
#: TLS 1.3 client Finished (bytes): a compatibility ChangeCipherSpec (6) and the Finished record (5 + 4 + 32 + 1 + 16).
CLIENT_FINISHED_13_BYTES = 64
#: TLS 1.3 resumed server flight (bytes): ServerHello with pre_shared_key and key_share (about 128),
#: EncryptedExtensions (about 30 with early_data) and Finished (58) in records.
RESUMED_SERVER_FLIGHT_13_BYTES = 230
#: TLS 1.3 EndOfEarlyData (26) and client Finished (58) after 0-RTT, with the ChangeCipherSpec (6).
END_OF_EARLY_DATA_13_BYTES = 90
#: TLS 1.2 ClientKeyExchange (ECDHE P-256: 75), ChangeCipherSpec (6) and Finished (45) (bytes).
CLIENT_KEY_EXCHANGE_12_BYTES = 126
#: TLS 1.2 server ChangeCipherSpec (6) and Finished (45) (bytes).
SERVER_FINISHED_12_BYTES = 51
#: TLS 1.2 abbreviated handshake: ServerHello (about 90), ChangeCipherSpec and Finished (bytes).
RESUMED_SERVER_FLIGHT_12_BYTES = 141
#: TLS 1.2 client ChangeCipherSpec and Finished on resumption (bytes).
RESUMED_CLIENT_FINISHED_12_BYTES = 51


@dataclass(frozen=True, slots=True)
class Handshake:
    """A handshake's flights, client first, then alternating; the request follows client flight ``ready``.

    ``ready`` indexes the flights: the client writes its first request with (right after) its flight
    ``ready`` (an even index), or once the last flight has arrived when ``ready == len(flights)``.
    ``round_trips`` is how many round trips the handshake adds before the first request can leave.
    ``amplification_limit`` (QUIC only, bytes): how much of the server's first flight may leave before the
    client's address is validated; the rest waits for the client's next packet
    (:func:`latency_lab.mechanisms.quic.amplification_allowance_bytes`). 0: no limit (TCP has validated the address).
    ``tickets`` (TLS 1.3): the NewSessionTicket messages (bytes each) the server writes, each on its own, once
    the client's last flight has arrived (RFC 8446 4.6.1), ahead of its first response.
    """

    name: str
    flights: tuple[int, ...]
    ready: int
    round_trips: int
    amplification_limit: int = 0
    tickets: tuple[int, ...] = ()


def handshake(
    version: str,
    resumed: bool,
    early_data: bool,
    client_hello: int,
    server_flight: int,
    false_start: bool = False,
    tickets: tuple[int, ...] = (),
) -> Handshake:
    """The flights (bytes) of a TLS handshake, with where the first request goes.

    Round trips before the request (each a client flight and the server's answer): 1.3 full 1, resumed 1
    or 0 with early data; 1.2 full 2, or 1 with False Start (RFC 7918: the request goes with the client's
    Finished, flight 2, ``ready = 2``), resumed 1 (RFC 8446 2; RFC 5246 7.3).
    """
    if version == "1.3":
        if resumed and early_data:
            return Handshake(
                "TLS 1.3 resumed, 0-RTT",
                (client_hello, RESUMED_SERVER_FLIGHT_13_BYTES, END_OF_EARLY_DATA_13_BYTES),
                0,
                0,
                tickets=tickets,
            )
        if resumed:
            return Handshake(
                "TLS 1.3 resumed",
                (client_hello, RESUMED_SERVER_FLIGHT_13_BYTES, CLIENT_FINISHED_13_BYTES),
                2,
                1,
                tickets=tickets,
            )
        return Handshake("TLS 1.3", (client_hello, server_flight, CLIENT_FINISHED_13_BYTES), 2, 1, tickets=tickets)
    if version == "1.2":
        if resumed:
            return Handshake(
                "TLS 1.2 resumed",
                (client_hello, RESUMED_SERVER_FLIGHT_12_BYTES, RESUMED_CLIENT_FINISHED_12_BYTES),
                2,
                1,
            )
        flights = (client_hello, server_flight, CLIENT_KEY_EXCHANGE_12_BYTES, SERVER_FINISHED_12_BYTES)
        if false_start:
            return Handshake("TLS 1.2, False Start", flights, 2, 1)
        return Handshake("TLS 1.2", flights, 4, 2)
    raise ValueError(f"no TLS handshake for version {version!r}")


def resumed(resumption: str, earlier_connections: int) -> bool:
    """Whether a new connection resumes a TLS session: ``all``, or ``after_first`` once one connection exists."""
    return resumption == "all" or (resumption == "after_first" and earlier_connections > 0)


def first_byte_ms(rtt_ms: float, handshake_round_trips: int, tcp_round_trips: int = 1) -> float:
    """Earliest first byte of a response on a new connection, propagation only (ms).

    ``(tcp + tls + 1) RTT``: the TCP handshake (1, or 0 with Fast Open), the TLS round trips and the
    request's own round trip; serialization and server time come on top. With TCP and TLS 1.3 that is
    ``3 RTT``, the figure of Lighthouse's simulation ("3 one-way delays + 1 RTT for TLS", then the
    response's one-way delay).
    """
    return (tcp_round_trips + handshake_round_trips + 1) * rtt_ms
