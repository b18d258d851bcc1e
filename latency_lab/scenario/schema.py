"""The scenario document: one pydantic schema for the CLI, the API, the form and the presets.

Every field is optional and has a default; units are in the field names. TCP fields left out
(``None``) take the value of the chosen TCP profile (see :mod:`latency_lab.scenario.profiles`); fields given
explicitly override the profile. :func:`latency_lab.scenario.params.resolve` turns a validated scenario
into the flat, all-numbers :class:`~latency_lab.scenario.params.Params` the model computes with.

Every section is strict, for Python callers as for the JSON front ends (:func:`latency_lab.scenario.errors.validate_scenario`):
a number field takes an ``int`` or a ``float`` (not ``"70"``, not ``True``), an integer field an ``int`` (not ``1.5``,
not ``1460.0``; the JSON front ends read a whole float as its integer themselves), a list field any sequence of such
items. A field assigned after construction (``s.network.rtt_ms = -1``) is validated as it would be given, with its
section's own rules (``Network``: the one-way delays against ``rtt_ms``); the rules between sections run when the whole
scenario is validated, and again in :func:`latency_lab.predict` and :func:`latency_lab.expression`. Every refusal is a
:class:`latency_lab.scenario.errors.ScenarioError` (a pydantic ``ValidationError``, so a ``ValueError``) whose message is the
front ends' words: the field's path, what it allows, the value given, and for an unknown field the closest name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails

from latency_lab.scenario.content import effective_page
from latency_lab.scenario.profiles import PROFILES, ProfileName

Protocol = Literal["http10", "http10_parallel", "persistent", "pipelined", "getall", "persistent_parallel", "h2", "h3"]
#: The seeds' protocols over HTTP/1.x (the default set of a scenario).
SEED_PROTOCOLS: tuple[Protocol, ...] = (
    "http10",
    "http10_parallel",
    "persistent",
    "pipelined",
    "getall",
)
#: Today's multiplexed protocols (issue 7): HTTP/2 over TCP, HTTP/3 over QUIC.
MODERN_PROTOCOLS: tuple[Protocol, ...] = ("h2", "h3")
#: HTTP/1.1 as browsers use it (issue 28): up to http.parallel_connections persistent connections at once.
BROWSER_PROTOCOLS: tuple[Protocol, ...] = ("persistent_parallel",)
ALL_PROTOCOLS: tuple[Protocol, ...] = SEED_PROTOCOLS + BROWSER_PROTOCOLS + MODERN_PROTOCOLS

#: Limits that keep every prediction well under a second (documented in the README).
MAX_OBJECTS = 1000
MAX_OBJECT_BYTES = 100_000_000
#: Most origins a page's objects may come from beside the HTML's own (page.origins; issue 28).
MAX_ORIGINS = 50
#: RFC 9218 4.1's urgencies: 0 the most urgent, 7 the least, 3 when a request names none.
MIN_URGENCY = 0
MAX_URGENCY = 7
DEFAULT_URGENCY = 3
#: Longest delay a field may give (ms): a round trip (network.rtt_ms, dns.resolver_rtt_ms), a one-way delay (the
#: network's and a split proxy's legs'), an origin's DNS lookup; declared once here (the HAR's what-ifs take it too).
MAX_DELAY_MS = 10_000
#: Longest DNS lookup of an origin (ms), as dns.resolver_rtt_ms'.
MAX_DNS_MS = MAX_DELAY_MS
#: The rates a link may have (bit/s), every link's: the network's each way, a split proxy's legs, the HAR's what-if.
MIN_RATE_BPS = 1_000
MAX_RATE_BPS = 100e9
#: The receive windows (TCP buffers) a field may give (bytes): the largest is 65,535 scaled by 2^14 (RFC 7323).
MIN_WINDOW_BYTES = 1_000
MAX_WINDOW_BYTES = 1_073_725_440
#: h2's SETTINGS records (multiplex.server_settings_bytes, multiplex.settings_ack_bytes): a TLS record of at most
#: 16,384 bytes of plaintext (RFC 8446 5.1) and its overhead
MAX_SETTINGS_RECORD_BYTES = 16_640
MAX_SEGMENTS = 10_000  # about one second for all five protocols (bench/)
#: Bytes of a QUIC packet that are not stream data: a packet carries ``quic.max_datagram_bytes`` less this
#: (latency_lab.mechanisms.quic.QUIC_PACKET_OVERHEAD, checked equal by tests/latency_lab/scenario/test_limits.py).
QUIC_PACKET_OVERHEAD_BYTES = 30
#: Highest network.loss_rate: the closed forms of latency_lab.mechanisms.loss need p < 1/2 (handshake) and are a lower bound
#: that drifts from the truth as losses pile up; 0.2 keeps them meaningful.
MAX_LOSS_RATE = 0.2


_UNSET = object()
#: Whether a field of a scenario or section has been assigned to in this process (see :func:`checked`).
_assigned = False


def _refused(model: type[BaseModel], exc: ValidationError) -> ValidationError:
    """``exc`` as a :class:`~latency_lab.scenario.errors.ScenarioError`: the front ends' words (errors imports this module)."""
    from latency_lab.scenario.errors import ScenarioError

    return ScenarioError.of(exc, model)


class _Strict(BaseModel):
    """A scenario section: unknown fields refused, strict types, validated on assignment, refusals in words."""

    model_config = ConfigDict(
        extra="forbid", allow_inf_nan=False, validate_default=True, strict=True, validate_assignment=True
    )

    if not TYPE_CHECKING:  # pydantic's own signatures for mypy; these only turn its errors into ScenarioError

        def __init__(self, /, **data: Any) -> None:
            try:  # BaseModel.__init__'s one line, not a call of it: a section made by default costs no more frames
                self.__pydantic_validator__.validate_python(data, self_instance=self)
            except ValidationError as exc:
                raise _refused(type(self), exc) from None

        # pydantic calls __init__ only when it is its own (or marked so): model_validate and nested sections
        # validate in pydantic-core, without this frame, as before
        __init__.__pydantic_base_init__ = True

        def __setattr__(self, name: str, value: Any) -> None:
            before = self.__dict__.get(name, _UNSET)
            was_set = name in self.__pydantic_fields_set__
            try:
                super().__setattr__(name, value)
            except ValidationError as exc:
                # pydantic keeps a value its field accepted when a model validator then refuses it: put back the old
                if before is not _UNSET:
                    self.__dict__[name] = before
                if not was_set:
                    self.__pydantic_fields_set__.discard(name)
                raise _refused(type(self), exc) from None
            global _assigned
            _assigned = True

        @classmethod
        def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
            try:
                return super().model_validate(obj, **kwargs)
            except ValidationError as exc:
                raise _refused(cls, exc) from None

        @classmethod
        def model_validate_json(cls, json_data: Any, **kwargs: Any) -> Any:
            try:
                return super().model_validate_json(json_data, **kwargs)
            except ValidationError as exc:
                raise _refused(cls, exc) from None


class Network(_Strict):
    """The path between client and server."""

    rtt_ms: float = Field(
        70.0,
        ge=0,
        le=MAX_DELAY_MS,
        description="Round-trip propagation delay (ms), split evenly unless both one-way delays are given.",
    )
    bandwidth_bps: float = Field(
        1_544_000.0,
        ge=MIN_RATE_BPS,
        le=MAX_RATE_BPS,
        description="Bottleneck rate each way (bit/s) unless uplink_bandwidth_bps is given.",
    )
    uplink_delay_ms: float | None = Field(
        None,
        ge=0,
        le=MAX_DELAY_MS,
        description="One-way delay client to server (ms); with downlink_delay_ms it overrides rtt_ms.",
    )
    downlink_delay_ms: float | None = Field(
        None, ge=0, le=MAX_DELAY_MS, description="One-way delay server to client (ms)."
    )
    uplink_bandwidth_bps: float | None = Field(
        None, ge=MIN_RATE_BPS, le=MAX_RATE_BPS, description="Client-to-server rate (bit/s), for asymmetric links."
    )
    packet_overhead_bytes: int = Field(
        40,
        ge=0,
        le=1_000,
        description="Bytes each packet costs on the wire beyond its payload (IP+TCP headers, framing).",
    )
    loss_rate: float = Field(
        0.0,
        ge=0,
        le=MAX_LOSS_RATE,
        description="Probability that a packet is lost, each packet independently (dimensionless, 0 to 0.2; "
        "0.01 is 1 %). The packets are still drawn without loss; each result adds the mean extra time the "
        "losses cost (timeouts, retransmissions), computed by formula, as expected_with_loss.",
    )

    @model_validator(mode="after")
    def _one_way_delays(self) -> Network:
        up, down = self.uplink_delay_ms, self.downlink_delay_ms
        if up is not None and down is not None:
            # Both given: they define the path; rtt_ms follows from them (and stays within its own range).
            if up + down > MAX_DELAY_MS:
                raise ValueError(
                    f"uplink_delay_ms + downlink_delay_ms ({up:g} + {down:g}) cannot exceed {MAX_DELAY_MS:,} ms, "
                    "the largest rtt_ms"
                )
            object.__setattr__(self, "rtt_ms", up + down)
        elif up is not None or down is not None:
            given = up if up is not None else down
            assert given is not None
            if given > self.rtt_ms:
                name = "uplink_delay_ms" if up is not None else "downlink_delay_ms"
                raise ValueError(
                    f"{name} ({given}) cannot exceed rtt_ms ({self.rtt_ms}); give both one-way delays instead"
                )
        return self


class Tcp(_Strict):
    """TCP behaviour; fields left out take the profile's values."""

    if not TYPE_CHECKING:

        def __setattr__(self, name: str, value: Any) -> None:
            super().__setattr__(name, value)
            if name == "profile":  # the fields left out, filled from the old profile (Scenario), follow the new one
                for field, default in PROFILES[self.profile].field_defaults.items():
                    if field not in self.__pydantic_fields_set__ and getattr(self, field) is not None:
                        object.__setattr__(self, field, default)

    profile: ProfileName = Field(
        "bsd",
        description="TCP implementation whose behaviour is modelled: bsd (the seeds' stacks), ns3, rfc5681 (generic) "
        "or linux (today's Linux defaults).",
    )
    mss_bytes: int | None = Field(None, ge=100, le=65_495, description="Maximum segment size (bytes).")
    initial_window_segments: int | None = Field(
        None,
        ge=1,
        le=100,
        description="Initial congestion window (segments). On the bsd profile (the default) the server's first reply "
        "window is one segment more (IW + 1: BSD counts the handshake's last ACK as an ACK of new data; seed 000, 2.2), "
        "so 1 sends two segments first; the textbook's one segment is profile rfc5681 (with delayed_ack_ms 0 for its "
        "immediate ACKs).",
    )
    receive_window_bytes: int | None = Field(
        None,
        ge=MIN_WINDOW_BYTES,
        le=MAX_WINDOW_BYTES,
        description="Receiver's advertised window (bytes), also the sender's cap.",
    )
    delayed_ack_ms: float | None = Field(
        None, ge=0, le=500, description="Delayed-ACK timer (ms); 0 acknowledges every segment at once."
    )
    delayed_ack_segments: int | None = Field(
        None,
        ge=1,
        le=16,
        description="A receiver ACKs at once after this many segments (bsd: full segments' worth of bytes).",
    )
    nagle: bool | None = Field(None, description="Nagle's algorithm on the sender (both ends).")
    handshake: Literal["three_way", "none", "ttcp", "fast_open"] = Field(
        "three_way",
        description="three_way: each connection opens with SYN/SYN-ACK; none: already open (TCP and TLS); ttcp: "
        "after the session's first connection, the request rides on the SYN (T/TCP); fast_open: TCP Fast Open "
        "(RFC 7413) with a cookie from an earlier visit, what the client sends first (its request, or its TLS "
        "ClientHello) rides on every SYN, up to one MSS less the SYN's option bytes.",
    )
    idle_restart: Literal["slow_start", "keep", "fast_start", "paced"] | None = Field(
        None,
        description="After sending nothing for longer than the retransmission timeout: slow_start (restart "
        "window, RFC 5681), keep (SunOS 4.1.3), fast_start (reuse the cached window, also for new connections), "
        "paced (keep the window, pace at the rate before the idle).",
    )
    rto_min_ms: float | None = Field(
        None,
        ge=1,
        le=60_000,
        description="Lower bound of the retransmission timeout (ms): RTO = max(this, SRTT + max(G, 4 RTTVAR)) "
        "on each sender's measured round trips (RFC 6298); linux: SRTT + max(4 RTTVAR, this).",
    )
    window_counts_packets: bool = Field(
        False,
        description="The congestion window limits the packets in flight, short or full, not the bytes "
        "(cwnd x MSS): Linux's tcp_cwnd_test (net/ipv4/tcp_output.c), so every short segment (a TLS ticket, h2's "
        "SETTINGS) takes a whole slot; the receive window still counts bytes. Off by default on every profile, "
        "linux included, so every earlier figure stays as it was (issue 28: the browser judge sets it, as a real "
        "Linux server sent 10 packets of an initial window of 10). Not on h3 (QUIC counts bytes in flight).",
    )


class Http(_Strict):
    """Client and server application behaviour."""

    request_bytes: int = Field(200, ge=1, le=65_536, description="Size of one HTTP request (bytes).")
    response_header_bytes: int = Field(200, ge=0, le=65_536, description="Size of one response header (bytes).")
    header_flush: bool = Field(
        False, description="The server writes the response header on its own before the body (seed 000, 2.2)."
    )
    header_flush_persistent_only: bool = Field(
        False,
        description="With header_flush: flush only on persistent connections; where the server closes the "
        "connection after its response (HTTP/1.0) the header goes with the data, as Apache 1.1b4 did (seed 000, 2.2).",
    )
    server_write_bytes: int = Field(
        4096,
        ge=0,
        le=MAX_OBJECT_BYTES,
        description="Size of the server's application writes (bytes); 0 writes each response at once.",
    )
    server_think_ms: float = Field(0.0, ge=0, le=60_000, description="Server time per request before it writes (ms).")
    client_think_ms: float = Field(0.0, ge=0, le=60_000, description="Client time before each request it sends (ms).")
    html_compression_ratio: float = Field(
        1.0, gt=0, le=1, description="Compressed HTML size over its size, e.g. deflate (seed 004); 1: uncompressed."
    )
    connection_overhead_ms: float = Field(
        0.0, ge=0, le=60_000, description="Extra host time per new connection before its first request is served (ms)."
    )
    parallel_connections: int = Field(
        4,
        ge=1,
        le=64,
        description="Simultaneous connections for http10_parallel and persistent_parallel (browsers: 6 per origin).",
    )
    preconnect: bool = Field(
        False,
        description="persistent_parallel: open all http.parallel_connections connections at the click, beside "
        "the HTML's (a browser's preconnect), so they are ready when the HTML has arrived.",
    )
    early_hints_bytes: int = Field(
        200,
        ge=1,
        le=65_536,
        description="Size of the 103 Early Hints response (RFC 8297) the server sends on h2 and h3 when the page "
        "names hints (page.object_early_hint, page.origins' early_hint_preconnect): its header block of Link "
        "fields (bytes), written as soon as the HTML's request has arrived.",
    )
    pipeline_writes: Literal["each", "one"] = Field(
        "each",
        description="How the pipelined client writes its object requests after the HTML: each (one write per "
        "request, back to back, as seeds 001 and 002's clients; with Nagle on the later ones wait for an ACK) or "
        "one (all in one write, so requests share segments, as libwww buffers them: seed 004).",
    )


class Dns(_Strict):
    """Looking up the server's name before the session's first connection."""

    lookup: Literal["cached", "resolver"] = Field(
        "cached",
        description="cached: the address is known (no lookup); resolver: one round trip to the recursive "
        "resolver, which has the answer cached, before the first connection.",
    )
    resolver_rtt_ms: float = Field(
        50.0, ge=0, le=MAX_DELAY_MS, description="Round trip to the resolver and its answer (ms), with lookup resolver."
    )


class Tls(_Strict):
    """TLS on every connection: the handshake's messages sent as packets of realistic sizes."""

    version: Literal["none", "1.2", "1.3"] = Field(
        "none",
        description="none: plain HTTP; 1.2: full handshake in 2 round trips (RFC 5246); 1.3: 1 round trip "
        "(RFC 8446). h3 always uses TLS 1.3 inside QUIC.",
    )
    resumption: Literal["none", "after_first", "all"] = Field(
        "after_first",
        description="Which connections resume a session (RFC 5077 tickets, RFC 8446 PSK): none; after_first: "
        "the session's later connections, with the first one's ticket; all: the first too (a ticket from an "
        "earlier visit). A resumed 1.2 handshake takes 1 round trip, a resumed 1.3 one 0 with early data.",
    )
    early_data: bool = Field(
        True, description="TLS 1.3 and QUIC resumptions send the first request as 0-RTT early data (RFC 8446 2.3)."
    )
    false_start: bool = Field(
        False,
        description="TLS 1.2 False Start (RFC 7918): the client sends its first request with its Finished, "
        "without waiting for the server's, so a full 1.2 handshake takes 1 round trip instead of 2.",
    )
    client_hello_bytes: int = Field(
        512, ge=100, le=16_384, description="ClientHello record (bytes); browsers pad it to about 512 (RFC 7685)."
    )
    server_flight_bytes: int = Field(
        4000,
        ge=100,
        le=65_536,
        description="Server's first flight of a full handshake with its certificate chain (bytes): 1.3 "
        "ServerHello..Finished, 1.2 ServerHello..ServerHelloDone.",
    )
    session_tickets: int = Field(
        0,
        ge=0,
        le=8,
        description="TLS 1.3: NewSessionTicket messages the server writes, each on its own, when the client's last "
        "handshake flight arrives (RFC 8446 4.6.1; OpenSSL sends 2), before its first response.",
    )
    session_ticket_bytes: int = Field(
        79, ge=20, le=16_384, description="One NewSessionTicket record with session_tickets (bytes)."
    )


class Multiplex(_Strict):
    """HTTP/2 and HTTP/3: every request a stream on one connection."""

    frame_bytes: int = Field(
        16_384,
        ge=100,
        le=16_777_215,
        description="DATA frame size the server interleaves responses by, round-robin (bytes); 16,384 is "
        "HTTP/2's default SETTINGS_MAX_FRAME_SIZE (RFC 9113 6.5.2).",
    )
    request_bytes: int = Field(
        40,
        ge=1,
        le=65_536,
        description="A request after the first, its headers compressed against the ones sent before (bytes; "
        "HPACK, RFC 7541, or QPACK, RFC 9204); the first is http.request_bytes.",
    )
    headers_alone: bool = Field(
        False,
        description="The server writes a batch's HEADERS frames (http.response_header_bytes each) on their own, "
        "before the DATA frames, as nginx does (its SETTINGS ride with the first): a short segment that, with "
        "Nagle on, holds the DATA's short tail until it is acknowledged (Minshall's rule).",
    )
    server_settings_bytes: int = Field(
        0,
        ge=0,
        le=MAX_SETTINGS_RECORD_BYTES,
        description="h2 only: the server's SETTINGS record (bytes on the wire past the TCP header, TLS record "
        "overhead included; nginx's SETTINGS with its WINDOW_UPDATE in a TLS 1.3 record: 62), written once per "
        "connection as a segment of its own when the client's first bytes after the handshake (its preface) "
        "arrive, after any session tickets and before the first response: a segment that takes a whole slot of "
        "a window of packets (tcp.window_counts_packets, as Linux counts), its bytes of a window of bytes. 0 (the "
        "default): not written, as the model did before (every earlier figure stays as it was). Over plain TCP "
        "(h2c) nginx's SETTINGS ride in its first "
        "response's segment: leave it 0 there. Ignored on h3 (its SETTINGS ride on QUIC's control streams).",
    )
    settings_ack_bytes: int = Field(
        0,
        ge=0,
        le=MAX_SETTINGS_RECORD_BYTES,
        description="h2 only: the server's ACK of the client's SETTINGS (bytes on the wire, TLS record overhead "
        "included; nginx over TLS 1.3: 31), a segment of its own right after server_settings_bytes', with the same "
        "rules. 0 (the default): not written, so every earlier figure stays as it was. Ignored on h3.",
    )


class Quic(_Strict):
    """QUIC's transport rules, for HTTP/3 (h3)."""

    max_datagram_bytes: int = Field(
        1200,
        ge=1200,
        le=65_527,
        description="UDP payload of a QUIC packet (bytes); 1200 is the size every path must carry (RFC 9000 14).",
    )
    max_ack_delay_ms: float = Field(
        25.0, ge=0, le=16_384, description="Longest a receiver delays an ACK (ms; RFC 9000 18.2 default 25)."
    )


class Session(_Strict):
    """A browsing session: the page loaded several times on the same server (seed 000, 2.4)."""

    pages: int = Field(1, ge=1, le=20, description="Page loads in the session, one after another.")
    think_time_ms: float = Field(
        0.0, ge=0, le=3_600_000, description="User think time from a page's last byte to the next page's start (ms)."
    )
    server_idle_timeout_ms: float | None = Field(
        None,
        ge=0,
        le=3_600_000,
        description="The server closes a persistent connection idle this long (ms); null: never.",
    )


class Leg(_Strict):
    """One access leg of a split-proxy path: its own link (the same both ways) and TCP buffer."""

    delay_ms: float = Field(
        1.0, ge=0, le=MAX_DELAY_MS, description="One-way propagation delay of this leg, each way (ms)."
    )
    bandwidth_bps: float = Field(
        100e6, ge=MIN_RATE_BPS, le=MAX_RATE_BPS, description="Rate of this leg, each way (bit/s)."
    )
    receive_window_bytes: int | None = Field(
        None,
        ge=MIN_WINDOW_BYTES,
        le=MAX_WINDOW_BYTES,
        description="TCP buffer (receive window) of the connections on this leg (bytes); null: tcp.receive_window_bytes.",
    )


class Proxy(_Strict):
    """The path's architecture (seed 003): direct, or split by a proxy at each end of the long-haul link.

    split_proxy: client - client leg - local proxy - long-haul link (``network``) - remote proxy - server leg -
    server. Each leg carries its own TCP connections; the proxies relay each segment as it arrives.
    """

    architecture: Literal["direct", "split_proxy"] = Field(
        "direct",
        description="direct: one TCP connection over network; split_proxy: a proxy at each end of network "
        "(which becomes the long-haul link), with persistent warm multiplexed connections between them.",
    )
    client_leg: Leg = Field(default_factory=lambda: Leg(), description="Client to local proxy (split_proxy).")
    server_leg: Leg = Field(default_factory=lambda: Leg(), description="Remote proxy to server (split_proxy).")
    long_haul_connections: int = Field(
        1, ge=1, le=64, description="Persistent connections between the proxies; each reply takes the least loaded."
    )
    long_haul_receive_window_bytes: int | None = Field(
        None,
        ge=MIN_WINDOW_BYTES,
        le=MAX_WINDOW_BYTES,
        description="TCP buffer of the connections between the proxies (bytes); null: tcp.receive_window_bytes.",
    )
    mux_overhead_bytes: int = Field(
        20,
        ge=0,
        le=1_000,
        description="Multiplexing overhead added to each reply segment relayed between the proxies (bytes; seed 003: 20).",
    )


#: The page's embedded objects when none are given: three of 2,544 bytes.
def _object_count(data: dict[str, Any]) -> int:
    """The embedded objects a page's validated fields give (before its what-ifs)."""
    if data["object_bytes"] is not None:
        return len(data["object_bytes"])
    if data["object_count"] is not None:
        return int(data["object_count"])
    return DEFAULT_OBJECT_COUNT


#: The page's fields a list of one value per embedded object is checked against: the objects, and the what-ifs
#: that add or drop objects (a style sheet, images drawn by it).
_OBJECTS_AND_WHAT_IFS = ("object_bytes", "object_count", "css_bytes", "css_replaces_images")


def _per_object_list(
    given: Sequence[Any] | None,
    info: ValidationInfo,
    noun: str,
    *,
    needs: tuple[str, ...] = (),
    each: Callable[[int, Any], str | None] | None = None,
) -> None:
    """Check the page's list ``info.field_name``, one ``noun`` per embedded object (``page.object_parents``,
    ``object_origins``, ``object_urgency``...): its length, then each item (``each(k, item)``: the refusal of item
    k, or None), then that neither ``page.css_bytes`` nor ``page.css_replaces_images`` is above 0 (they add or drop
    embedded objects). Unchecked where ``given`` is None or a field it needs (the objects, the what-ifs, ``needs``)
    failed validation: that field is reported on its own. A refusal is a ``ValueError`` naming the field."""
    data, name = info.data, info.field_name
    if given is None or any(key not in data for key in (*_OBJECTS_AND_WHAT_IFS, *needs)):
        return
    n = _object_count(data)
    if len(given) != n:
        raise ValueError(f"{name} must give one {noun} per embedded object: {n} objects, {len(given)} {noun}s")
    if each is not None:
        for k, item in enumerate(given):
            refusal = each(k, item)
            if refusal is not None:
                raise ValueError(refusal)
    for key in ("css_bytes", "css_replaces_images"):
        if data[key] > 0:
            raise ValueError(
                f"{name} cannot be used with page.{key} above 0 (it adds or drops embedded objects, so the "
                f"{noun}s would name other objects); allowed: page.{key} 0"
            )


class Origin(_Strict):
    """An origin (scheme, host, port) some of the page's objects come from, beside the HTML's own (issue 28): its own
    DNS lookup, connections and TLS handshakes, over the same path as the HTML's unless it has a path of its own
    (``rtt_ms``, ``bandwidth_bps``: a CDN nearby, a third party far away)."""

    dns_ms: float = Field(
        0.0,
        ge=0,
        le=MAX_DNS_MS,
        description="Its DNS lookup (ms), before its first connection opens; 0: its address is cached.",
    )
    preconnected: bool = Field(
        False,
        description="A preconnect hint (<link rel=preconnect>, or a connection kept warm): its DNS lookup, TCP and "
        "TLS handshakes start at the click, beside the HTML's, so its connection is ready when its objects are "
        "discovered.",
    )
    coalesce_with_html: bool = Field(
        False,
        description="h2 and h3: its requests go on the HTML's connection (RFC 9113 9.1.1 connection reuse: the "
        "HTML's certificate covers it and its address is the HTML's), once its DNS lookup has ended; no "
        "connection or handshake of its own. HTTP/1.x protocols do not coalesce.",
    )
    early_hint_preconnect: bool = Field(
        False,
        description="h2 and h3: the HTML's 103 Early Hints response (RFC 8297) names it with a Link rel=preconnect: "
        "its DNS lookup, TCP and TLS handshakes start when the 103 arrives (one trip after the HTML's request "
        "reached the server), unless a connection to it is open or opening. HTTP/1.x protocols get no 103.",
    )
    rtt_ms: float | None = Field(
        None,
        ge=0,
        le=MAX_DELAY_MS,
        description="Its own path's round-trip propagation delay (ms), split evenly (a CDN nearby, a third party far "
        "away): with it or bandwidth_bps every connection to it (handshakes, requests, responses, ACKs) crosses a "
        "path of its own, whose bottleneck the HTML's connections do not share. Omitted: the network's delays "
        "(network.rtt_ms or the one-way delays). Neither given: the network's path, shared with the HTML's "
        "connections. Not with coalesce_with_html, network.loss_rate above 0 or split proxies.",
    )
    bandwidth_bps: float | None = Field(
        None,
        ge=MIN_RATE_BPS,
        le=MAX_RATE_BPS,
        description="Its own path's bottleneck rate each way (bit/s): with it or rtt_ms the origin's connections "
        "cross a path of their own, independent of the HTML's. Omitted: the network's rates "
        "(network.bandwidth_bps, uplink_bandwidth_bps).",
    )

    @model_validator(mode="after")
    def _own_path_not_coalesced(self) -> Origin:
        if self.coalesce_with_html and self.own_path:
            given = " and ".join(name for name in ("rtt_ms", "bandwidth_bps") if getattr(self, name) is not None)
            raise ValueError(
                f"an origin with {given} given (a path of its own) cannot have coalesce_with_html true: its address "
                "is not the HTML's, and h2/h3 coalescing needs the HTML's address (RFC 9113 9.1.1); allowed: "
                f"coalesce_with_html false, or {given} omitted"
            )
        return self

    @property
    def own_path(self) -> bool:
        """Whether its connections cross a path of their own (``rtt_ms`` or ``bandwidth_bps`` given)."""
        return self.rtt_ms is not None or self.bandwidth_bps is not None


DEFAULT_OBJECT_COUNT = 3
DEFAULT_OBJECT_BYTES = 2544


class Page(_Strict):
    """The page: an HTML document and its embedded objects."""

    html_bytes: int = Field(6000, ge=0, le=MAX_OBJECT_BYTES, description="Size of the HTML document (bytes).")
    object_bytes: list[Annotated[int, Strict()]] | None = Field(
        None, max_length=MAX_OBJECTS, strict=False, description="One size per embedded object (bytes)."
    )
    object_count: int | None = Field(
        None, ge=0, le=MAX_OBJECTS, description="Number of embedded objects, with object_size_bytes."
    )
    object_size_bytes: int | None = Field(
        None, ge=0, le=MAX_OBJECT_BYTES, description="Size of each embedded object (bytes), with object_count."
    )
    revalidate: bool = Field(
        False, description="A revisit: every request is a conditional GET answered by a header alone (seed 004)."
    )
    css_replaces_images: int = Field(
        0, ge=0, le=MAX_OBJECTS, description="The N smallest images are drawn by style sheet rules instead (seed 004)."
    )
    css_bytes: int = Field(
        0, ge=0, le=MAX_OBJECT_BYTES, description="A style sheet fetched before the images (bytes); 0: none."
    )
    image_size_ratio: float = Field(
        1.0, gt=0, le=4, description="Every image's size times this, e.g. PNG in place of GIF (seed 004)."
    )
    object_parents: list[Annotated[int, Strict()]] | None = Field(
        None,
        max_length=MAX_OBJECTS,
        strict=False,
        description="For each embedded object, the object whose arrival reveals it (issue 28): 0 the HTML, k the "
        "k-th embedded object (1 to the object's own position - 1), so a style sheet can name a font and a script "
        "an image; its request leaves only once that object has fully arrived. Omitted: every object is named by "
        "the HTML. GETALL is not delayed (the server sends the page's objects in one response).",
    )
    origins: list[Origin] = Field(
        default_factory=list,
        max_length=MAX_ORIGINS,
        description="The origins beside the HTML's own (origin 0) that embedded objects come from (issue 28): "
        "origin k is the k-th of this list, each with its own DNS lookup, connections and TLS handshakes. "
        "Empty: every object comes from the HTML's origin.",
    )
    object_origins: list[Annotated[int, Strict()]] | None = Field(
        None,
        max_length=MAX_OBJECTS,
        strict=False,
        description="For each embedded object, its origin: 0 the HTML's, k the k-th of page.origins. Omitted: "
        "every object from the HTML's origin.",
    )

    object_urgency: list[Annotated[int, Strict()]] | None = Field(
        None,
        max_length=MAX_OBJECTS,
        strict=False,
        description="For each embedded object, the urgency its request asks for on h2 and h3 (RFC 9218 4.1: 0 the "
        "most urgent to 7 the least, default 3): of the responses a server writes together, the more urgent go "
        "first. Omitted with object_incremental: the server ignores priorities and writes a batch's responses a "
        "frame each in turn.",
    )
    object_incremental: list[bool] | None = Field(
        None,
        max_length=MAX_OBJECTS,
        description="For each embedded object, RFC 9218's incremental flag (4.2, default false) on h2 and h3: among "
        "responses of one urgency the server writes the non-incremental ones whole, one after another in request "
        "order, then shares the link among the incremental ones a frame each in turn (as Cloudflare's quiche "
        "schedules them). Omitted with object_urgency: the server ignores priorities.",
    )

    object_early_hint: list[bool] | None = Field(
        None,
        max_length=MAX_OBJECTS,
        description="For each embedded object, whether the HTML's 103 Early Hints response (RFC 8297) names it with "
        "a Link rel=preload, on h2 and h3: the server sends the 103 as soon as the HTML's request has arrived, and "
        "the browser requests the objects it names when it arrives, before the server's think time and the HTML "
        "(never later than its parent would reveal it). HTTP/1.x protocols get no 103 (RFC 9110 15.2 forbids it "
        "to HTTP/1.0 clients; browsers act on it only over h2 and h3). Omitted: no object is hinted.",
    )

    object_named_at_bytes: list[Annotated[int, Strict()]] | None = Field(
        None,
        max_length=MAX_OBJECTS,
        strict=False,
        description="For each embedded object, the byte offset within its parent's body (page.object_parents: the "
        "HTML's, or the style sheet's...; as authored, before compression) after which the reference to it has "
        "been read (issue 28): browsers parse HTML and CSS as it streams, so the object is discovered, and its "
        "request leaves, once the packet carrying that byte of its parent's response has arrived, not the whole "
        "parent. 0 to the parent's size (bytes); the parent's size: at its end, as when omitted. With "
        "http.html_compression_ratio the offset scales with the body (the compressed bytes up to offset x ratio, "
        "rounded up). Delays only h2, h3, pipelined, http10_parallel and persistent_parallel: http10 and "
        "persistent ask for one object at a time after the previous one has arrived, GETALL in one request.",
    )

    @model_validator(mode="after")
    def _one_way_to_give_objects(self) -> Page:
        if self.object_bytes is not None:
            if self.object_count is not None or self.object_size_bytes is not None:
                raise ValueError("give either object_bytes or object_count with object_size_bytes, not both")
            for i, size in enumerate(self.object_bytes):
                if not 0 <= size <= MAX_OBJECT_BYTES:
                    raise ValueError(f"object_bytes[{i}] must be between 0 and {MAX_OBJECT_BYTES}")
        elif (self.object_count is None) != (self.object_size_bytes is None):
            raise ValueError("object_count and object_size_bytes go together")
        elif self.object_count is None:
            object.__setattr__(self, "object_bytes", [DEFAULT_OBJECT_BYTES] * DEFAULT_OBJECT_COUNT)
        return self

    @field_validator("object_parents")
    @classmethod
    def _parents_form_a_tree(cls, parents: list[int] | None, info: ValidationInfo) -> list[int] | None:
        """One parent per embedded object, each an earlier object (a tree in request order), checked here so that a
        refusal names ``page.object_parents`` (the fields before it are validated by now; one that failed is
        reported on its own)."""

        def earlier(k: int, parent: int) -> str | None:
            if 0 <= parent <= k:
                return None
            return (
                f"object_parents[{k}] ({parent}) must be between 0 and {k}: embedded object {k + 1} is revealed "
                "by the HTML (0) or by an earlier embedded object"
            )

        _per_object_list(parents, info, "parent", each=earlier)
        return parents

    @field_validator("object_named_at_bytes")
    @classmethod
    def _named_within_parent(cls, offsets: list[int] | None, info: ValidationInfo) -> list[int] | None:
        """One offset per embedded object, each within its parent's body (0 to the parent's size), checked here so
        that a refusal names ``page.object_named_at_bytes``."""
        data, needs = info.data, ("html_bytes", "object_size_bytes", "object_parents")
        if offsets is None or any(key not in data for key in (*_OBJECTS_AND_WHAT_IFS, *needs)):
            return offsets  # unchecked (as _per_object_list leaves it): a field it reads is reported on its own
        parents = data["object_parents"]
        if data["object_bytes"] is not None:  # read once, not per offset: a 663-object page checked 19,890 times
            sizes = list(data["object_bytes"])
        elif data["object_count"] is not None:
            sizes = [data["object_size_bytes"] or 0] * data["object_count"]
        else:
            sizes = [DEFAULT_OBJECT_BYTES] * DEFAULT_OBJECT_COUNT

        def within(k: int, offset: int) -> str | None:
            parent = parents[k] if parents is not None and k < len(parents) else 0
            if not 0 <= parent <= len(sizes):  # pragma: no cover - object_parents refused it already
                parent = 0
            top = int(data["html_bytes"]) if parent == 0 else int(sizes[parent - 1])
            if 0 <= offset <= top:
                return None
            named_by = "the HTML" if parent == 0 else f"embedded object {parent}"
            return (
                f"object_named_at_bytes[{k}] ({offset}) must be between 0 and {top}: the byte of its parent "
                f"({named_by}, {top} bytes) after which embedded object {k + 1} is named"
            )

        _per_object_list(offsets, info, "offset", needs=needs, each=within)
        return offsets

    def named_at(self, html_compression_ratio: float = 1.0) -> tuple[int, ...]:
        """Each embedded object's ``object_named_at_bytes`` as body bytes on the wire of its parent's response: the
        offset scaled by the parent's transferred size over its given size (compression, image_size_ratio,
        revalidation), rounded up, at most the parent's transferred size (its end). ``()``: none given, or every
        one at its parent's end (as today)."""
        if self.object_named_at_bytes is None:
            return ()
        html, objects = self.transferred(html_compression_ratio)
        given = [self.html_bytes, *self.sizes()]
        wire = [html, *objects]
        parents = self.parents() or (0,) * len(objects)
        out = []
        for offset, parent in zip(self.object_named_at_bytes, parents, strict=True):
            g, w = given[parent], wire[parent]
            out.append(min(w, -(-offset * w // g)) if g > 0 else w)
        if all(o >= wire[parent] for o, parent in zip(out, parents, strict=True)):
            return ()
        return tuple(out)

    @field_validator("object_origins")
    @classmethod
    def _origins_named(cls, origins: list[int] | None, info: ValidationInfo) -> list[int] | None:
        """One origin per embedded object, each 0 or one of ``page.origins``, checked here so that a refusal names
        ``page.object_origins``."""

        def named(k: int, origin: int) -> str | None:
            top = len(info.data["origins"])
            if 0 <= origin <= top:
                return None
            return (
                f"object_origins[{k}] ({origin}) must be between 0 and {top}: 0 the HTML's origin, k the k-th of "
                f"page.origins ({top} given)"
            )

        _per_object_list(origins, info, "origin", needs=("origins",), each=named)
        return origins

    @field_validator("object_urgency", "object_incremental", "object_early_hint")
    @classmethod
    def _one_priority_per_object(cls, given: list[Any] | None, info: ValidationInfo) -> list[Any] | None:
        """One urgency (0 to 7), incremental flag or early-hint flag per embedded object, checked here so that a
        refusal names the field."""

        def urgent(k: int, urgency: int) -> str | None:
            if MIN_URGENCY <= urgency <= MAX_URGENCY:
                return None
            return (
                f"object_urgency[{k}] ({urgency}) must be between {MIN_URGENCY} (the most urgent) and "
                f"{MAX_URGENCY} (RFC 9218 4.1)"
            )

        _per_object_list(given, info, "value", each=urgent if info.field_name == "object_urgency" else None)
        return given

    def priorities(self) -> tuple[tuple[int, bool], ...]:
        """Each embedded object's RFC 9218 priority ``(urgency, incremental)``; ``()``: none given, the server
        ignores priorities (every stream takes its turn, as if all had one urgency and were incremental)."""
        if self.object_urgency is None and self.object_incremental is None:
            return ()
        n = len(self.sizes())
        urgency = self.object_urgency if self.object_urgency is not None else [DEFAULT_URGENCY] * n
        incremental = self.object_incremental if self.object_incremental is not None else [False] * n
        return tuple(zip(urgency, incremental, strict=True))

    def early_hints(self) -> tuple[bool, ...]:
        """Each embedded object's flag: named by the HTML's 103 Early Hints (``object_early_hint``); ``()``: none is."""
        if self.object_early_hint is None or not any(self.object_early_hint):
            return ()
        return tuple(self.object_early_hint)

    def origins_of(self) -> tuple[int, ...]:
        """Each embedded object's origin (0 the HTML's, k the k-th of ``origins``); ``()``: every one the HTML's."""
        if self.object_origins is None or not any(self.object_origins):
            return ()
        return tuple(self.object_origins)

    def sizes(self) -> list[int]:
        """The embedded objects' sizes (bytes), in request order, as the page was given."""
        if self.object_bytes is not None:
            return list(self.object_bytes)
        return [self.object_size_bytes or 0] * (self.object_count or 0)

    def parents(self) -> tuple[int, ...]:
        """Each embedded object's parent (0 the HTML, k the k-th embedded object); ``()``: every one the HTML's."""
        return tuple(self.object_parents) if self.object_parents is not None else ()

    def transferred(self, html_compression_ratio: float = 1.0) -> tuple[int, list[int]]:
        """The HTML's and objects' body bytes on the wire after the content what-ifs (:mod:`latency_lab.scenario.content`)."""
        return effective_page(
            self.html_bytes,
            self.sizes(),
            revalidate=self.revalidate,
            html_compression_ratio=html_compression_ratio,
            css_replaces_images=self.css_replaces_images,
            css_bytes=self.css_bytes,
            image_size_ratio=self.image_size_ratio,
        )


class Scenario(_Strict):
    """One what-if question: which protocols, over which path, with which TCP, for which page."""

    protocols: list[Protocol] = Field(
        default_factory=lambda: list(SEED_PROTOCOLS),
        strict=False,  # any sequence of them (latency_lab.ALL_PROTOCOLS is a tuple); each item is a Literal's value
        min_length=1,
        max_length=len(ALL_PROTOCOLS),
        json_schema_extra={"uniqueItems": True},  # the validator refuses a repeat
        description="The protocols to compare, each once: http10 (one connection per object), http10_parallel, "
        "persistent, pipelined, getall (the seeds' five, the default), persistent_parallel (persistent connections "
        "in parallel, as browsers), h2 (HTTP/2 streams on one TCP connection), "
        "h3 (HTTP/3 over QUIC).",
    )
    network: Network = Field(default_factory=lambda: Network())
    tcp: Tcp = Field(default_factory=lambda: Tcp())
    http: Http = Field(default_factory=lambda: Http())
    page: Page = Field(default_factory=lambda: Page())
    session: Session = Field(default_factory=lambda: Session())
    proxy: Proxy = Field(default_factory=lambda: Proxy())
    dns: Dns = Field(default_factory=lambda: Dns())
    tls: Tls = Field(default_factory=lambda: Tls())
    multiplex: Multiplex = Field(default_factory=lambda: Multiplex())
    quic: Quic = Field(default_factory=lambda: Quic())

    @model_validator(mode="after")
    def _checks(self) -> Scenario:
        if len(set(self.protocols)) != len(self.protocols):
            raise ValueError("protocols must not repeat")
        profile = PROFILES[self.tcp.profile]
        # Fill the profile's defaults so the document says what was computed.
        for name in profile.field_defaults:
            if getattr(self.tcp, name) is None:
                object.__setattr__(self.tcp, name, profile.field_defaults[name])
        mss = self.tcp.mss_bytes or 1460
        rwnd = self.tcp.receive_window_bytes or mss
        if rwnd < mss:
            raise ValueError(
                f"tcp.receive_window_bytes ({rwnd}) must be at least tcp.mss_bytes ({mss}): a window smaller "
                "than one segment would never let a full segment leave"
            )
        if self.proxy.architecture == "split_proxy":
            for name, window in (
                ("proxy.client_leg.receive_window_bytes", self.proxy.client_leg.receive_window_bytes),
                ("proxy.server_leg.receive_window_bytes", self.proxy.server_leg.receive_window_bytes),
                ("proxy.long_haul_receive_window_bytes", self.proxy.long_haul_receive_window_bytes),
            ):
                if window is not None and window < mss:
                    raise ValueError(f"{name} ({window}) must be at least tcp.mss_bytes ({mss})")
            # The proxies of seed 003 relay plain HTTP/1.x requests and replies: they do not carry TLS
            # end to end, HTTP/2 streams or QUIC (latency_lab.protocols.proxy counts requests by http.request_bytes).
            if self.tls.version != "none":
                raise ValueError(
                    f"tls.version {self.tls.version!r} cannot be used with proxy.architecture 'split_proxy' "
                    "(the split proxies relay plain HTTP); allowed: 'none'"
                )
            streams = [name for name in self.protocols if name in ("h2", "h3")]
            if streams:
                raise ValueError(
                    f"protocols {', '.join(streams)} cannot be used with proxy.architecture 'split_proxy' "
                    "(the split proxies relay HTTP/1.x); allowed: http10, http10_parallel, persistent, "
                    "pipelined, getall, persistent_parallel"
                )
        own = [k for k, origin in enumerate(self.page.origins, start=1) if origin.own_path]
        if own:  # origins on paths of their own (issue 28): not costed by the loss analysis, not relayed by proxies
            named = f"page.origins[{own[0] - 1}].rtt_ms/bandwidth_bps (origin {own[0]})"
            if self.network.loss_rate > 0:
                raise ValueError(
                    f"network.loss_rate ({self.network.loss_rate:g}) cannot be above 0 with {named} given: the loss "
                    "analysis costs recoveries on the network's path only; allowed: network.loss_rate 0, or every "
                    "page.origins[].rtt_ms and bandwidth_bps omitted"
                )
            if self.proxy.architecture == "split_proxy":
                raise ValueError(
                    f"proxy.architecture 'split_proxy' cannot be used with {named} given (the split proxies relay "
                    "one path); allowed: proxy.architecture 'direct', or every page.origins[].rtt_ms and "
                    "bandwidth_bps omitted"
                )
        header = self.http.response_header_bytes
        html, objects = self.page.transferred(self.http.html_compression_ratio)
        if header == 0 and (html == 0 or 0 in objects):
            raise ValueError(
                "with http.response_header_bytes 0 every response must carry at least one byte: "
                "page.html_bytes and each object must be at least 1, and page.revalidate false"
            )
        if "h3" in self.protocols:  # QUIC packets carry max_datagram_bytes less 30 (latency_lab.mechanisms.quic)
            mss = min(mss, self.quic.max_datagram_bytes - QUIC_PACKET_OVERHEAD_BYTES)
            if rwnd < self.quic.max_datagram_bytes - QUIC_PACKET_OVERHEAD_BYTES:
                raise ValueError(
                    f"tcp.receive_window_bytes ({rwnd}) must be at least quic.max_datagram_bytes less 30 "
                    f"({self.quic.max_datagram_bytes - 30}) for h3: a window smaller than one QUIC packet's "
                    "data would never let a full packet leave"
                )
        html_segments = -(-(header + html) // mss)
        segments = self.session.pages * sum(-(-(header + size) // mss) for size in [html, *objects])
        legs = 3 if self.proxy.architecture == "split_proxy" else 1  # each segment is relayed over every leg
        if segments * legs > MAX_SEGMENTS:
            # named by the field that takes most of the segments (the form marks it: latency_lab_web.web.form)
            if 2 * html_segments * self.session.pages >= segments:
                cause = "page.html_bytes"
            elif self.page.object_bytes is not None:
                cause = "page.object_bytes"
            else:
                cause = "page.object_size_bytes"
            across = " over the three legs of the split-proxy path" if legs > 1 else ""
            pages = f", loaded {self.session.pages} times (session.pages)" if self.session.pages > 1 else ""
            most = MAX_SEGMENTS // (self.session.pages * legs) * mss
            raise ValueError(
                f"{cause} makes the page too large to model: its responses would take {segments * legs:,} segments "
                f"(packets of at most {mss:,} bytes, the maximum segment size){pages}{across}, and at most "
                f"{MAX_SEGMENTS:,} are allowed: about {most:,} bytes of HTML and objects together"
            )
        return self


def checked(scenario: Scenario, *, always: bool = False) -> Scenario:
    """``scenario``, its rules between sections checked again if a field has been assigned to since the process began.

    An assignment validates its field and its own section's rules, but a section does not know the scenario it is in:
    ``s.tcp.mss_bytes = 9000`` past the receive window, or ``s.page.html_bytes`` past the page's segment limit, is
    refused here, before :func:`latency_lab.predict` or :func:`latency_lab.expression` runs it
    (:class:`~latency_lab.scenario.errors.ScenarioError`, its problem at ``scenario``). About 15 microseconds where it
    checks; nothing where nothing was ever assigned (the app and the command line validate and never assign).
    ``always``: check whatever was assigned (a copy given other protocols: :func:`latency_lab.expression`).
    """
    if _assigned or always:
        try:
            scenario._checks()  # type: ignore[operator]  # the model validator, run again (mypy sees its descriptor)
        except ValueError as exc:
            details = InitErrorDetails(type="value_error", loc=(), input=scenario, ctx={"error": exc})
            raise _refused(Scenario, ValidationError.from_exception_data("Scenario", [details])) from None
    return scenario
