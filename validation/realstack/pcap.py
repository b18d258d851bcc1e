"""Reading the client namespace's capture (tcpdump -w on the TUN device): packets, bytes, connections.

The TUN device carries raw IPv4 packets (link type 101, LINKTYPE_RAW, or 12 on some libpcap builds), so
every record starts with an IP header. Only TCP over IPv4 is expected; anything else is counted apart.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

RAW_LINKTYPES = (101, 12, 228)


@dataclass(frozen=True, slots=True)
class Packet:
    t: float  # seconds (capture clock)
    up: bool  # client -> server
    client_port: int
    ip_bytes: int  # the IP packet's length: what the relay serialized
    payload: int  # TCP payload bytes
    seq: int
    flags: int

    @property
    def syn(self) -> bool:
        return bool(self.flags & 0x02)

    @property
    def fin(self) -> bool:
        return bool(self.flags & 0x01)

    @property
    def rst(self) -> bool:
        return bool(self.flags & 0x04)


@dataclass(slots=True)
class Connection:
    client_port: int
    packets: list[Packet] = field(default_factory=list)
    server_isn: int | None = None
    client_isn: int | None = None

    def syn_time(self) -> float:
        return next(p.t for p in self.packets if p.up and p.syn)

    def down_ends(self) -> list[tuple[float, int]]:
        """(arrival time, stream offset just past the packet's last byte) of each server data packet."""
        if self.server_isn is None:
            return []
        out = []
        for p in self.packets:
            if not p.up and p.payload > 0:
                out.append((p.t, (p.seq - self.server_isn - 1) % 2**32 + p.payload))
        return out

    def time_of_offset(self, offset: int) -> float | None:
        """When the server's stream first reached ``offset`` bytes at the client."""
        for t, end in self.down_ends():
            if end >= offset:
                return t
        return None


def read(path: Path, server_ip: str) -> tuple[list[Packet], int]:
    """The TCP packets of the capture, in capture order, and how many other records it held."""
    data = path.read_bytes()
    if len(data) < 24:
        raise ValueError(f"{path}: not a pcap file (too short)")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        raise ValueError(f"{path}: not a pcap file (magic {magic.hex()})")
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    linktype = struct.unpack(end + "I", data[20:24])[0]
    if linktype not in RAW_LINKTYPES:
        raise ValueError(f"{path}: link type {linktype}, expected raw IP (101) from a TUN device")
    server = bytes(int(x) for x in server_ip.split("."))
    pos, out, other = 24, [], 0
    while pos + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(end + "IIII", data[pos : pos + 16])
        rec = data[pos + 16 : pos + 16 + incl]
        pos += 16 + incl
        t = sec + frac * (1e-9 if nano else 1e-6)
        if len(rec) < 20 or rec[0] >> 4 != 4 or rec[9] != 6:
            other += 1
            continue
        ihl = (rec[0] & 0x0F) * 4
        total = struct.unpack("!H", rec[2:4])[0]
        tcp = rec[ihl : ihl + 20]
        if len(tcp) < 14:
            other += 1
            continue
        sport, dport, seq = struct.unpack("!HHI", tcp[:8])
        doff = (tcp[12] >> 4) * 4
        up = rec[16:20] == server
        out.append(
            Packet(
                t=t,
                up=up,
                client_port=sport if up else dport,
                ip_bytes=total,
                payload=total - ihl - doff,
                seq=seq,
                flags=tcp[13],
            )
        )
    return out, other


def connections(packets: list[Packet]) -> dict[tuple[int, int], Connection]:
    """The packets by connection, keyed (client port, n): the n-th connection from that port in the capture
    (a port comes round again once the server, which closed first, holds the old connection in TIME_WAIT).
    Each connection knows both sides' initial sequence numbers."""
    conns: dict[tuple[int, int], Connection] = {}
    current: dict[int, int] = {}
    for p in packets:
        if p.syn and p.up:
            n = current.get(p.client_port, -1)
            c_old = conns.get((p.client_port, n))
            if c_old is None or c_old.client_isn != p.seq:  # (a stray's client_isn is None: a new one too)
                current[p.client_port] = n + 1  # a new connection (a repeated SYN has the same sequence number)
        key = (p.client_port, current.get(p.client_port, 0))
        c = conns.setdefault(key, Connection(p.client_port))
        c.packets.append(p)
        if p.syn and p.up and c.client_isn is None:
            c.client_isn = p.seq
        if p.syn and not p.up and c.server_isn is None:
            c.server_isn = p.seq
    return conns


def retransmissions(conns: dict[tuple[int, int], Connection]) -> int:
    """Server data packets that carried no byte beyond what the connection had sent before (spurious
    retransmissions: there is no loss on the relay; a tail loss probe or a timeout fired)."""
    n = 0
    for c in conns.values():
        top = 0
        for _t, end in c.down_ends():
            if end <= top:
                n += 1
            top = max(top, end)
    return n


def counts(packets: list[Packet]) -> dict[str, int]:
    """Counted the way the ns-3 harness counts: every packet, bytes on the wire (IP length), by kind."""
    return {
        "packets": len(packets),
        "bytes_on_wire": sum(p.ip_bytes for p in packets),
        "data_packets": sum(1 for p in packets if p.payload > 0),
        "ack_packets": sum(1 for p in packets if p.payload == 0 and not (p.flags & 0x07)),
        "control_packets": sum(1 for p in packets if p.payload == 0 and p.flags & 0x07),
        "up_packets": sum(1 for p in packets if p.up),
        "down_packets": sum(1 for p in packets if not p.up),
        "rst_packets": sum(1 for p in packets if p.rst),
    }
