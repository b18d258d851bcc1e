"""TCP profiles: where TCP implementations differ, the model follows a named one.

A profile gives (a) default values for the scenario's TCP fields and (b) behaviour that is not a
number a user sets. The default profile is ``bsd``: every published figure the model must reproduce
(seeds 000, 001, 002, 004) was measured on BSD-derived stacks (SunOS 4.1.3, ULTRIX, DEC OSF/1),
so the seeds' numbers are only comparable under their rules. ``ns3`` follows ns-3's TCP, the
packet-level simulator this project validates against. ``rfc5681`` is TCP as the standards describe it
(RFC 5681 congestion control, RFC 1122 delayed ACKs, RFC 896 Nagle, RFC 6298 timers) and ``linux`` a
modern Linux (RFC 6928 initial window, 40 ms delayed ACK with quick-ACK at the start, slow start after
idle): the TCP under today's web stacks (issue 7).

Behaviours (``TcpProfile`` fields):

``syn_ack_opens_window``
    bsd: the handshake's final ACK counts as an ACK of new data at the server, so the server's
    first reply window is one segment above the initial window (seed 000, 2.2, footnote 1).
``ack_counts_bytes``
    bsd: a delayed ACK goes out once ``delayed_ack_segments`` full segments' *worth of bytes* has
    arrived (a short header segment plus one full segment is not enough: seed 000, 2.2).
    ns3: every segment counts, whatever its size.
``nagle_idle_at_entry``
    bsd: ``tcp_output`` decides once, on entry, whether the connection is idle; a call that
    starts idle sends a short final segment after full ones (Stevens vol. 2, 26.3 as summarised
    in seed 000, 2.3). ns3: a short segment is held while *any* data is unacknowledged,
    including segments sent a moment before in the same call.
``idle_restart`` (a field default)
    bsd: ``slow_start``, as 4.4BSD, FreeBSD 2.1 and Linux 2.0 do (seed 000, 2.4; SunOS 4.1.3 keeps its
    window: choose ``keep`` for it). ns3: ``keep``; ns-3's TCP has no restart after idle.
``cwnd_counts_bytes``
    ns3: slow start adds a segment only for an ACK that, with the bytes carried over from earlier ACKs,
    acknowledges at least one full segment's worth (``TcpSocketBase::ProcessAck``); bsd: any ACK of new data.
``ack_first_segment``
    ns3: the first data segment an endpoint receives is acknowledged at once if it has sent no data since
    the connection opened ("always respond to first data packet"; sending data clears the count): the
    server's ACK of the first request. ns-3 fills the count on entering ESTABLISHED after sending what waited
    (``ProcessSynSent``), so a Fast Open client whose request did not fit on the SYN still ACKs the first
    response segment at once.
``fin_on_data_acked_alone``
    ns3: a FIN arriving with data is acknowledged at once and the receiver's own FIN follows separately;
    bsd: one FIN+ACK answers it.
``deliver_before_ack``
    ns3: arriving data reaches the application before the receiver's ACK is sent, so a request or SYN
    the application sends at once leaves ahead of that ACK; bsd: the ACK goes first (``tcp_input``).
``last_ack_any_ack``
    ns3: an endpoint that has the peer's FIN and has sent its own (LAST_ACK) forgets the connection at the
    first ACK that arrives, whatever it acknowledges (``TcpSocketBase::ProcessLastAck`` compares the segment's
    sequence number, not its acknowledgment number), and answers any later packet of the peer with an RST: a
    pure ACK of earlier data arriving after the client's FIN (on HTTP/1.0 with TLS 1.3 early data, the
    server's ACK of EndOfEarlyData) makes the ACK of the FIN draw an RST. bsd: the ACK of the FIN closes.
``close_sends_held``
    Closing a connection sends what Nagle holds (seed 000, 2.3). True for all (the ns-3 harness
    is made to do the same, as the validation issue requires).
``cwnd_abc_limit_segments``
    With ``cwnd_counts_bytes``: at most this many segments added per ACK (RFC 3465's ``L``). 1 for ns3 and
    rfc5681 (RFC 5681, 3.1: ``cwnd += min(N, SMSS)``); no limit for QUIC (RFC 9002, 7.3.1) and for linux, whose
    engine and the loss analysis count packets instead (``cwnd_counts_packets``).
``cwnd_counts_packets`` (and ``cwnd_counting``, the rule by name)
    How slow start counts what an ACK acknowledges, one rule per profile:

    - bsd, ``acks``: one segment for each ACK of new data, whatever it covers (4.4BSD ``tcp_input``: ``incr =
      t_maxseg`` per ACK in slow start; seed 000, 2.2), so a delayed ACK of two segments adds one;
    - ns3 and rfc5681, ``bytes``: acknowledged bytes in full segments, at most ``cwnd_abc_limit_segments`` per
      ACK, the remainder carried (RFC 5681, 3.1: ``cwnd += min(N, SMSS)``; RFC 3465; ns-3
      ``TcpSocketBase::ProcessAck``), so an ACK of a short segment alone adds nothing;
    - linux, ``packets``: one segment for every packet the ACK newly acknowledges, short or full
      (``tcp_slow_start`` in net/ipv4/tcp_cong.c adds ``acked``, the packets ``tcp_clean_rtx_queue`` freed), so
      an ACK of a short header segment and a full segment adds two.
``cwnd_limited_growth``
    linux: slow start grows the window only while the sender uses it, ``cwnd < 2 max_packets_out``
    (``tcp_is_cwnd_limited`` in include/net/tcp.h; :func:`latency_lab.mechanisms.slow_start.cwnd_limited`): a client's
    request or a small first response leaves the window where it was. Elsewhere every ACK of new data counts.
``nagle_minshall``
    linux: Minshall's variant of Nagle's algorithm: a short segment may leave unless an earlier *short*
    segment is still unacknowledged (``tcp_nagle_check`` and ``tcp_minshall_check`` in net/ipv4/tcp_output.c:
    ``snd_sml``, the end of the last short segment sent, after ``snd_una``). Full segments in flight do not
    hold it, so a response's short tail leaves behind its full segments, held only by an unacknowledged
    short header. Elsewhere Nagle's original rule: held while any data is unacknowledged.
``rtt_times_one_segment``, ``rto_granularity_ms``, ``rto_min_on_variation``, ``rto_max_ms``
    The retransmission timer (:mod:`latency_lab.mechanisms.rto`), RFC 6298's estimator on the round trips the
    schedule itself produces. bsd times one segment at a time (4.4BSD ``t_rtt``/``t_rtseq``; Stevens vol. 2,
    25.10), its clock ticks every 500 ms and RTO_max is 64 s (``TCPTV_REXMTMAX``); ns3 and rfc5681 take a
    sample from every ACK of new data (the oldest newly acknowledged segment's send time, as Linux without
    timestamps: ``seq_rtt_us`` in ``tcp_clean_rtx_queue``), 1 ms granularity (ns-3 ``ClockGranularity``), RTO_max
    60 s; linux puts ``tcp.rto_min_ms`` on the variation term (``RTO = SRTT + max(4 RTTVAR, RTO_min)``) and
    caps at TCP_RTO_MAX, 120 s.
``restart_halves_per_rto``
    linux: after an idle period the window is halved once per RTO of idle time beyond the first, not below
    ``min(IW, cwnd)`` (``tcp_cwnd_restart``, RFC 2861); elsewhere it restarts at ``min(IW, cwnd)`` (RFC 5681,
    4.1). Every profile restarts only after a real idle period: the application writes with nothing in flight
    and nothing sent for longer than the RTO (:func:`latency_lab.mechanisms.rto.restart_window`).
``quickack_segments``
    linux: the first segments of data a receiver gets are each acknowledged at once (quick-ACK mode, entered
    at the start of a connection; ``TCP_MAX_QUICKACKS`` = 16 in ``net/ipv4/tcp_input.c``), then the delayed-ACK
    rule applies. 0 elsewhere.
``pingpong_ack``
    linux: quick-ACK mode lasts while the receive window grows and ends for a receiver that answers. Each data
    segment that lets the receiver raise its window re-arms one quick ACK (``tcp_grow_window`` in
    net/ipv4/tcp_input.c: ``icsk_ack.quick |= 1``), so a receiver ACKs every segment until its window has grown
    to the buffer's (about ``receive_window_bytes / (2 MSS)`` segments, two MSS of growth each) and then its 16
    quick ACKs. A receiver that sends data within the delayed-ACK time (``icsk_ack.ato``, 40 ms) of the data it
    last received enters *pingpong* (interactive) mode (``tcp_event_data_sent`` in net/ipv4/tcp_output.c,
    ``tcp_pingpong_thresh`` = 1), where quick ACKs are off (``tcp_in_quickack_mode``): it ACKs once more than a
    full segment is unacknowledged (``__tcp_ack_snd_check``) or when the delayed-ACK timer fires, which ends
    pingpong mode (``tcp_delack_timer_handler``). A persistent connection's client after its first request,
    and every TLS client after its handshake, delay their ACKs; a client that only sends its request does not.
    Seen on the real-stack bench (issue 18): Python's HTTP/1.0 client ACKed each of 205 full segments of a
    300 KB response. False elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ProfileName = Literal["bsd", "ns3", "rfc5681", "linux"]
CwndCounting = Literal["acks", "bytes", "packets"]


@dataclass(frozen=True, slots=True)
class TcpProfile:
    name: str  # a ProfileName, or "quic" for QUIC's rules (latency_lab.mechanisms.quic)
    description: str
    syn_ack_opens_window: bool
    ack_counts_bytes: bool
    nagle_idle_at_entry: bool
    close_sends_held: bool
    cwnd_counts_bytes: bool = False
    ack_first_segment: bool = False
    fin_on_data_acked_alone: bool = False
    deliver_before_ack: bool = False
    last_ack_any_ack: bool = False
    cwnd_abc_limit_segments: int = 1
    quickack_segments: int = 0
    pingpong_ack: bool = False
    cwnd_counts_packets: bool = False
    nagle_minshall: bool = False
    rtt_times_one_segment: bool = False
    rto_granularity_ms: float = 1.0
    rto_min_on_variation: bool = False
    rto_max_ms: float = 60_000.0
    restart_halves_per_rto: bool = False
    cwnd_limited_growth: bool = False
    field_defaults: dict[str, object] = field(default_factory=dict)

    @property
    def cwnd_counting(self) -> CwndCounting:
        """How slow start counts acknowledgments: ``acks`` (one segment per ACK), ``bytes`` (acknowledged bytes
        in full segments) or ``packets`` (every acknowledged segment)."""
        if self.cwnd_counts_packets:
            return "packets"
        return "bytes" if self.cwnd_counts_bytes else "acks"


PROFILES: dict[str, TcpProfile] = {
    "bsd": TcpProfile(
        name="bsd",
        description=(
            "BSD-derived TCP of the seeds (SunOS 4.1.3, 4.4BSD): reply window starts one segment above "
            "the initial window, delayed ACK after two full segments' worth of bytes or 200 ms, "
            "Nagle on, Nagle's test made once per output call."
        ),
        syn_ack_opens_window=True,
        ack_counts_bytes=True,
        nagle_idle_at_entry=True,
        close_sends_held=True,
        rtt_times_one_segment=True,
        rto_granularity_ms=500.0,
        rto_max_ms=64_000.0,
        field_defaults={
            "mss_bytes": 1460,
            "initial_window_segments": 1,
            "receive_window_bytes": 65535,
            "delayed_ack_ms": 200.0,
            "delayed_ack_segments": 2,
            "nagle": True,
            "idle_restart": "slow_start",
            "rto_min_ms": 1000.0,
        },
    ),
    "ns3": TcpProfile(
        name="ns3",
        description=(
            "ns-3's TcpSocketBase with its attribute defaults (SegmentSize 536, InitialCwnd 10, "
            "RcvBufSize 131072, DelAckTimeout 200 ms, DelAckCount 2, TcpNoDelay true): delayed ACKs "
            "count segments of any size, no reply-window bonus, Nagle tested per segment."
        ),
        syn_ack_opens_window=False,
        ack_counts_bytes=False,
        nagle_idle_at_entry=False,
        close_sends_held=True,
        cwnd_counts_bytes=True,
        ack_first_segment=True,
        fin_on_data_acked_alone=True,
        deliver_before_ack=True,
        last_ack_any_ack=True,
        field_defaults={
            "mss_bytes": 536,
            "initial_window_segments": 10,
            "receive_window_bytes": 131072,
            "delayed_ack_ms": 200.0,
            "delayed_ack_segments": 2,
            "nagle": False,
            "idle_restart": "keep",
            "rto_min_ms": 1000.0,
        },
    ),
    "rfc5681": TcpProfile(
        name="rfc5681",
        description=(
            "TCP by the RFCs: initial window of RFC 5681 3.1 (3 segments of 1460 bytes), no window bonus for the "
            "handshake, cwnd += min(acked, SMSS) per ACK, an ACK for every second full-sized segment or within "
            "200 ms (RFC 1122 4.2.3.2 allows up to 500), Nagle on (RFC 896), slow start after an idle RTO (RFC 5681 "
            "4.1), RTO at least 1 s (RFC 6298)."
        ),
        syn_ack_opens_window=False,
        ack_counts_bytes=True,
        nagle_idle_at_entry=False,
        close_sends_held=True,
        cwnd_counts_bytes=True,
        field_defaults={
            "mss_bytes": 1460,
            "initial_window_segments": 3,
            "receive_window_bytes": 65535,
            "delayed_ack_ms": 200.0,
            "delayed_ack_segments": 2,
            "nagle": True,
            "idle_restart": "slow_start",
            "rto_min_ms": 1000.0,
        },
    ),
    "linux": TcpProfile(
        name="linux",
        description=(
            "Modern Linux: initial window 10 segments (RFC 6928), delayed ACK of 40 ms minimum (TCP_DELACK_MIN) "
            "after two segments, the first 16 data segments ACKed at once (quick-ACK), slow start counting every "
            "acknowledged packet (tcp_slow_start), the window halved per idle RTO (tcp_cwnd_restart, "
            "tcp_slow_start_after_idle = 1), RTO = SRTT + max(4 RTTVAR, 200 ms) (TCP_RTO_MIN), Nagle off as web "
            "servers and browsers set TCP_NODELAY (on: Minshall's variant, tcp_minshall_check)."
        ),
        syn_ack_opens_window=False,
        ack_counts_bytes=False,
        nagle_idle_at_entry=False,
        close_sends_held=True,
        cwnd_counts_bytes=True,
        cwnd_abc_limit_segments=1_000_000,
        quickack_segments=16,
        pingpong_ack=True,
        cwnd_counts_packets=True,
        nagle_minshall=True,
        rto_min_on_variation=True,
        rto_max_ms=120_000.0,
        restart_halves_per_rto=True,
        cwnd_limited_growth=True,
        field_defaults={
            "mss_bytes": 1460,
            "initial_window_segments": 10,
            "receive_window_bytes": 131072,
            "delayed_ack_ms": 40.0,
            "delayed_ack_segments": 2,
            "nagle": False,
            "idle_restart": "slow_start",
            "rto_min_ms": 200.0,
        },
    ),
}
