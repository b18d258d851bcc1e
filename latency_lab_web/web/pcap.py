"""The model's packets of a run as a pcap file, to open in Wireshark beside a lab's own capture (issue 27).

Shared by the exercises (``/exercises/<template>.pcap``) and the teaching panel (``/explain.pcap``): any scenario's
run of one protocol. :func:`tcp_fields` gives each packet the TCP header fields the file carries (sequence,
acknowledgment, flags, window), so the stepping ladder's packet details and the capture say the same.

:func:`pcap` writes the classic libpcap format (microsecond timestamps; link type 101, raw IPv4: no link layer),
one record per packet of the model's schedule (:func:`latency_lab.predict` with ``packets=True``), as a capture on the
client would see them: the client's packets at the time they leave, the server's at the time they arrive. Addresses
10.0.0.1 (client) and 10.0.0.2 (server), the client's port 49152 + the connection's number, the server's 80 (443 with
TLS); h3's packets are UDP datagrams to port 443. TCP headers carry what the model's schedule implies: sequence
numbers counting each direction's bytes (SYN and FIN one each; initial sequence numbers 1000 and 5000), the
acknowledgment of everything the sender had received by then (the schedule has no loss and keeps order), flags from
the packet's kind, and the receive window (capped at 65,535 bytes: no window scaling). Payloads are zero bytes of the
model's payload size; checksums are computed.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

LINKTYPE_RAW = 101
CLIENT, SERVER = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
ISN = {"up": 1000, "down": 5000}
FLAGS = {"SYN": 0x02, "SYNACK": 0x12, "ACK": 0x10, "DATA": 0x18, "FIN": 0x10}
FIN = 0x01


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = int(sum(struct.unpack(f"!{len(data) // 2}H", data)))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _ipv4(src: bytes, dst: bytes, proto: int, ident: int, payload: bytes) -> bytes:
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident & 0xFFFF, 0x4000, 64, proto, 0, src, dst)
    return header[:10] + struct.pack("!H", _checksum(header)) + header[12:] + payload


def _transport(proto: int, src: bytes, dst: bytes, segment: bytes) -> bytes:
    """``segment`` (a TCP or UDP header with a zero checksum, then its payload) with its checksum filled in."""
    pseudo = struct.pack("!4s4sBBH", src, dst, 0, proto, len(segment))
    at = 16 if proto == 6 else 6
    value = _checksum(pseudo + segment) or (0xFFFF if proto == 17 else 0)
    return segment[:at] + struct.pack("!H", value) + segment[at + 2 :]


def capture_time_ms(p: Any) -> float:
    """When a capture on the client sees the packet (ms): the client's as they leave, the server's as they arrive."""
    return float(p["sent_ms"] if p["direction"] == "up" else p["arrival_ms"])


@dataclass(frozen=True, slots=True)
class TcpFields:
    """What a packet's TCP header carries in the capture (and the stepping ladder shows)."""

    seq: int
    ack: int | None  # None: no ACK flag (the SYN)
    flags: str  # as Wireshark writes them: "SYN", "SYN, ACK", "ACK", "PSH, ACK", "FIN, ACK" ...
    window: int


_FLAG_NAMES = ((0x01, "FIN"), (0x02, "SYN"), (0x08, "PSH"), (0x10, "ACK"))


def _sequence_space(p: Any) -> int:
    """The sequence numbers a packet uses: its payload, and one each for SYN and FIN."""
    return int(p["bytes"]) + (1 if p["kind"] in ("SYN", "SYNACK") else 0) + (1 if p["fin"] else 0)


def flag_bits(p: Any) -> int:
    return FLAGS.get(str(p["kind"]), 0x10) | (FIN if p["fin"] else 0)


def tcp_fields(
    packets: Sequence[Any], receive_window_bytes: int = 65535, only: Collection[int] | None = None
) -> dict[int, TcpFields]:
    """Each packet's TCP header fields by its number ``n``, from the model's schedule alone; with ``only``, those of
    the packets numbered there (the others still count for their sequence and acknowledgment numbers).

    Sequence numbers count each direction's bytes in the order the packets leave (initial sequence numbers
    :data:`ISN`); the acknowledgment is everything of the other direction that had arrived when the packet left (the
    schedule keeps order and has no loss); the window is the scenario's receive window, capped at 65,535 bytes (no
    window scaling in the file). A ladder's page wants 100 packets of a connection of tens of thousands: their fields
    alone (40,000 packets of a persistent_parallel page, 0.5 s of CPU for all, 2026-11-28).
    """
    window = min(int(receive_window_bytes), 65535)
    by_side: dict[tuple[int, str], list[Any]] = {}
    for p in packets:
        by_side.setdefault((int(p["connection"]), str(p["direction"])), []).append(p)
    # per (connection, direction): the arrival times in order and the sequence space arrived by each
    arrived: dict[tuple[int, str], tuple[list[float], list[int]]] = {}
    seqs: dict[int, int] = {}
    for key, rows in by_side.items():
        used = ISN[key[1]]
        for p in sorted(rows, key=lambda q: (q["sent_ms"], q["n"])):
            n = int(p["n"])
            if only is None or n in only:
                seqs[n] = used
            used += _sequence_space(p)
        times: list[float] = []
        totals: list[int] = []
        total = 0
        for p in sorted(rows, key=lambda q: (q["arrival_ms"], q["n"])):
            total += _sequence_space(p)
            times.append(float(p["arrival_ms"]))
            totals.append(total)
        arrived[key] = (times, totals)
    out: dict[int, TcpFields] = {}
    for p in packets:
        n = int(p["n"])
        if n not in seqs:
            continue
        conn, other = int(p["connection"]), "down" if p["direction"] == "up" else "up"
        bits = flag_bits(p)
        ack: int | None = None
        if bits & 0x10:
            times, totals = arrived.get((conn, other), ([], []))
            k = bisect.bisect_right(times, float(p["sent_ms"]))
            ack = ISN[other] + (totals[k - 1] if k else 0)
        names = ", ".join(name for bit, name in _FLAG_NAMES if bits & bit)
        out[n] = TcpFields(seqs[n], ack, names, window)
    return out


def pcap(packets: Sequence[Any], *, udp: bool = False, tls: bool = False, receive_window_bytes: int = 65535) -> bytes:
    """The packets (the model's ``PacketRow`` dictionaries) as a libpcap file."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_RAW)]
    fields = {} if udp else tcp_fields(packets, receive_window_bytes)
    rows = sorted(packets, key=lambda p: (capture_time_ms(p), p["n"]))
    for p in rows:
        conn, up = int(p["connection"]), p["direction"] == "up"
        src, dst = (CLIENT, SERVER) if up else (SERVER, CLIENT)
        sport, dport = (49152 + conn, 443 if (tls or udp) else 80)
        if not up:
            sport, dport = dport, sport
        payload = bytes(int(p["bytes"]))
        if udp:
            segment = _transport(17, src, dst, struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload)
            packet = _ipv4(src, dst, 17, p["n"], segment)
        else:
            f = fields[int(p["n"])]
            header = struct.pack(
                "!HHIIBBHHH",
                sport,
                dport,
                f.seq & 0xFFFFFFFF,
                (f.ack or 0) & 0xFFFFFFFF,
                5 << 4,
                flag_bits(p),
                f.window,
                0,
                0,
            )
            packet = _ipv4(src, dst, 6, p["n"], _transport(6, src, dst, header + payload))
        t_us = round(capture_time_ms(p) * 1000)
        out.append(struct.pack("<IIII", t_us // 1_000_000, t_us % 1_000_000, len(packet), len(packet)) + packet)
    return b"".join(out)
