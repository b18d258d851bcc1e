"""A validated scenario as the model computes with it: :func:`resolve` flattens a :class:`~latency_lab.scenario.schema.Scenario`
into :class:`Params`, all numbers in model units (ms, bytes, ms per byte), the TCP profile's defaults applied
where the scenario leaves a field out (:mod:`latency_lab.scenario.profiles`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from latency_lab.scenario.profiles import PROFILES, TcpProfile
from latency_lab.scenario.schema import Scenario


@dataclass(frozen=True, slots=True)
class ProxyParams:
    """The split-proxy path's numbers (seed 003), in model units; see :mod:`latency_lab.protocols.proxy`."""

    d_c: float  # one-way delay of the client leg (ms)
    k_c: float  # serialization time per wire byte on the client leg (ms/byte)
    d_s: float  # one-way delay of the server leg (ms)
    k_s: float  # serialization time per wire byte on the server leg (ms/byte)
    rwnd_c: int | None  # the client leg's receive window (bytes); None: Params.rwnd
    rwnd_s: int | None  # the server leg's
    rwnd_x: int | None  # the long-haul connections'
    connections: int  # persistent connections between the proxies
    mux: int  # multiplexing overhead per relayed reply segment (bytes)
    rto_c: float  # retransmission timeout on the client leg (ms)
    rto_s: float  # on the server leg


@dataclass(frozen=True, slots=True)
class Params:
    """All numbers of a resolved scenario, in model units (ms, bytes, bytes per ms)."""

    d_up: float  # one-way delay client -> server (ms)
    d_down: float  # one-way delay server -> client (ms)
    k_up: float  # serialization time per wire byte client -> server (ms/byte)
    k_down: float  # serialization time per wire byte server -> client (ms/byte)
    overhead: int  # bytes per packet beyond payload
    symmetric_delay: bool
    symmetric_rate: bool
    profile: TcpProfile
    mss: int
    iw: int  # initial window (segments)
    rwnd: int  # receive window (bytes)
    dack_ms: float
    dack_segments: int
    nagle: bool
    handshake: str  # three_way, none, ttcp
    idle_restart: str
    rto_ms: float  # initial retransmission timeout (ms): RFC 6298's after one sample of the propagation round trip
    request: int
    header: int
    header_flush: bool
    flush_persistent_only: bool  # header_flush only on connections kept open after the response
    write: int
    server_think: float
    client_think: float
    conn_overhead: float
    parallel: int
    html: int
    objects: tuple[int, ...]
    pages: int
    user_think: float
    idle_timeout: float | None
    proxy: ProxyParams | None = None  # split-proxy path; None: direct
    dns_ms: float = 0.0  # DNS lookup before the session's first connection (0: cached)
    tls: str = "none"  # none, 1.2, 1.3
    tls_resumption: str = "after_first"
    tls_early_data: bool = True
    tls_false_start: bool = False  # TLS 1.2: the request goes with the client's Finished (RFC 7918)
    tls_client_hello: int = 512
    tls_server_flight: int = 4000
    tls_tickets: int = 0  # TLS 1.3: NewSessionTicket messages after the client's last flight
    tls_ticket_bytes: int = 79
    frame: int = 16_384  # h2/h3 DATA frame size (bytes)
    mux_request: int = 40  # h2/h3 compressed request size after the first (bytes)
    mux_headers_alone: bool = False  # h2/h3: a batch's HEADERS frames written before its DATA frames
    mux_server_settings: int = 0  # h2: the server's SETTINGS record, a segment of its own once a connection (bytes)
    mux_settings_ack: int = 0  # h2: the server's ACK of the client's SETTINGS, likewise (bytes)
    window_packets: bool = False  # TCP: the congestion window limits packets in flight, not bytes (Linux)
    quic_datagram: int = 1200
    quic_ack_delay: float = 25.0
    rto_min_ms: float = 1000.0  # lower bound of the retransmission timeout (ms; latency_lab.mechanisms.rto)
    pipeline_one_write: bool = False  # http.pipeline_writes "one": the pipelined requests in one write
    preconnect: bool = False  # http.preconnect: persistent_parallel opens its connections at the click
    # each embedded object's parent, the object whose last byte reveals it (0 the HTML, k the k-th embedded object;
    # page.object_parents); (): every one the HTML's, as when all are zero
    object_parents: tuple[int, ...] = ()
    # the origins beside the HTML's (page.origins; issue 28): each one's DNS lookup (ms) and preconnect hint, and
    # each embedded object's origin (0 the HTML's, k the k-th; page.object_origins); (): every one the HTML's
    origin_dns_ms: tuple[float, ...] = ()
    origin_preconnected: tuple[bool, ...] = ()
    origin_coalesce: tuple[bool, ...] = ()  # h2/h3: on the HTML's connection (RFC 9113 9.1.1)
    object_origins: tuple[int, ...] = ()
    # each embedded object's RFC 9218 priority (page.object_urgency, page.object_incremental; issue 28): its urgency
    # (0 the most urgent to 7) and incremental flag; (): none given, every stream of a batch takes its turn (as if all
    # had one urgency and were incremental)
    object_urgency: tuple[int, ...] = ()
    object_incremental: tuple[bool, ...] = ()
    # 103 Early Hints (RFC 8297; page.object_early_hint, page.origins' early_hint_preconnect, http.early_hints_bytes;
    # issue 28): each embedded object's flag (the 103 names it; (): none is), each other origin's flag (the 103 asks to
    # preconnect to it) and the 103's size; h2 and h3 only, and only when a flag is set
    object_early_hint: tuple[bool, ...] = ()
    # HTML parsed as it streams (page.object_named_at_bytes; issue 28): each embedded object's offset in its parent's
    # body on the wire (after compression) after which it is named, so discovered; the parent's wire size: at its end;
    # (): every one at its parent's end
    object_named_at: tuple[int, ...] = ()
    origin_early_preconnect: tuple[bool, ...] = ()
    early_hints_bytes: int = 200
    # each other origin's own path (page.origins' rtt_ms, bandwidth_bps; issue 28): whether it has one, and its one-way
    # delays, ms per wire byte each way and initial retransmission timeout (the network's where not given; read only
    # where the flag is set); (): no origin has a path of its own
    origin_path: tuple[bool, ...] = ()
    origin_d_up: tuple[float, ...] = ()
    origin_d_down: tuple[float, ...] = ()
    origin_k_up: tuple[float, ...] = ()
    origin_k_down: tuple[float, ...] = ()
    origin_rto_ms: tuple[float, ...] = ()
    loss: float = (
        0.0  # probability each packet is lost (network.loss_rate); only latency_lab.analysis.expected_loss uses it
    )


def resolve(s: Scenario) -> Params:
    """Flatten a validated scenario into :class:`Params` (profile defaults applied)."""
    n, t, h = s.network, s.tcp, s.http
    up = n.uplink_delay_ms if n.uplink_delay_ms is not None else None
    down = n.downlink_delay_ms if n.downlink_delay_ms is not None else None
    if up is None and down is None:
        up = down = n.rtt_ms / 2
    elif up is None:
        assert down is not None
        up = n.rtt_ms - down
    elif down is None:
        down = n.rtt_ms - up
    assert up is not None and down is not None
    b_down = n.bandwidth_bps
    b_up = n.uplink_bandwidth_bps if n.uplink_bandwidth_bps is not None else b_down
    profile = PROFILES[t.profile]
    html, objects = s.page.transferred(h.html_compression_ratio)
    assert t.mss_bytes is not None and t.initial_window_segments is not None
    assert t.receive_window_bytes is not None and t.delayed_ack_ms is not None
    assert t.delayed_ack_segments is not None and t.nagle is not None
    assert t.idle_restart is not None and t.rto_min_ms is not None
    return Params(
        d_up=float(up),
        d_down=float(down),
        k_up=8000.0 / b_up,
        k_down=8000.0 / b_down,
        overhead=n.packet_overhead_bytes,
        symmetric_delay=math.isclose(up, down, rel_tol=0, abs_tol=0) and n.uplink_delay_ms is None,
        symmetric_rate=n.uplink_bandwidth_bps is None,
        profile=profile,
        mss=t.mss_bytes,
        iw=t.initial_window_segments,
        rwnd=t.receive_window_bytes,
        dack_ms=float(t.delayed_ack_ms),
        dack_segments=t.delayed_ack_segments,
        nagle=t.nagle,
        handshake=t.handshake,
        idle_restart=t.idle_restart,
        rto_ms=max(t.rto_min_ms, 3 * (up + down)),
        rto_min_ms=float(t.rto_min_ms),
        request=h.request_bytes,
        header=h.response_header_bytes,
        header_flush=h.header_flush,
        flush_persistent_only=h.header_flush_persistent_only,
        pipeline_one_write=h.pipeline_writes == "one",
        preconnect=h.preconnect,
        write=h.server_write_bytes,
        server_think=h.server_think_ms,
        client_think=h.client_think_ms,
        conn_overhead=h.connection_overhead_ms,
        parallel=h.parallel_connections,
        html=html,
        objects=tuple(objects),
        object_parents=s.page.parents(),
        origin_dns_ms=tuple(float(o.dns_ms) for o in s.page.origins),
        origin_preconnected=tuple(o.preconnected for o in s.page.origins),
        origin_coalesce=tuple(o.coalesce_with_html for o in s.page.origins),
        object_origins=s.page.origins_of(),
        object_urgency=tuple(u for u, _ in s.page.priorities()),
        object_incremental=tuple(i for _, i in s.page.priorities()),
        object_early_hint=s.page.early_hints(),
        object_named_at=s.page.named_at(h.html_compression_ratio),
        origin_early_preconnect=tuple(o.early_hint_preconnect for o in s.page.origins),
        early_hints_bytes=h.early_hints_bytes,
        **_origin_paths(s, float(up), float(down), 8000.0 / b_up, 8000.0 / b_down),
        pages=s.session.pages,
        user_think=s.session.think_time_ms,
        idle_timeout=s.session.server_idle_timeout_ms,
        dns_ms=s.dns.resolver_rtt_ms if s.dns.lookup == "resolver" else 0.0,
        tls=s.tls.version,
        tls_resumption=s.tls.resumption,
        tls_early_data=s.tls.early_data,
        tls_false_start=s.tls.false_start,
        tls_client_hello=s.tls.client_hello_bytes,
        tls_server_flight=s.tls.server_flight_bytes,
        tls_tickets=s.tls.session_tickets,
        tls_ticket_bytes=s.tls.session_ticket_bytes,
        frame=s.multiplex.frame_bytes,
        mux_request=s.multiplex.request_bytes,
        mux_headers_alone=s.multiplex.headers_alone,
        mux_server_settings=s.multiplex.server_settings_bytes,
        mux_settings_ack=s.multiplex.settings_ack_bytes,
        window_packets=s.tcp.window_counts_packets,
        quic_datagram=s.quic.max_datagram_bytes,
        quic_ack_delay=s.quic.max_ack_delay_ms,
        loss=n.loss_rate,
        proxy=_proxy_params(s) if s.proxy.architecture == "split_proxy" else None,
    )


def _origin_paths(s: Scenario, up: float, down: float, k_up: float, k_down: float) -> dict[str, Any]:
    """Each other origin's path (page.origins' rtt_ms, bandwidth_bps), as :class:`Params`' origin_* fields: its RTT
    split evenly, its rate each way; the network's delays or rates where it gives none; all empty where no origin
    has a path of its own (so every other scenario's Params are as before)."""
    origins = s.page.origins
    if not any(o.own_path for o in origins):
        return {}
    rto_min = s.tcp.rto_min_ms
    assert rto_min is not None
    ups = [o.rtt_ms / 2 if o.rtt_ms is not None else up for o in origins]
    downs = [o.rtt_ms / 2 if o.rtt_ms is not None else down for o in origins]
    return {
        "origin_path": tuple(o.own_path for o in origins),
        "origin_d_up": tuple(float(x) for x in ups),
        "origin_d_down": tuple(float(x) for x in downs),
        "origin_k_up": tuple(8000.0 / o.bandwidth_bps if o.bandwidth_bps is not None else k_up for o in origins),
        "origin_k_down": tuple(8000.0 / o.bandwidth_bps if o.bandwidth_bps is not None else k_down for o in origins),
        "origin_rto_ms": tuple(max(rto_min, 3 * (u + d)) for u, d in zip(ups, downs, strict=True)),
    }


def _proxy_params(s: Scenario) -> ProxyParams:
    x, rto_min = s.proxy, s.tcp.rto_min_ms
    assert rto_min is not None
    c, v = x.client_leg, x.server_leg
    return ProxyParams(
        d_c=float(c.delay_ms),
        k_c=8000.0 / c.bandwidth_bps,
        d_s=float(v.delay_ms),
        k_s=8000.0 / v.bandwidth_bps,
        rwnd_c=c.receive_window_bytes,
        rwnd_s=v.receive_window_bytes,
        rwnd_x=x.long_haul_receive_window_bytes,
        connections=x.long_haul_connections,
        mux=x.mux_overhead_bytes,
        rto_c=max(rto_min, 6 * c.delay_ms),
        rto_s=max(rto_min, 6 * v.delay_ms),
    )
