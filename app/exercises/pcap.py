"""The model's packets of a run as a pcap file, to open in Wireshark beside a lab's own capture (issue 27).

:func:`pcap` writes the classic libpcap format (microsecond timestamps; link type 101, raw IPv4: no link layer),
one record per packet of the model's schedule (:func:`model.predict` with ``packets=True``), as a capture on the
client would see them: the client's packets at the time they leave, the server's at the time they arrive. Addresses
10.0.0.1 (client) and 10.0.0.2 (server), the client's port 49152 + the connection's number, the server's 80 (443 with
TLS); h3's packets are UDP datagrams to port 443. TCP headers carry what the model's schedule implies: sequence
numbers counting each direction's bytes (SYN and FIN one each; initial sequence numbers 1000 and 5000), the
acknowledgment of everything the sender had received by then (the schedule has no loss and keeps order), flags from
the packet's kind, and the receive window (capped at 65,535 bytes: no window scaling). Payloads are zero bytes of the
model's payload size; checksums are computed.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
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


def pcap(packets: Sequence[Any], *, udp: bool = False, tls: bool = False, receive_window_bytes: int = 65535) -> bytes:
    """The packets (the model's ``PacketRow`` dictionaries) as a libpcap file."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_RAW)]
    sent: dict[tuple[int, str], int] = {}  # bytes of sequence space each (connection, direction) has used
    window = min(int(receive_window_bytes), 65535)
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
            key, other = (conn, p["direction"]), (conn, "down" if up else "up")
            seq = ISN[p["direction"]] + sent.get(key, 0)
            flags = FLAGS.get(p["kind"], 0x10) | (FIN if p["fin"] else 0)
            use = len(payload) + (1 if p["kind"] in ("SYN", "SYNACK") else 0) + (1 if p["fin"] else 0)
            sent[key] = sent.get(key, 0) + use
            # what this side had received when it sent: the other direction's sequence space that arrived by then
            received = sum(
                int(q["bytes"]) + (1 if q["kind"] in ("SYN", "SYNACK") else 0) + (1 if q["fin"] else 0)
                for q in packets
                if q["connection"] == conn and q["direction"] == other[1] and q["arrival_ms"] <= p["sent_ms"]
            )
            ack = ISN[other[1]] + received if flags & 0x10 else 0
            header = struct.pack(
                "!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags, window, 0, 0
            )
            packet = _ipv4(src, dst, 6, p["n"], _transport(6, src, dst, header + payload))
        t_us = round(capture_time_ms(p) * 1000)
        out.append(struct.pack("<IIII", t_us // 1_000_000, t_us % 1_000_000, len(packet), len(packet)) + packet)
    return b"".join(out)
