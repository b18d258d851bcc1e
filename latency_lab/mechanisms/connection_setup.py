"""Connection setup: TCP's three-way handshake before the first request.

Seed 002, section 3 (mandatory round trip 1: the SYN exchange) and seed 001, section 5.1 (a:
connection establishment is dominated by the SYN round trip, plus host processing). The client
sends SYN; the server answers SYN-ACK at once; the client sends the final ACK and may then send
its request. On a BSD server the final ACK also opens the congestion window by one segment
(seed 000, 2.2, footnote 1; see :mod:`latency_lab.mechanisms.slow_start`).
"""

from __future__ import annotations

#: Control packets of an open: SYN (client), SYN-ACK (server), ACK (client).
OPEN_PACKETS = ("SYN", "SYN-ACK", "ACK")


def handshake_ms(d_up_ms: float, d_down_ms: float, syn_tx_ms: float, synack_tx_ms: float) -> float:
    """Time from the client's SYN to the client's knowing the connection is open (ms).

    ``T_setup = t_SYN + d_u + t_SYNACK + d_d``: one round trip plus the serialization of two
    header-only packets. Seed 002, section 3, round trip 1.
    """
    return syn_tx_ms + d_up_ms + synack_tx_ms + d_down_ms


def first_byte_ms(
    d_up_ms: float, d_down_ms: float, syn_tx_ms: float, synack_tx_ms: float, request_tx_ms: float, think_ms: float
) -> float:
    """Earliest arrival of a response's first byte on a new connection (ms).

    ``2 (d_u + d_d)`` plus serialization and server time: two mandatory round trips, which is why
    HTTP/1.0 needs four round trips before the first inlined image (seed 002, section 3) and a
    long-lived connection only two (seed 002, section 4).
    """
    return handshake_ms(d_up_ms, d_down_ms, syn_tx_ms, synack_tx_ms) + request_tx_ms + d_up_ms + think_ms + d_down_ms


#: TCP Fast Open cookie option on a SYN carrying data (bytes): kind 34, length, an 8-byte cookie (Linux's),
#: padded to 12 (RFC 7413, 4.1.1).
FAST_OPEN_OPTION_BYTES = 12


def syn_option_bytes(receive_window_bytes: int, fast_open: bool = False) -> int:
    """TCP option bytes on SYN and SYN-ACK (bytes): 4 for the window-scale option when the receive window
    exceeds 65,535 bytes (RFC 7323, 2.2: 3 bytes padded to 4), else 0; with ``fast_open`` (the client's SYN)
    the cookie option's :data:`FAST_OPEN_OPTION_BYTES` too. The per-packet overhead covers the fixed headers
    only; other options are left out.
    """
    return (4 if receive_window_bytes > 65_535 else 0) + (FAST_OPEN_OPTION_BYTES if fast_open else 0)


def fast_open_syn_data_bytes(mss_bytes: int, syn_option_bytes: int) -> int:
    """The most data a Fast Open SYN carries (bytes): one MSS less the SYN's TCP option bytes.

    RFC 7413, 4.2: the client's data on the SYN is bounded by the MSS; the SYN's options (the cookie,
    :data:`FAST_OPEN_OPTION_BYTES`, and the window-scale option, :func:`syn_option_bytes`) take room in the same
    segment, so a SYN whose data and options add up to more than one MSS would not fit the path's MTU (and
    ns-3, asked to send it, stops at an assertion). Linux reserves more, the largest option space (40 bytes,
    ``MAX_TCP_OPTION_SPACE`` in ``tcp_send_syn_data``), for middleboxes that add options; that is left out.
    With MSS 1460 and a 12-byte cookie option: 1,448 bytes (1,444 with window scaling).
    """
    return mss_bytes - syn_option_bytes
