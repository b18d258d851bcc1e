"""A TCP connection as the model sees it: two endpoints applying the mechanisms' rules.

Each endpoint sends with the window of :mod:`latency_lab.mechanisms.slow_start` and the send rule of
:mod:`latency_lab.mechanisms.nagle`, and acknowledges with the rule and timer of :mod:`latency_lab.mechanisms.delayed_ack`; the
connection opens as in :mod:`latency_lab.mechanisms.connection_setup`. Sequence space is counted in payload bytes;
there is no loss, so every segment arrives in order and the only waits are the ones the seeds
describe: a closed window, a held ACK, a held short segment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from latency_lab.engine import words
from latency_lab.engine.core import ORIGIN_LEG, PATH, Engine, Packet, Point
from latency_lab.engine.lin import Lin
from latency_lab.mechanisms import connection_setup, delayed_ack, nagle, rto, slow_start


class Endpoint:
    """One side of a connection: a sender of its own data and a receiver of the peer's."""

    def __init__(self, conn: Connection, side: int, cwnd: int) -> None:
        eng = conn.eng
        q = eng.q
        p = q.p
        self.conn = conn
        self.eng = eng
        self.q = q
        self.dir = conn.links[side]  # the link this endpoint sends on (side 0: the opener, 1: the answerer)
        self.name = conn.names[side]
        self.mss = q.mss
        self.mss_n = p.mss
        self.rwnd = q.rwnds[conn.leg]
        self.rwnd_n = q.rwnd_n[conn.leg]
        self.set_profile(p.profile)
        self.nagle = p.nagle
        self.window_packets = p.window_packets  # the congestion window counts packets in flight (tcp_cwnd_test)
        self.cwnd = cwnd
        self.cwnd_cap = self.rwnd_n // p.mss + 2
        self.acked_carry = 0.0  # bytes acknowledged but not yet counted toward the window (ns3)
        # ns3: the first data segment is ACKed at once, unless this endpoint has sent data since opening
        self.quick_ack = p.profile.ack_first_segment
        # linux: quick-ACK mode at the start, the first data segments ACKed at once
        self.quickacks = p.profile.quickack_segments
        # linux: quick ACKs while the receive window grows (two MSS a segment), none in pingpong mode
        self.pingpong_ack = p.profile.pingpong_ack
        if self.pingpong_ack:
            self.quickacks += self.rwnd_n // (2 * p.mss)
        self.pingpong = False
        self.last_rcv_t = -1.0  # when data last arrived (ms); below 0: none yet
        zero = q.size(0)
        self.zero = zero
        p_ = q.p
        self.dack_bytes = p_.profile.ack_counts_bytes
        self.dack_segments = p_.dack_segments
        self.dack_ms = p_.dack_ms
        self.dack: Any = (
            q.dack
        )  # the delayed-ACK timer as a quantity (QUIC's max_ack_delay: latency_lab.mechanisms.quic)
        self.ack_handshake = False  # QUIC: packets of handshake data are acknowledged at once
        # restart after idle (seed 000, 2.4; seed 001, 5.5.3)
        self.idle_restart = p_.idle_restart
        self.rto = conn.rto
        self.last_data_t: Any = None  # when this endpoint last sent data
        # the retransmission timer (latency_lab.mechanisms.rto): RFC 6298's estimator on this sender's own round trips
        self.rto_min = p_.rto_min_ms
        self.srtt = -1.0  # ms; below 0: nothing measured yet, the timeout is the connection's initial one
        # (when, the timeout from then on) at each sample, and when the window restarted after idling: read by the
        # loss analysis (latency_lab.analysis.expected_loss), which costs a timeout at the RTO the sender had
        self.rto_log: list[tuple[float, float]] = []
        self.restart_t: list[float] = []
        self.rttvar = 0.0
        self.seg_ends: list[float] = []  # the end offset of each data segment sent, in order
        self.seg_sent: list[float] = []  # and when it was sent (ms)
        self.seg_i = 0  # the first of them not yet acknowledged
        self.timed_i = -1  # rtt_times_one_segment: the segment being timed (-1: none)
        self.sml_n = 0.0  # nagle_minshall: the end offset of the last short segment sent (Linux snd_sml)
        self.max_out = 0  # cwnd_limited_growth: most packets in flight lately (Linux max_packets_out)
        self.max_seq_n = 0.0  # and the offset after which that count is taken again (max_packets_seq)
        self.hold = False  # T/TCP: data waits for the SYN to take it
        self.pacing = False
        self.pace_interval: Any = None
        self.next_pace: Any = None
        self.last_paced: Packet | None = None
        # sender
        self.una: Any = zero
        self.una_n = 0.0
        self.nxt: Any = zero
        self.end: Any = zero
        self.closing = False
        self.fin_sent = False
        self.last_ack: bool | None = None  # ns3 LAST_ACK: False waiting for an ACK, True forgotten (RST)
        self.blocked: str | None = None
        self.blocked_len = 0
        self.blocked_window = 0  # bytes the window allowed when data was last held by it
        self.last_end: Any = None
        self.obj_bounds: list[tuple[float, str]] = []  # (end offset, object name) of data written
        self.obj_i = 0
        self.end_n = 0.0  # bytes written, as a number
        self.nxt_n = 0.0  # bytes sent, as a number
        self.segments = 0  # data segments sent (the loss analysis counts them: latency_lab.analysis.expected_loss)
        # receiver
        self.rcv: Any = zero
        self.rcv_n = 0.0
        self.un_bytes = 0.0
        self.un_segs = 0
        self.first_pkt: Packet | None = None
        self.last_pkt: Packet | None = None
        self.token = 0
        self.hs_ranges: list[tuple[float, float]] = []  # (start, end) offsets of TLS handshake bytes written
        self.on_data: Callable[[Any, Packet], None] | None = None
        self.on_fin: Callable[[Any, Packet], None] | None = None
        self.peer: Endpoint
        self.deliver: Callable[[Any, Packet], None]  # the peer's arrive (bound once, not per packet)

    def release(self) -> None:
        """Drop the links that tie this endpoint into cycles (its connection, its peer, the application's
        callbacks): once the schedule has been read, it is then freed at once, without the cyclic collector."""
        self.on_data = None
        self.on_fin = None
        self.deliver = None  # type: ignore[assignment]
        self.peer = None  # type: ignore[assignment]
        self.conn = None  # type: ignore[assignment]
        self.first_pkt = None
        self.last_pkt = None
        self.last_paced = None
        self.obj_bounds = None  # type: ignore[assignment]
        self.hs_ranges = None  # type: ignore[assignment]
        self.seg_ends = None  # type: ignore[assignment]
        self.seg_sent = None  # type: ignore[assignment]

    def set_profile(self, profile: Any) -> None:
        """Send and acknowledge by ``profile``'s rules (:mod:`latency_lab.scenario.profiles`); the rules read on every
        packet are kept beside it."""
        self.profile = profile
        self.nagle_idle_at_entry = profile.nagle_idle_at_entry
        self.close_sends_held = profile.close_sends_held
        self.cwnd_counts_bytes = profile.cwnd_counts_bytes
        self.deliver_before_ack = profile.deliver_before_ack
        self.cwnd_counts_packets = profile.cwnd_counts_packets
        self.nagle_minshall = profile.nagle_minshall
        self.rtt_one = profile.rtt_times_one_segment
        self.cwnd_limited_growth = profile.cwnd_limited_growth
        self.rto_granularity = profile.rto_granularity_ms
        self.rto_max = profile.rto_max_ms
        self.rto_min_on_variation = profile.rto_min_on_variation

    def app_received(self) -> float:
        """Bytes received for the application: all received less the peer's TLS handshake bytes."""
        rcv = self.rcv_n
        skip = 0.0
        for begin, end in self.peer.hs_ranges:
            if begin >= rcv:
                break
            skip += min(end, rcv) - begin
        return rcv - skip

    # ----------------------------------------------------------------- sending
    def write(self, t: Any, nbytes: Any, obj: str, point: Point) -> None:
        """The application writes ``nbytes`` at ``t`` (a :class:`Point`); TCP tries to send."""
        self.eng.step()
        self.end = self.end + nbytes
        self.end_n += nbytes.v if isinstance(nbytes, Lin) else nbytes
        self.obj_bounds.append((self.end_n, obj))
        self.output(t, ("app", point))

    def close(self, t: Any, point: Point) -> None:
        """The application closes: a FIN follows the data, and held data is sent (seed 000, 2.3)."""
        self.closing = True
        self.output(t, ("app", point))

    def _obj_at(self, offset: float) -> str:
        """The object whose bytes start at ``offset`` (offsets only grow)."""
        bounds = self.obj_bounds
        i = self.obj_i
        while i < len(bounds) - 1 and offset >= bounds[i][0]:
            i += 1
        self.obj_i = i
        return bounds[i][1] if bounds else ""

    def output(self, t: Any, cause: tuple[Any, ...]) -> None:
        """Send what the window and the send rule allow (BSD ``tcp_output``; seed 000, 2.3)."""
        if self.hold:
            return
        mss, mss_n, rwnd, rwnd_n = self.mss, self.mss_n, self.rwnd, self.rwnd_n
        at_entry = self.nagle_idle_at_entry
        idle_at_entry = self.una >= self.nxt
        end, end_n = self.end, self.end_n
        if (
            idle_at_entry
            and cause[0] == "app"  # the application writes after a real idle period, not an ACK-clocked wait
            and self.last_data_t is not None
            and end_n > self.nxt_n
            and t - self.last_data_t > self.rto
        ):
            self._restart(t)
        first = True
        while True:
            avail_n = end_n - self.nxt_n
            if avail_n <= 0:
                break
            outstanding = self.nxt - self.una
            if self.window_packets:  # tcp.window_counts_packets: a slot a packet, short or full; rwnd in bytes
                if len(self.seg_ends) - self.seg_i >= self.cwnd:
                    self._block("window", 0)
                    return
                win = rwnd - outstanding
            else:
                win = slow_start.usable_window_bytes(self.cwnd, mss, rwnd, outstanding)
            if win <= 0:
                self._block("window", 0)
                return
            avail = end - self.nxt
            length = mss
            if avail < length:
                length = avail
            if win < length:
                length = win
            if length < mss_n:
                if length < avail_n:
                    # a window-limited short segment with more data behind it waits (seed 000, 2.3 (a))
                    if not (at_entry and length >= rwnd_n / 2):
                        self._block("window", length)
                        return
                else:
                    nothing_out = idle_at_entry if at_entry else outstanding <= 0
                    if self.nagle_minshall:  # no earlier short segment unacknowledged (tcp_minshall_check)
                        nothing_out = self.sml_n <= self.una_n
                    closing = self.closing and self.close_sends_held
                    if not nagle.may_send(length, mss_n, True, nothing_out, self.nagle, closing, at_entry, rwnd_n):
                        self._block("nagle", length)
                        return
            if self.pacing:
                if self.next_pace > t:
                    # paced after an idle period: wait for the next slot (seed 000, 2.4)
                    self.eng.at(self.next_pace, self._paced_output)
                    return
                if self.last_paced is not None and not t > self.next_pace:
                    # it leaves at its slot: one interval after the segment before. Later than the slot it
                    # left for its own cause (an ACK, a write), which the critical path follows instead
                    cause = ("pace", self.last_paced, self.pace_interval)
                self.next_pace = t + self.pace_interval
            if first:
                if self.blocked is not None:
                    self._released(t, cause)
                first = False
            length_n = length.v if isinstance(length, Lin) else length
            pkt = Packet(self.conn.id, self.dir, "DATA", length, length_n)
            if length_n > 0:
                self.segments += 1
            pkt.obj = self._obj_at(self.nxt_n)
            if self.hs_ranges and pkt.obj == "tls":  # a segment is TLS setup only if all of it is handshake
                pkt.obj = self._obj_at(self.nxt_n + length_n - 1)
            self.nxt = self.nxt + length
            self.nxt_n += length_n
            if self.closing and self.nxt_n >= end_n:
                pkt.fin = True
                self.fin_sent = True
            self._send(pkt, t, cause)
            if length_n > 0:
                self._track(t, length_n)
            self.last_end = pkt.t_e
            self.last_data_t = t
            if self.pacing:
                self.last_paced = pkt
        if self.closing and not self.fin_sent and self.nxt_n >= end_n:
            self.fin_sent = True
            self._send(Packet(self.conn.id, self.dir, "FIN", self.q.size(0), 0, fin=True), t, cause)
        self.blocked = None

    def _restart(self, t: Any) -> None:
        """The sender has sent nothing for longer than the retransmission timeout (seed 000, 2.4).

        slow_start: the window restarts at ``min(IW, cwnd)`` (RFC 5681, 4.1; 4.4BSD resets to one
        segment). keep and fast_start: the window stays (SunOS 4.1.3; TCP fast start reuses it,
        seed 001, 5.2). paced: the window stays but segments leave one every ``RTT / cwnd`` until
        the ACK clock restarts (seed 000, 2.4: "one every n/t seconds").
        """
        idle = t - self.last_data_t
        if self.idle_restart == "slow_start":
            restart = rto.restart_window(
                self.cwnd, self.q.p.iw, float(idle), float(self.rto), self.profile.restart_halves_per_rto
            )
            if restart < self.cwnd:
                self.conn.session.record_restart(self, t, idle, self.cwnd, restart)
                self.restart_t.append(t.v if isinstance(t, Lin) else t)
                self.cwnd = restart
        elif self.idle_restart == "paced" and self.cwnd > 1:
            q = self.q
            self.pacing = True
            up, down = self.conn.links
            self.pace_interval = (q.d[up] + q.d[down]) * (1.0 / self.cwnd)
            self.next_pace = t
            self.last_paced = None
            self.conn.session.record_restart(self, t, idle, self.cwnd, self.cwnd)

    def _track(self, t: Any, length_n: float) -> None:
        """A data segment ending at ``nxt_n`` left at ``t``: kept for the round trips and the packet count."""
        self.seg_ends.append(self.nxt_n)
        self.seg_sent.append(t.v if isinstance(t, Lin) else t)
        if self.timed_i < 0:
            self.timed_i = len(self.seg_ends) - 1
        if length_n < self.mss_n:
            self.sml_n = self.nxt_n
        out = len(self.seg_ends) - self.seg_i  # packets in flight (tcp_cwnd_validate)
        if self.una_n >= self.max_seq_n or out > self.max_out:
            self.max_out = out
            self.max_seq_n = self.nxt_n

    def _acked(self, t: Any, ack_n: float) -> int:
        """Data segments an ACK up to ``ack_n`` newly acknowledges (their number), and its round-trip sample:
        the oldest of them sent to now (Linux ``seq_rtt_us``), or with ``rtt_one`` the timed segment's (4.4BSD)."""
        ends = self.seg_ends
        first = i = self.seg_i
        n = len(ends)
        while i < n and ends[i] <= ack_n:
            i += 1
        if i == first:
            return 0
        self.seg_i = i
        if not self.rtt_one:
            self.rtt_sample(t, self.seg_sent[first])
        elif 0 <= self.timed_i < i:
            self.rtt_sample(t, self.seg_sent[self.timed_i])
            self.timed_i = -1
        return i - first

    def rtt_sample(self, t: Any, sent: float) -> None:
        """A round trip measured from ``sent`` to ``t`` (ms) updates SRTT, RTTVAR and the timeout (RFC 6298)."""
        r = (t.v if isinstance(t, Lin) else t) - sent
        if self.srtt < 0:
            self.srtt, self.rttvar = rto.first_sample(r)
        else:
            self.srtt, self.rttvar = rto.update(self.srtt, self.rttvar, r)
        self.rto = rto.timeout_ms(
            self.srtt, self.rttvar, self.rto_granularity, self.rto_min, self.rto_max, self.rto_min_on_variation
        )
        self.rto_log.append((t.v if isinstance(t, Lin) else t, self.rto))

    def _paced_output(self, t: Any) -> None:
        self.output(t, ("pace", self.last_paced, self.pace_interval))

    def _block(self, reason: str, length: Any) -> None:
        self.blocked = reason
        self.blocked_len = int(length)
        if reason == "window":
            self.blocked_window = int(min(self.cwnd * self.mss_n, self.rwnd_n))

    def _released(self, t: Any, cause: tuple[Any, ...]) -> None:
        """Data held by the window or by Nagle leaves: record the idle period it ended."""
        if self.blocked is None or cause[0] != "release" or self.last_end is None:
            return
        gap = t - self.last_end
        if gap <= 1e-9:  # a link that finished at the same instant is not idle
            return
        ack: Packet = cause[1]
        self.conn.session.record_idle(self, cause[2], t, gap, ack, self._obj_at(self.nxt_n))

    def _send(self, pkt: Packet, t: Any, cause: tuple[Any, ...]) -> None:
        """Send a packet carrying our cumulative ACK (piggybacking any held one)."""
        pkt.seq_end = self.nxt
        pkt.ack = self.rcv
        if pkt.n > 0:
            self.quick_ack = False  # ns-3 clears its delayed-ACK count when it sends data
            # linux: data sent within the delayed-ACK time of the last data received: pingpong mode
            if (
                self.pingpong_ack
                and self.last_rcv_t >= 0
                and (t.v if isinstance(t, Lin) else t) - self.last_rcv_t < self.dack_ms
            ):
                self.pingpong = True
        self.un_bytes = 0.0
        self.un_segs = 0
        self.first_pkt = None
        self.token += 1
        self.eng.transmit(pkt, t, cause, self.deliver)

    def send_control(self, kind: str, t: Any, cause: tuple[Any, ...], fin: bool = False) -> Packet:
        """Send a packet without data (an ACK, a FIN), carrying our cumulative ACK."""
        pkt = Packet(self.conn.id, self.dir, kind, self.zero, 0, fin=fin)
        self._send(pkt, t, cause)
        return pkt

    # --------------------------------------------------------------- receiving
    def arrive(self, t: Any, pkt: Packet) -> None:
        """A packet from the peer arrives: take its ACK, then its data."""
        kind = pkt.kind
        if kind == "SYN":
            self.conn.syn_arrived(t, pkt)
            return
        if kind == "SYNACK":
            self.conn.synack_arrived(t, pkt)
            return
        if self.last_ack is not None:  # ns3: the first ACK in LAST_ACK closes, later packets get an RST
            if self.last_ack:
                self.send_control("RST", t, ("arrival", pkt, None, "connection_setup"))
            self.last_ack = True
            return
        acked = False
        if pkt.ack > self.una:
            acked = True
            self.pacing = False  # the ACK clock runs again
            self.una = pkt.ack
            packets = self._acked(t, pkt.ack.v if isinstance(pkt.ack, Lin) else pkt.ack)
            if self.cwnd < self.cwnd_cap:
                if self.cwnd_counts_packets:
                    if not self.cwnd_limited_growth or slow_start.cwnd_limited(self.cwnd, self.max_out):
                        self.cwnd = slow_start.window_after_ack_packets(self.cwnd, packets, self.cwnd_cap)
                elif self.cwnd_counts_bytes:
                    acked_n = (pkt.ack.v if isinstance(pkt.ack, Lin) else pkt.ack) - self.una_n
                    self.cwnd, self.acked_carry = slow_start.window_after_ack_bytes(
                        self.cwnd, self.acked_carry, acked_n, self.mss_n, self.profile.cwnd_abc_limit_segments
                    )
                    self.cwnd = min(self.cwnd, self.cwnd_cap)
                else:
                    self.cwnd = slow_start.window_after_ack(self.cwnd)
            self.una_n = pkt.ack.v if isinstance(pkt.ack, Lin) else pkt.ack
        elif kind == "ACK" and pkt.cause and pkt.cause[0] == "handshake":
            self.conn.handshake_ack_arrived(t, pkt)
        if pkt.n > 0:
            self._receive(t, pkt, pkt.n)
        if pkt.fin:
            if self.on_fin is not None:
                self.on_fin(t, pkt)
        if acked:
            self.output(t, ("release", pkt, self.blocked) if self.blocked else ("ack", pkt))

    def _receive(self, t: Any, pkt: Packet, payload: float) -> None:
        quick = self.quickacks > 0 and not self.pingpong
        first_data = self.quick_ack or quick or (self.ack_handshake and pkt.obj == "tls")
        self.quick_ack = False
        if quick:
            self.quickacks -= 1
        if self.pingpong_ack:
            self.last_rcv_t = t.v if isinstance(t, Lin) else t
        self.rcv = pkt.seq_end
        self.rcv_n += payload
        self.un_bytes += payload
        self.un_segs += 1
        if self.first_pkt is None:
            self.first_pkt = pkt
        self.last_pkt = pkt
        deliver_first = self.deliver_before_ack
        if deliver_first and self.on_data is not None:
            self.on_data(t, pkt)
        if pkt.fin:
            pass  # the FIN is acknowledged at once, with the close (see Connection)
        elif first_data or delayed_ack.ack_now(
            self.un_bytes, self.un_segs, self.mss_n, self.dack_segments, self.dack_bytes, self.dack_ms
        ):
            self.send_control("ACK", t, ("arrival", pkt, None, "ack"))
        else:
            # start the delayed-ACK timer with the first unacknowledged segment (seed 000, 2.2)
            if self.un_segs == 1:
                first = self.first_pkt
                expiry = delayed_ack.ack_time_ms(t, self.dack)
                self.eng.at(expiry, self._timer, self.token, first)
        if not deliver_first and self.on_data is not None:
            self.on_data(t, pkt)

    def _timer(self, t: Any, token: int, first: Packet) -> None:
        if token != self.token or self.un_segs == 0:
            return
        last = self.last_pkt
        assert last is not None
        self.pingpong = False  # linux: a delayed ACK that had to wait ends pingpong mode
        note = self._held_note()
        pkt = self.send_control("ACK", t, ("arrival", first, self.dack, "delayed_ack_stall", note))
        pkt.held = delayed_ack.stall_ms(t, last.t_a)
        pkt.obj = last.obj

    def _held_note(self) -> str:
        """Why the ACK was held, in words: what had arrived unacknowledged."""
        p = self.q.p
        return words.held_note(
            p.profile.ack_counts_bytes, self.un_segs, int(self.un_bytes), p.dack_segments, p.mss, self.dack_segments
        )


#: Who the two ends of a connection on each leg are (the opener first), for the events' sentences.
NAMES = {
    "direct": (("client", "server"),),
    "split_proxy": (("local proxy", "remote proxy"), ("client", "local proxy"), ("remote proxy", "server")),
}


def leg_ends(split_proxy: bool, leg: int) -> tuple[str, str]:
    """Who the two ends of a connection on ``leg`` are (the opener first): :data:`NAMES`' on the network's legs, the
    client and the server on another origin's own path (page.origins' rtt_ms; issue 28)."""
    if leg >= ORIGIN_LEG:
        return NAMES["direct"][PATH]
    return NAMES["split_proxy" if split_proxy else "direct"][leg]


class Connection:
    """A TCP connection on one leg of the path; ``session`` gets its application events.

    ``client`` opens the connection and sends on the leg's up link, ``server`` answers on its down link
    (on a split-proxy path the proxies play both roles, :mod:`latency_lab.protocols.proxy`).
    """

    def __init__(self, session: Any, conn_id: int, leg: int = PATH) -> None:
        self.session = session
        self.eng: Engine = session.eng
        self.id = conn_id
        q = self.eng.q
        p = q.p
        self.leg = leg
        self.links = (2 * leg, 2 * leg + 1)
        x = p.proxy
        self.names = leg_ends(x is not None, leg)
        if leg >= ORIGIN_LEG:  # another origin's own path (page.origins' rtt_ms; issue 28): its own initial timeout
            self.rto = p.origin_rto_ms[leg - ORIGIN_LEG]
        else:
            self.rto = p.rto_ms if x is None or leg == PATH else x.rto_c if leg == 1 else x.rto_s
        self.client = Endpoint(self, 0, p.iw)
        self.server = Endpoint(self, 1, p.iw)
        self.client.peer = self.server
        self.server.peer = self.client
        self.client.deliver = self.server.arrive
        self.server.deliver = self.client.arrive
        self.on_open: Callable[[Any, Point], None] | None = None
        # the HTTP applications' state (latency_lab.protocols.base.Session drives it)
        self.requests: list[list[str]] = []  # object names asked for, one list per request
        self.served = 0  # requests the server has started answering
        self.close_after = False  # HTTP/1.0: the server closes after its last response
        self.last_write: Point | None = None  # when the server last wrote a response
        self.expect: list[tuple[float, str]] = []  # (cumulative end offset, name) of responses due
        self.expect_i = 0
        self.expect_end = 0.0
        self.on_done: Callable[[str, Any, Packet], None] | None = None
        self.tls: Any = None  # the TLS handshake running on it (latency_lab.protocols.secure_setup.Dialogue)
        self.syns = 0  # SYNs sent (the loss analysis counts them: latency_lab.analysis.expected_loss)
        self.syn_t: Any = None  # when its (first) SYN was queued
        self.synack_t = -1.0  # when the server's SYN-ACK was queued (ms; the server's first round-trip sample)
        self.mux: Any = None  # h2/h3 streams on it (latency_lab.protocols.multiplex.Mux)
        self.origin = 0  # the server's origin (page.origins; issue 28): 0 the HTML's

    def release(self) -> None:
        """Break this connection's reference cycles (its endpoints, callbacks, TLS and streams): see
        :meth:`Endpoint.release`."""
        self.client.release()
        self.server.release()
        self.on_open = None
        self.on_done = None
        self.tls = None
        self.mux = None
        self.session = None
        self.last_write = None
        self.requests = None  # type: ignore[assignment]
        self.expect = None  # type: ignore[assignment]

    def open(self, point: Point, mode: str) -> None:
        """Open the connection at ``point`` (:mod:`latency_lab.mechanisms.connection_setup`).

        three_way: SYN, SYN-ACK, ACK. none: already open, as if the handshake had happened. ttcp: the
        client has written its request already and it rides on the SYN (T/TCP on a repeat connection).
        fast_open: the same with the cookie option and at most one MSS less the SYN's options of data on the
        SYN (RFC 7413; :func:`latency_lab.mechanisms.connection_setup.fast_open_syn_data_bytes`).
        """
        p = self.eng.q.p
        if mode == "warm":
            # open long ago and kept busy: both windows as open as the receive window lets them be, and
            # slow start only once per connection, so no restart after idle (seed 003, Proxy Servers)
            for ep in (self.client, self.server):
                ep.cwnd = ep.cwnd_cap
                ep.idle_restart = "keep"
            return
        if mode == "none":
            self.server.cwnd = slow_start.initial_window_segments(p.iw, p.profile.syn_ack_opens_window)
            if self.on_open is not None:
                self.on_open(point.t, point)
            return
        client = self.client
        options = connection_setup.syn_option_bytes(client.rwnd_n, fast_open=mode == "fast_open")
        payload, n = self.eng.q.size(0), 0.0
        if mode in ("ttcp", "fast_open") and client.end_n > client.nxt_n:
            payload, n = client.end - client.nxt, client.end_n - client.nxt_n
            cap = connection_setup.fast_open_syn_data_bytes(p.mss, options)
            if mode == "fast_open" and n > cap:  # RFC 7413 4.2: data and options on the SYN within one MSS
                payload, n = self.eng.q.mss - options, float(cap)
            client.nxt, client.nxt_n = client.nxt + payload, client.nxt_n + n
            client.last_data_t = point.t
        pkt = Packet(self.id, self.links[0], "SYN", payload, n)
        self.syns += 1
        if self.syn_t is None:
            self.syn_t = point.t
        pkt.options = options
        pkt.obj = client._obj_at(client.nxt_n - n) if n else None
        pkt.seq_end = client.nxt
        pkt.ack = client.rcv
        self.eng.transmit(pkt, point.t, ("app", point), self.server.arrive)

    def syn_arrived(self, t: Any, syn: Packet) -> None:
        server = self.server
        if syn.n > 0:  # T/TCP: the request came with the SYN; the SYN-ACK acknowledges it
            server.rcv = syn.seq_end
            server.rcv_n += syn.n
        pkt = Packet(self.id, self.links[1], "SYNACK", self.eng.q.size(0), 0)
        self.synack_t = t.v if isinstance(t, Lin) else t
        pkt.options = connection_setup.syn_option_bytes(server.rwnd_n)
        pkt.seq_end = server.nxt
        pkt.ack = server.rcv
        self.eng.transmit(pkt, t, ("arrival", syn, None, "connection_setup"), self.client.arrive)
        if syn.n > 0 and server.on_data is not None:
            server.on_data(t, syn)

    def synack_arrived(self, t: Any, synack: Packet) -> None:
        client = self.client
        if synack.ack > client.una:
            client.una = synack.ack
            client.una_n = synack.ack.v if isinstance(synack.ack, Lin) else synack.ack
        if self.syn_t is not None:  # the client's first round-trip sample (latency_lab.mechanisms.rto)
            client.rtt_sample(t, self.syn_t.v if isinstance(self.syn_t, Lin) else self.syn_t)
        client.send_control("ACK", t, ("handshake", synack))
        if client.end_n > client.nxt_n:  # Fast Open: what did not fit on the SYN follows
            client.output(t, ("handshake", synack))
            # ns3: entering ESTABLISHED fills the delayed-ACK count after sending what was waiting
            # (TcpSocketBase::ProcessSynSent), so the first data segment is still ACKed at once
            client.quick_ack = client.profile.ack_first_segment
        if self.on_open is not None:
            self.on_open(t, Point(t, synack, None, "connection_setup"))

    def handshake_ack_arrived(self, t: Any, pkt: Packet) -> None:
        if self.synack_t >= 0:  # the server's first round-trip sample (latency_lab.mechanisms.rto)
            self.server.rtt_sample(t, self.synack_t)
            self.synack_t = -1.0
        # BSD: the handshake ACK counts as an ACK of new data (seed 000, 2.2, footnote 1)
        if self.eng.q.p.profile.syn_ack_opens_window:
            self.server.cwnd += 1
