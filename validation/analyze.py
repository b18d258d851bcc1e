"""Turn the ns-3 harness's trace into the model's output fields.

The trace (written by ``harness.cc``) has one record a line; times are integer nanoseconds of
simulation time and every record carries a global sequence number, so events at the same instant
keep their causal order:

``PKT dir t_queued t_start t_end t_arrival seq_queued seq_arrival wire payload sport dport flags seq ack win``
    every packet on either link (dir 0: client to server); ``wire`` includes the 2-byte PPP header.
``RXS t seq conn side ack cwnd rwnd una nxt tail nagle``
    a segment reaches a socket (side 0: client, 1: server): its ACK number and the socket's
    sender state *before* the segment is processed (congestion window, peer's window, first
    unacknowledged byte, next byte to send, end of the data written, Nagle on).
``W t seq conn side bytes``, ``CLOSE``, ``OBJ index conn start end``, ``T0``, ``DROPS``, ...

Stalls are detected the way the model files them (``latency_lab.protocols.base.Session.record_idle``):

- a sender is *held* when a segment whose ACK advances its window reaches it while it has
  written data it has not sent (``tail > nxt``), its last write being at least 2 ns old (ns-3
  sends 1 ns after a write). The hold is a *Nagle* hold if the window had room for the next
  segment (``min(cwnd, rwnd) - (nxt - una) >= min(tail - nxt, MSS)``), which only Nagle's rule can
  then explain; otherwise a *window* hold (congestion window, receive window, or the silly-window
  rule);
- it is *released* when data leaves that socket at the same instant, caused by that segment, and
  the release is an idle period if the sender's link had finished its last data packet before
  (``gap = t_release - t_end(last data) > 0``), as in the model;
- an ACK was sent by the *delayed-ACK timer* if it is a pure ACK queued exactly DelAckTimeout
  after the first data segment it acknowledges arrived (ns-3's timer starts with the first
  unacknowledged segment; any segment the receiver sends carries the ACK and cancels it);
  ``held`` = its send time minus the arrival of the last segment it acknowledges;
- a Nagle hold released with a gap is a ``nagle_stall``; a window hold released with a gap is a
  slow-start round (``slow_start_rounds``), split into ``delayed_ack_stall`` (``min(held, gap)``
  when the releasing ACK came from the timer) and ``slow_start_idle`` (the rest).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from latency_lab.scenario.params import Params

NS = 1e-6  # ms per ns

FIN, SYN, RST, ACK = 0x01, 0x02, 0x04, 0x10


@dataclass
class Pkt:
    dir: int
    tq: int
    ts: int
    te: int
    ta: int
    sq: int
    sa: int
    wire: int
    payload: int
    sport: int
    dport: int
    flags: int
    seq: int
    ack: int
    win: int
    conn: int = -1

    @property
    def kind(self) -> str:
        """The model's packet kinds: SYN, SYNACK, FIN, DATA (payload, FIN or not), ACK (pure)."""
        if self.flags & SYN:
            return "SYNACK" if self.flags & ACK else "SYN"
        if self.payload > 0:
            return "DATA"
        if self.flags & FIN:
            return "FIN"
        if self.flags & RST:
            return "RST"
        return "ACK"


@dataclass
class Rxs:
    t: int
    seq: int
    conn: int
    side: int
    ack: int
    cwnd: int
    rwnd: int
    una: int
    nxt: int
    tail: int
    nagle: bool


@dataclass
class Trace:
    t0: int = 0
    drops: int = 0
    unused: int = 0
    objects: list[tuple[int, int, int, int]] = field(default_factory=list)  # (index, conn, start, end)
    ports: dict[int, int] = field(default_factory=dict)  # client port -> connection
    pkts: list[Pkt] = field(default_factory=list)
    rxs: list[Rxs] = field(default_factory=list)
    writes: list[tuple[int, int, int, int, int]] = field(default_factory=list)  # (t, seq, conn, side, bytes)
    errors: list[str] = field(default_factory=list)


def parse(text: str) -> Trace:
    tr = Trace()
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        tag = f[0]
        if tag == "PKT":
            v = [int(x) for x in f[1:]]
            tr.pkts.append(Pkt(*v))
        elif tag == "RXS":
            v = [int(x) for x in f[1:]]
            t, seq, conn, side, ack, cwnd, rwnd, una, nxt, tail, nagle = v
            tr.rxs.append(Rxs(t, seq, conn, side, ack, cwnd, rwnd, una, nxt, tail, bool(nagle)))
        elif tag == "W":
            t, seq, conn, side, n = (int(x) for x in f[1:6])
            tr.writes.append((t, seq, conn, side, n))
        elif tag == "OBJ":
            i, conn, start, end = (int(x) for x in f[1:5])
            tr.objects.append((i, conn, start, end))
        elif tag == "PORT":
            tr.ports[int(f[2])] = int(f[1])
        elif tag == "T0":
            tr.t0 = int(f[1])
        elif tag == "DROPS":
            tr.drops = int(f[1])
        elif tag == "UNUSED":
            tr.unused += int(f[2])
        elif tag == "ERROR":
            tr.errors.append(line)
    for pk in tr.pkts:
        port = pk.sport if pk.dir == 0 else pk.dport
        pk.conn = tr.ports.get(port, -1)
    return tr


def _retransmissions(pkts: list[Pkt]) -> int:
    """Segments sent twice: data below the highest sent, a second SYN or FIN (none expected: no loss)."""
    high: dict[tuple[int, int], int] = {}
    n = 0
    flags: dict[tuple[int, int, int], int] = defaultdict(int)
    for pk in sorted(pkts, key=lambda p: p.sq):
        for f in (SYN, FIN):
            if pk.flags & f:
                flags[(pk.conn, pk.dir, f)] += 1
                if flags[(pk.conn, pk.dir, f)] > 1:
                    n += 1
        if pk.payload == 0:
            continue
        key = (pk.conn, pk.dir)
        if pk.seq < high.get(key, -1):
            n += 1
        high[key] = max(high.get(key, -1), pk.seq + pk.payload)
    return n


def analyze(text: str, p: Params) -> dict[str, Any]:
    """The model's output fields (``page_load_ms``, ``counts``, ``objects``, ``events``) from a trace."""
    tr = parse(text)
    if tr.drops:
        raise ValueError(f"ns-3 dropped {tr.drops} packets; the comparison assumes none")
    if tr.unused:
        raise ValueError("a packet used the wrong link direction")
    if tr.errors:
        raise ValueError("; ".join(tr.errors))
    t0 = tr.t0
    pkts = [pk for pk in tr.pkts if pk.tq >= t0]
    if any(pk.conn < 0 for pk in pkts):
        raise ValueError("a packet of an unknown connection")
    retx = _retransmissions(pkts)
    if retx:
        raise ValueError(f"ns-3 retransmitted {retx} segments; the comparison assumes none")

    names = ["html"] + [f"obj{i}" for i in range(1, len(p.objects) + 1)]
    sizes = [p.html, *p.objects]
    objects: list[dict[str, Any]] = []
    for i, conn, start, end in sorted(tr.objects):
        if end < 0:
            raise ValueError(f"object {names[i]} never completed")
        objects.append(
            {
                "name": names[i],
                "bytes": sizes[i],
                "connection": conn,
                "start_ms": (start - t0) * NS,
                "end_ms": (end - t0) * NS,
            }
        )
    page_load = max(o["end_ms"] for o in objects)

    events, timer_acks = _stalls(tr, pkts, p)
    kinds: dict[str, int] = defaultdict(int)
    for pk in pkts:
        kinds[pk.kind] += 1
    counts = {
        "slow_start_rounds": sum(1 for e in events if e["kind"] in ("slow_start_round",)),
        "delayed_ack_stalls": sum(1 for e in events if e["kind"] == "delayed_ack_stall"),
        "nagle_stalls": sum(1 for e in events if e["kind"] == "nagle_stall"),
        "connections": len({pk.conn for pk in pkts}),
        "packets": len(pkts),
        "bytes_on_wire": sum(pk.wire for pk in pkts),
        "data_packets": kinds["DATA"],
        "ack_packets": kinds["ACK"],
        "control_packets": kinds["SYN"] + kinds["SYNACK"] + kinds["FIN"] + kinds["RST"],
        "timer_acks": timer_acks,
    }
    events = [e for e in events if e["kind"] != "slow_start_round"]
    events.sort(key=lambda e: (e["start_ms"], e["connection"]))
    return {
        "page_load_ms": page_load,
        "counts": counts,
        "objects": objects,
        "events": events,
        "packets": [_packet_row(i, pk, t0) for i, pk in enumerate(sorted(pkts, key=lambda q: q.sq))],
    }


def _packet_row(i: int, pk: Pkt, t0: int) -> dict[str, Any]:
    return {
        "n": i,
        "direction": "up" if pk.dir == 0 else "down",
        "connection": pk.conn,
        "kind": pk.kind,
        "bytes": pk.payload,
        "wire_bytes": pk.wire,
        "fin": bool(pk.flags & FIN),
        "seq": pk.seq,
        "ack": pk.ack,
        "queued_ms": (pk.tq - t0) * NS,
        "sent_ms": (pk.ts - t0) * NS,
        "arrival_ms": (pk.ta - t0) * NS,
    }


def _stalls(tr: Trace, pkts: list[Pkt], p: Params) -> tuple[list[dict[str, Any]], int]:
    """Idle periods of held senders, filed as the model files them; and the number of timer ACKs."""
    t0 = tr.t0
    dack_ns = round(p.dack_ms * 1e6) if p.dack_ms > 0 else None
    # --- delayed-ACK timer: per (connection, receiver side), in causal order
    held_ack: dict[int, int] = {}  # sq of a timer ACK -> held (ns)
    by_conn: dict[int, list[tuple[int, str, Pkt]]] = defaultdict(list)
    for pk in pkts:
        by_conn[pk.conn].append((pk.sq, "tx", pk))
        by_conn[pk.conn].append((pk.sa, "rx", pk))
    for evs in by_conn.values():
        evs.sort(key=lambda e: e[0])
        first: dict[int, int | None] = {0: None, 1: None}  # receiver side -> first unacked arrival
        last: dict[int, int] = {0: 0, 1: 0}
        for _, what, pk in evs:
            if what == "rx":
                side = 1 - pk.dir  # the receiving side
                if pk.payload > 0 and not pk.flags & (SYN | FIN):
                    if first[side] is None:
                        first[side] = pk.ta
                    last[side] = pk.ta
            else:
                side = pk.dir  # the sending side
                f = first[side]
                if f is not None and dack_ns is not None and pk.kind == "ACK" and abs(pk.tq - (f + dack_ns)) <= 1:
                    held_ack[pk.sq] = pk.tq - last[side]
                first[side] = None
    # --- holds and releases
    by_arrival_seq = {pk.sa: pk for pk in pkts}
    data_by_side: dict[tuple[int, int], list[Pkt]] = defaultdict(list)
    for pk in sorted(pkts, key=lambda q: q.sq):
        if pk.payload > 0:
            data_by_side[(pk.conn, pk.dir)].append(pk)
    writes_by_side: dict[tuple[int, int], list[tuple[int, int]]] = defaultdict(list)
    for t, seq, conn, side, _n in tr.writes:
        writes_by_side[(conn, side)].append((seq, t))
    events: list[dict[str, Any]] = []
    for r in tr.rxs:
        if r.t < t0 or r.ack <= r.una or r.tail <= r.nxt:
            continue
        side_writes = writes_by_side[(r.conn, r.side)]
        last_write = max((t for seq, t in side_writes if seq < r.seq), default=None)
        if last_write is not None and r.t - last_write < 2:
            continue  # written this instant: not held yet
        unsent = r.tail - r.nxt
        win = min(r.cwnd, r.rwnd) - (r.nxt - r.una)
        reason = "nagle" if r.nagle and win >= min(unsent, p.mss) else "window"
        sent = data_by_side[(r.conn, r.side)]
        release = next((pk for pk in sent if pk.tq == r.t and pk.sq > r.seq), None)
        if release is None:
            continue
        prev = [pk for pk in sent if pk.sq < release.sq]
        if not prev:
            continue
        gap = release.tq - max(pk.te for pk in prev)
        if gap <= 0:
            continue
        # the segment's arrival is recorded just before the socket sees it
        trigger = by_arrival_seq.get(r.seq - 1)
        if trigger is None or trigger.dir != 1 - r.side or trigger.ta != r.t:
            trigger = max(
                (pk for pk in pkts if pk.dir == 1 - r.side and pk.conn == r.conn and pk.ta == r.t and pk.sa < r.seq),
                key=lambda pk: pk.sa,
                default=None,
            )
        if trigger is not None and trigger.flags & SYN:
            continue  # released by the SYN-ACK: Fast Open data that did not fit on the SYN waited for the handshake
        start = (release.tq - gap - t0) * NS
        sender = "client" if r.side == 0 else "server"
        if reason == "nagle":
            events.append(_event("nagle_stall", start, gap * NS, r.conn, sender))
            continue
        events.append(_event("slow_start_round", start, gap * NS, r.conn, sender))
        held = held_ack.get(trigger.sq, 0) if trigger is not None else 0
        dack = min(held, gap)
        if gap - dack > 0:
            events.append(_event("slow_start_idle", start, (gap - dack) * NS, r.conn, sender))
        if dack > 0:
            events.append(_event("delayed_ack_stall", start + (gap - dack) * NS, dack * NS, r.conn, sender))
    return events, len(held_ack)


def _event(kind: str, start_ms: float, duration_ms: float, conn: int, sender: str) -> dict[str, Any]:
    return {"kind": kind, "start_ms": start_ms, "duration_ms": duration_ms, "connection": conn, "sender": sender}
