"""How much work a request asks of the model, and the limits that keep each answer near a second.

The model's time grows with what it schedules: every response segment and every object (its
request and header; on HTTP/1.0 a connection of its own) costs packets, and each packet costs about
10 µs of Python. A request's cost is estimated from the validated scenario *before* anything runs,
so a limit is a property of the request (the same request is always accepted or always refused),
not of how busy the server is:

    work units = sum over protocol runs of
                 factor x page loads x legs x (response pieces + 2 x window rounds + k x (objects + 1)) + fixed

where ``objects + 1`` counts the HTML document, ``k`` is the protocol's :data:`OBJECT_UNITS` (an
object costs HTTP/1.0 a connection, a pipelined request almost nothing), a session loads the page
``session.pages`` times, a split-proxy path relays every segment over three legs and a sweep runs
every protocol at every point. The response pieces are its segments, or the server's writes or DATA
frames where those are smaller, and long requests' extra segments (:func:`response_pieces`); the window rounds
are the rounds a receive window smaller than a response or a request cuts it into (:func:`window_rounds`), each a
stall on the critical path and two events (:data:`WINDOW_ROUND_UNITS`).
``factor`` and ``fixed`` price the kind of run (:data:`RUN_COSTS`: a lossy run costs 6 times a
plain one and a fixed part; issue 26), so that the estimate refuses, before anything runs, every
request the step budget below would stop while running. ``python bench/api_load.py
--calibrate`` prints the measured µs per unit for a spread of pages and protocols: about 10 to 20 µs
on the 2-core reference machine, so :data:`MAX_WORK_UNITS` is about one second of model time. It
leaves room for the issue's benchmark sweep (200 points, five protocols, a 10-object page: 51,400
units), not for a five-protocol prediction of a page at the scenario's own segment cap with a
thousand objects (61,975 units, over a second). ``python bench/api_load.py --limits`` times the
largest requests the limits allow.

Pure: the scenario schema and arithmetic only.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from latency_lab.scenario.schema import MAX_OBJECTS, QUIC_PACKET_OVERHEAD_BYTES, Scenario

#: Work units one object costs a protocol run, beside its segments (fitted with ``--calibrate``).
OBJECT_UNITS: dict[str, int] = {
    "http10": 5,
    "http10_parallel": 4,
    "persistent": 2,
    "pipelined": 1,
    "getall": 0,
    "persistent_parallel": 2,
    "h2": 1,
    "h3": 1,
}
#: Largest work of a prediction (``/api/v1/predict``) or a sweep (``/api/v1/sweep``).
MAX_WORK_UNITS = 60_000
#: Largest work of a prediction that also lists every packet (its JSON is large: about 1 KB a packet): what
#: MAX_PACKETS_ENGINE_STEPS (30,000) holds at the plain kind's most steps a unit (PLAIN_STEPS_PER_UNIT, 5), so that
#: the estimate refuses before anything runs what that budget would stop while running. At 12,000 until 2026-11-28:
#: a 3-protocol, 19-page request of 10,659 units took 31,700 steps and was stopped after 0.17 s (bench/worst_case.py
#: seed 24).
MAX_PACKETS_WORK_UNITS = 6_000
#: Largest work of a page the teaching panel explains (``/explain``: one protocol run with every packet, its walk's
#: stalls listed and its ladder drawn). The panel costs more a unit than a prediction: a 20-page HTTP/1.0 session of
#: 54,720 units (86,640 packets) took 1.1-1.3 s of CPU, one of 27,440 units 0.29 s (2026-11-28, with a CI run
#: beside it); under :data:`MAX_WORK_UNITS` it let the first through.
MAX_EXPLAIN_WORK_UNITS = 30_000
#: Largest work of a formula (one protocol, run on linear forms and simplified with sympy: slower).
MAX_FORMULA_WORK_UNITS = 3_000
#: Most points of a sweep.
MAX_SWEEP_POINTS = 1_000
#: What a sweep costs beside its runs' work units (which count what each run schedules), in work units of
#: :data:`MAX_WORK_UNITS`' sense (about 16.7 µs each: 60,000 to a second): validating a point, about 0.17 ms of CPU
#: (:data:`SWEEP_POINT_UNITS`), and starting each protocol run, 0.19 ms median (:data:`RUN_FIXED_UNITS`; 194 µs a
#: run, ``python bench/calibrate_costs.py``'s fixed part of the ``plain`` kind, 2026-11-28, which RUN_COSTS leaves
#: out so that a single prediction's units keep their sense). A sweep of many points of a tiny page was accepted at
#: 59,500 units and took 0.95-1.05 s of CPU (727 points of 7 protocols, 5,089 runs of 12 units; bench/worst_case.py
#: seed 25), and its refusal, found only once the validated points' units passed the limit, 0.13-0.23 s.
SWEEP_POINT_UNITS = 10
RUN_FIXED_UNITS = 12
#: Objects (the HTML among them) that cost a point's validation one unit more: validating a point of a 1,000-object
#: page takes 0.2-0.8 ms of CPU as it sweeps a field outside the page and 0.4-1.8 ms for one of the page's (its
#: sizes worked out again: ``page.image_size_ratio``, ``page.css_replaces_images``), about 1 µs an object, 2026-11-28
#: at a load of 2-4. Until then a point cost SWEEP_POINT_UNITS whatever its page, and a sweep of a 400-object page
#: validated its points until their work passed MAX_WORK_UNITS: 50-110 ms to refuse, 0.35 s in issue 26's search.
OBJECTS_PER_POINT_UNIT = 10
#: Largest :func:`sweep_fixed_units` of a sweep, decided from its number of distinct points and protocols before any
#: point is validated: 36,000 units is about 0.6 s of fixed costs, leaving the runs' own work (at most
#: :data:`MAX_WORK_UNITS`, 2.5 µs a unit at the 80th percentile on the native engine) under the second. The issue's
#: benchmark sweep (200 points, 5 protocols) costs 14,000.
MAX_SWEEP_FIXED_UNITS = 36_000
#: Most events, and most path stalls, an answer of the API or the command line lists per protocol result
#: (:func:`latency_lab.analysis.answer.listed`): the first in time order, with ``events_total`` and ``path_stalls_total``
#: saying how many there are in all; the times and counts are read off all of them. One segment a round over a
#: 9.67 MB style sheet (``tcp.receive_window_bytes`` 1994, 8 protocols, accepted at 54,806 work units) gave 118,000
#: events and 58,000 path stalls, a 50-57 MB answer whose JSON took 1.6 s of CPU to write beside the model's 0.87 s
#: (bench/worst_case.py seed 27, 2026-11-28). 500, as the teaching panel shows (the app's ``MAX_EVENTS_SHOWN``).
MAX_LISTED = 500


#: Largest HAR file the HAR import reads (:mod:`latency_lab.scenario.har`: the command line, ``POST /api/v1/har`` and
#: the calculator's upload), in bytes: checked before it is parsed. A DevTools HAR saved without contents is a few KB
#: an entry; 5 MB holds a page at the model's :data:`~latency_lab.scenario.schema.MAX_OBJECTS` with room to spare.
#: Strict parsing (:func:`latency_lab.scenario.json_input.loads_strict`) of a 5 MB HAR takes about 0.1 s.
MAX_HAR_BYTES = 5_000_000
#: Most entries a HAR may hold: the document and :data:`~latency_lab.scenario.schema.MAX_OBJECTS` embedded objects.
MAX_HAR_ENTRIES = MAX_OBJECTS + 1
#: Most objects and arrays a HAR may hold, counted as its ``{`` and ``[`` characters before it is parsed (strings
#: included: a bound, not a count): 200 an entry (a DevTools entry holds 30 to 100: its headers are objects). Parsing
#: 1.67 million empty objects took 1.6 s of CPU; this many, about 0.2 s.
MAX_HAR_CONTAINERS = 200 * MAX_HAR_ENTRIES
#: Deepest nesting of a HAR's arrays and objects (a Chrome ``_initiator`` carries its call stacks, each stack's
#: ``parent`` one level deeper): deeper is refused from the text, before it is parsed.
MAX_HAR_DEPTH = 64


@dataclass(frozen=True, slots=True)
class Limit:
    """A limit a request went past: its name (as documented), the maximum and what the request asked."""

    name: str
    maximum: int
    actual: int
    message: str


def response_segments(s: Scenario) -> int:
    """The page's response segments of ``mss_bytes`` (header and body of the HTML and of each object).

    The same count :class:`~latency_lab.scenario.schema.Scenario` caps at ``MAX_SEGMENTS``.
    """
    mss = s.tcp.mss_bytes or 1460
    header = s.http.response_header_bytes
    return sum(-(-(header + size) // mss) for size in [s.page.html_bytes, *s.page.sizes()])


def page_loads(s: Scenario) -> int:
    """How many times a protocol run loads the page (a scenario's ``session.pages``, if it has sessions)."""
    pages = getattr(getattr(s, "session", None), "pages", 1)
    return pages if isinstance(pages, int) and pages > 0 else 1


#: The legs of a split-proxy path: client to local proxy, the long haul, remote proxy to server.
SPLIT_PROXY_LEGS = 3


def legs(s: Scenario) -> int:
    """The legs every segment crosses: 3 on a split-proxy path (seed 003; each proxy relays it), else 1."""
    proxy = getattr(s, "proxy", None)
    return SPLIT_PROXY_LEGS if getattr(proxy, "architecture", "direct") == "split_proxy" else 1


#: Protocols whose server interleaves responses in DATA frames of ``multiplex.frame_bytes``.
FRAMED = frozenset({"h2", "h3"})


def _transferred(s: Scenario) -> tuple[int, list[int]]:
    """The HTML's and the embedded objects' bytes as the run sends them (``page.transferred``: the style sheet of
    ``page.css_bytes`` fetched first, the compressed HTML, replaced and resized images, a revalidation's empty
    bodies)."""
    return s.page.transferred(s.http.html_compression_ratio)


def response_pieces(s: Scenario, protocol: str, transferred: tuple[int, list[int]] | None = None) -> int:
    """What the server of ``protocol`` sends the page in, as the run sends it (:func:`_transferred`): its segments of
    ``mss_bytes``, or where they are smaller than a segment its application writes (``http.server_write_bytes``) or,
    on HTTP/2 and HTTP/3, its DATA frames (``multiplex.frame_bytes``), each of them a step of the engine; and every
    request's segments past its first (``http.request_bytes`` over ``tcp.mss_bytes``). The same as
    :func:`response_segments` for the defaults. Until 2026-11-28 the page as given was counted, not as sent: a style
    sheet of 100 MB was left out, and a calculator page of it ran 3.9 s of CPU for an estimate of 0.1 s
    (bench/worst_case.py). ``transferred``: :func:`_transferred` of ``s`` where the caller has it."""
    html, sizes = transferred or _transferred(s)
    return _response_pieces(s, _piece_kind(protocol), html, sizes) + _extra_segments(s, protocol, len(sizes) + 1)


def _piece_kind(protocol: str) -> str:
    """What a protocol's responses are cut into: ``"quic"`` (HTTP/3: QUIC packets and DATA frames), ``"framed"``
    (HTTP/2: DATA frames on TCP) or ``"tcp"`` (segments)."""
    return "quic" if protocol == "h3" else "framed" if protocol in FRAMED else "tcp"


def _segment_bytes(s: Scenario, kind: str) -> int:
    """The bytes a segment carries on a :func:`_piece_kind`'s path: ``tcp.mss_bytes``, or a QUIC packet's payload
    where that is smaller (HTTP/3)."""
    mss = s.tcp.mss_bytes or 1460
    if kind == "quic":
        mss = min(mss, s.quic.max_datagram_bytes - QUIC_PACKET_OVERHEAD_BYTES)
    return mss


def _per_round(s: Scenario, piece: int) -> int:
    """The bytes a round under the receive window (``tcp.receive_window_bytes``) carries, in whole ``piece``-byte
    pieces, at least one."""
    rwnd = s.tcp.receive_window_bytes or 65_535
    return max(piece, rwnd // piece * piece)


def _piece_bytes(s: Scenario, kind: str) -> int:
    """The bytes of a response piece of a :func:`_piece_kind`: a segment, or a smaller write, DATA frame or QUIC
    packet."""
    piece = _segment_bytes(s, kind)
    write = s.http.server_write_bytes
    if 0 < write < piece:
        piece = write
    if kind != "tcp" and s.multiplex.frame_bytes < piece:
        piece = s.multiplex.frame_bytes
    return piece


#: Units a round of a response costs where the receive window holds less than the response (:func:`window_rounds`),
#: beside its pieces' own: each such round ends in a stall on the critical path, walked and listed, and two events
#: with their sentences, about 20 µs of CPU a round against 1.2 µs a piece (the plain kind's median). A page of a
#: 9.67 MB style sheet over a 1994-byte window (one segment a round; 6,600 rounds a protocol, 8,300 on HTTP/3) was
#: accepted for 8 protocols at 54,806 units and its model took 1.2 s of CPU (bench/worst_case.py seed 27,
#: 2026-11-28, at a load of 1.9); at 2 a round, as a unit's 10 µs of MAX_WORK_UNITS, it is 164,000.
WINDOW_ROUND_UNITS = 2


def _window_rounds(s: Scenario, kind: str, html: int, sizes: list[int]) -> int:
    """:func:`window_rounds` of a :func:`_piece_kind`: the responses' and the requests' (:func:`_request_rounds`)."""
    per_round = _per_round(s, _piece_bytes(s, kind))
    header = s.http.response_header_bytes
    requests = _request_rounds(s, kind, len(sizes) + 1)
    if header + max([html, *sizes]) < per_round:  # every response within a window (most pages): no pass over them
        return requests
    return requests + sum((header + size) // per_round for size in [html, *sizes])


def _request_rounds(s: Scenario, kind: str, objects: int) -> int:
    """The rounds the receive window cuts the page's ``objects`` requests into (the client sends them under the
    server's window, ``tcp.receive_window_bytes`` too): each request's bytes (the first ``http.request_bytes``, the
    later ones ``multiplex.request_bytes`` on HTTP/2 and HTTP/3, as :func:`_extra_segments` counts their segments)
    over what a window holds in whole segments (QUIC packets on HTTP/3), rounded down. Until 2026-11-29 only the
    responses' rounds were counted: an h2/h3 calculator page of 298 tiny objects, 46 KB requests and a 1548-byte
    window (a segment a round: 9,400 rounds a run on h2, 11,700 on h3, each a window event and four steps of the
    critical path's walk) was priced at 22,000 units a sweep point and its sweep plot took 1.05 s of CPU
    (bench/worst_case.py seed 28, 2026-11-29). Counted, like :func:`_extra_segments`, for every object's request
    (getall, which sends one, is counted more rounds than it makes)."""
    per_round = _per_round(s, _segment_bytes(s, kind))
    first = s.http.request_bytes // per_round
    later = (s.multiplex.request_bytes if kind != "tcp" else s.http.request_bytes) // per_round
    return first + (objects - 1) * later


def window_rounds(s: Scenario, protocol: str) -> int:
    """The rounds the receive window (``tcp.receive_window_bytes``: the sender's cap) cuts the page's responses into,
    as sent (:func:`_transferred`): each response's bytes over what a window holds in whole pieces (at least one
    piece), rounded down, so a response within one window counts none; and the requests' likewise
    (:func:`_request_rounds`). A lower bound of a run's window-limited rounds (slow start's rounds below the window
    are in the pieces' calibrated cost); each costs :data:`WINDOW_ROUND_UNITS` units."""
    html, sizes = _transferred(s)
    return _window_rounds(s, _piece_kind(protocol), html, sizes)


def _response_pieces(s: Scenario, kind: str, html: int, sizes: list[int]) -> int:
    """The responses' part of :func:`response_pieces`, which depends on the protocol only by its
    :func:`_piece_kind`. HTTP/3's packets carry ``quic.max_datagram_bytes`` less the QUIC overhead, whatever
    ``tcp.mss_bytes`` says: until 2026-11-28 they were counted as segments of ``mss_bytes``, and an h3 sweep of 65 KB
    segments ran 55 times the steps its estimate counted (bench/worst_case.py, seed 24: refused by the step budget
    after 0.34 s)."""
    piece = _piece_bytes(s, kind)
    header = s.http.response_header_bytes
    return sum(-(-(header + size) // piece) for size in [html, *sizes])


#: Protocols that open a connection for every object (and its TLS handshake).
CONNECTION_PER_OBJECT = frozenset({"http10", "http10_parallel"})


def _extra_segments(s: Scenario, protocol: str, objects: int) -> int:
    """The segments a run sends beside the responses' first segments of each request: each request's past its first
    (``http.request_bytes``; on HTTP/2 and HTTP/3 the requests after the first are ``multiplex.request_bytes``), and
    each connection's TLS handshake (``tls.client_hello_bytes``, ``tls.server_flight_bytes`` and the session tickets,
    a connection an object for HTTP/1.0, up to ``http.parallel_connections`` for persistent_parallel, else one), and
    on HTTP/2 each connection's SETTINGS records (``multiplex.server_settings_bytes``, ``multiplex.settings_ack_bytes``).
    Until 2026-11-28 HTTP/2-3's requests and TLS were not counted: 370 objects of 62 KB requests on h2 ran 46 budget
    steps a unit (the plain kind is calibrated at most 5), a lossless predict of 8 protocols 1.2 s of CPU
    (bench/worst_case.py). HTTP/3's are QUIC packets (:func:`_response_pieces`)."""
    mss = _segment_bytes(s, _piece_kind(protocol))
    first = -(-s.http.request_bytes // mss) - 1
    later = -(-s.multiplex.request_bytes // mss) - 1 if protocol in FRAMED else first
    requests = first + (objects - 1) * later
    used = connections = 1
    if protocol in CONNECTION_PER_OBJECT:
        used = connections = objects
    elif protocol == "persistent_parallel":
        used = min(objects, max(1, s.http.parallel_connections))
        connections = max(used, preconnected(s, protocol))
    requests += PRECONNECT_UNITS * (connections - used)
    others = origin_connections(s, protocol)
    requests += PRECONNECT_UNITS * others
    connections += others
    if protocol == "h3":
        # QUIC's handshake is TLS 1.3's whatever tls.version says (latency_lab/protocols/h3.py): its Initial, the server's
        # flight (tls.server_flight_bytes) and the client's Finished, on every connection. Until 2026-11-29 an h3 page
        # with tls.version none was priced without them: 27 origins, a 58 KB flight, 1,359 engine steps for 27 base
        # units (the plain kind allows 5 a unit), and its lossy follow-up slice of the sweep plot was stopped by the
        # step budget after 50-75 ms of CPU, not refused up front (bench/worst_case.py seed 31, route lossy_fill).
        return requests + connections * (2 + -(-s.tls.server_flight_bytes // mss))
    # h2's SETTINGS records (multiplex.server_settings_bytes, multiplex.settings_ack_bytes): a segment or more each
    # on every connection, with TLS or without (h2c); h3 ignores them
    mux = s.multiplex
    settings = -(-mux.server_settings_bytes // mss) + -(-mux.settings_ack_bytes // mss) if protocol == "h2" else 0
    if s.tls.version == "none":
        return requests + connections * settings
    tls = s.tls
    handshake = -(-tls.client_hello_bytes // mss) + -(-tls.server_flight_bytes // mss)
    handshake += tls.session_tickets * -(-tls.session_ticket_bytes // mss)
    return requests + connections * (handshake + settings)


#: Units a connection costs that the page's objects do not pay for (:data:`OBJECT_UNITS`): one persistent_parallel
#: opens at the click with ``http.preconnect`` whether or not an object comes to use it (:func:`preconnected`), its
#: three-way handshake (3 steps of the native engine), beside its TLS handshake's segments (:func:`_extra_segments`).
PRECONNECT_UNITS = 1


def origin_connections(s: Scenario, protocol: str) -> int:
    """The connections a run of ``protocol`` opens to the origins beside the HTML's (``page.origins``, issue 28) that
    :func:`_extra_segments` does not count already: one an origin (its objects', or its preconnected one), up to
    ``http.parallel_connections`` an origin for persistent_parallel; for the protocols that open one an object, only
    a preconnected origin's without objects. Each costs its handshake (:data:`PRECONNECT_UNITS`) and its TLS's."""
    origins = s.page.origins
    if not origins:
        return 0
    counts = [0] * (len(origins) + 1)
    for o in s.page.origins_of():
        counts[o] += 1
    extra = 0
    for k, origin in enumerate(origins, start=1):
        n = counts[k]
        if protocol in CONNECTION_PER_OBJECT:
            extra += 1 if origin.preconnected and n == 0 else 0
        elif protocol == "persistent_parallel":
            extra += max(min(n, max(1, s.http.parallel_connections)), 1 if origin.preconnected else 0)
        else:
            extra += 1 if n > 0 or origin.preconnected else 0
    return extra


def preconnected(s: Scenario, protocol: str) -> int:
    """The connections a run of ``protocol`` opens at the click, the HTML's among them: with ``http.preconnect``
    persistent_parallel opens all ``http.parallel_connections`` (latency_lab/protocols/persistent_parallel.py), however few
    objects the page has; else none (0). Until 2026-11-29 the estimate counted ``min(objects, parallel_connections)``
    connections whatever ``http.preconnect`` said: a lossy persistent_parallel run of a 2-object page with 63
    connections preconnected and TLS 1.2 with 8 session tickets took 906 engine steps for 26 base units, 10 budget
    steps a unit where the budget allows 5 (RUN_COSTS), and its follow-up request of the sweep plot was stopped by the
    step budget after 58-73 ms of CPU, not refused up front (bench/worst_case.py seed 28, route lossy_fill)."""
    if protocol == "persistent_parallel" and s.http.preconnect and s.http.parallel_connections > 1:
        return s.http.parallel_connections
    return 0


#: Units more a response piece costs where a connection restarts after an idle by pacing its window out
#: (``tcp.idle_restart`` ``paced``: a timer for each segment of the window): a persistent page of 2,472 segments at
#: an RTT of 10 s took 39,186 steps paced against 6,491 in slow start, 13 more a segment (2026-11-28,
#: bench/worst_case.py seed 24: its teaching panel's formula, on linear forms, was stopped by the step budget after
#: 0.6 s, its estimate within max_formula_work_units). At 3 more a piece such a run stays under 5 steps a unit.
PACED_PIECE_UNITS = 3


def base_units(s: Scenario, protocol: str) -> int:
    """What one run of ``protocol`` on ``s`` schedules, in units: every page load's segments (or smaller writes or
    frames, :func:`response_pieces`), the rounds a small receive window cuts them into (:func:`window_rounds`,
    :data:`WINDOW_ROUND_UNITS` each) and objects (the style sheet among them), on every leg (a lossless run on the
    native engine costs this many work units)."""
    return protocols_base_units(s, [protocol])[protocol]


def protocols_base_units(s: Scenario, protocols: Sequence[str], with_rounds: bool = True) -> dict[str, int]:
    """:func:`base_units` of each of ``protocols`` on ``s``, the page as sent (:func:`_transferred`) and its responses'
    pieces worked out once for them all, not once a protocol (a sweep asks this at every point). Without
    ``with_rounds``, the window rounds are left out (:func:`work_floor`)."""
    html, sizes = _transferred(s)
    objects = len(sizes) + 1
    per_load = page_loads(s) * legs(s)
    pieces: dict[str, tuple[int, int]] = {}  # by piece kind: the responses' pieces and their window rounds
    out: dict[str, int] = {}
    for protocol in protocols:
        kind = _piece_kind(protocol)
        if kind not in pieces:
            pieces[kind] = (
                _response_pieces(s, kind, html, sizes),
                _window_rounds(s, kind, html, sizes) if with_rounds else 0,
            )
        n, rounds = pieces[kind]
        sent = n * (1 + (PACED_PIECE_UNITS if s.tcp.idle_restart == "paced" else 0))
        sent += WINDOW_ROUND_UNITS * rounds
        sent += _extra_segments(s, protocol, objects)
        out[protocol] = per_load * (sent + OBJECT_UNITS.get(protocol, 5) * objects)
    return out


#: What a run costs per base unit (:func:`base_units`) and per run, in work units, by the kind of run
#: (:func:`run_kind`): ``(factor, fixed)``, so that ``run units = base units x factor + fixed``. A unit stands for
#: about 10 µs of CPU (MAX_WORK_UNITS: about 0.6 s of model time) and for at most MAX_ENGINE_STEPS / MAX_WORK_UNITS =
#: 20 of the step budget's steps, so the estimate refuses, before anything runs, every request the budget would stop
#: while running. Calibrated by ``python bench/calibrate_costs.py --runs 150 --seed 5`` (150 random one-protocol
#: scenarios a kind, each timed from empty caches, the compiled and native engines built with the loss analysis's
#: periods in C++; 2026-11-28 13:28 UTC, load 0.7):
#:
#: - ``plain``: a lossless run on the native engine: 1.19 µs of CPU a base unit (median; 2.5 at the 80th
#:   percentile), at most 2.7 budget steps a base unit: a factor of 1 (the estimate's older sense of a unit, kept);
#: - ``loss``: a run with ``network.loss_rate`` over 0: 11.7 µs a base unit (18.4 at the 80th percentile) beyond a
#:   fixed 0.45 ms a run (least squares), and the budget charges a native run :data:`NATIVE_LOSS_STEP_COST` a step
#:   plus :data:`NATIVE_LOSS_RUN_STEPS` once (400 units): a factor of 6 and 400 a run (set while a split-proxy run
#:   still fell back to the Python engine, at most 111 budget steps a base unit then; by time alone 2 and 45 would
#:   do). Until the periods moved to C++ it was 12 and 90 (230 steps a base unit, at 36 a native step).
#:
#: (A third kind, ``fallback``, priced the lossless runs the native engine handed to the Python engine, at a factor of 3,
#: until it ran every scenario, 2026-11-29.) The kinds price the native engine's runs: where it is not built (or
#: ``LATENCY_LAB_ENGINE=python``), the Python engine runs the numbers at :data:`PYTHON_STEP_COST` budget steps a step,
#: and the step budget, not the estimate, stops what it cannot finish.
#:
#: Re-measure after a change of what a kind costs and update these; the refusals stay decided by work units, never
#: by a clock.
RUN_COSTS: dict[str, tuple[int, int]] = {"plain": (1, 0), "loss": (6, 400)}


def run_kind(s: Scenario) -> str:
    """The kind of run ``s`` makes, which :data:`RUN_COSTS` prices: ``"loss"`` (``network.loss_rate`` over 0) or
    ``"plain"``."""
    return "loss" if s.network.loss_rate > 0 else "plain"


def run_units(s: Scenario, protocol: str) -> int:
    """Work units of one run of ``protocol`` on ``s``: its :func:`base_units`, priced by its kind (:data:`RUN_COSTS`),
    so that a unit stands for about the same CPU time and budget steps whichever engine and analysis run it."""
    factor, fixed = RUN_COSTS[run_kind(s)]
    return base_units(s, protocol) * factor + fixed


def point_units(objects: int) -> int:
    """Work units of validating a sweep point of a page of ``objects`` objects (the HTML among them):
    :data:`SWEEP_POINT_UNITS` and one per :data:`OBJECTS_PER_POINT_UNIT` objects."""
    return SWEEP_POINT_UNITS + objects // OBJECTS_PER_POINT_UNIT


def sweep_fixed_units(points: int, protocols: int, objects: int = 0) -> int:
    """Work units a sweep of ``points`` distinct points of ``protocols`` protocols, of a page of at most ``objects``
    objects (the HTML among them), costs beside its runs' own (:func:`point_units` a point, :data:`RUN_FIXED_UNITS` a
    protocol run), known before any point is validated."""
    return points * (point_units(objects) + protocols * RUN_FIXED_UNITS)


def check_sweep_size(points: int, protocols: int, objects: int = 0) -> Limit | None:
    """A :class:`Limit` (``max_sweep_fixed_units``) if a sweep of ``points`` distinct points of ``protocols``
    protocols of a page of at most ``objects`` objects costs more than :data:`MAX_SWEEP_FIXED_UNITS` beside its runs
    (:func:`sweep_fixed_units`), else ``None``."""
    units = sweep_fixed_units(points, protocols, objects)
    if units <= MAX_SWEEP_FIXED_UNITS:
        return None
    return Limit(
        name="max_sweep_fixed_units",
        maximum=MAX_SWEEP_FIXED_UNITS,
        actual=units,
        message=(
            f"this sweep of {points:,} points of {protocols} protocols each, of a {objects:,}-object page, is too much "
            f"work for one request: validating its points and starting its {points * protocols:,} protocol runs would "
            f"cost {units:,} work units ({point_units(objects)} a point, {SWEEP_POINT_UNITS} and one per "
            f"{OBJECTS_PER_POINT_UNIT} objects, and {RUN_FIXED_UNITS} a run), at most {MAX_SWEEP_FIXED_UNITS:,} "
            "allowed (max_sweep_fixed_units), before the runs' own work: ask for fewer points, fewer protocols or "
            "fewer objects (see /api/docs#limits)"
        ),
    )


#: Page fields whose value changes how many objects a run sends (:func:`objects_floor` cannot count them from the base).
OBJECT_COUNT_FIELDS = frozenset({"page.object_count", "page.css_replaces_images", "page.css_bytes"})


def objects_floor(s: Scenario, protocols: Sequence[str]) -> int:
    """A floor of one point's work units known from the base scenario ``s`` alone: each protocol's units per object
    (:data:`OBJECT_UNITS`) times the objects it sends (the HTML among them), once. Every run costs at least this
    (a run's units add its pieces, then multiply by page loads, legs and a kind's factor of at least 1), whatever a
    point's field (outside :data:`OBJECT_COUNT_FIELDS`) changes."""
    _, sizes = _transferred(s)
    return sum(OBJECT_UNITS.get(p, 5) for p in protocols) * (len(sizes) + 1)


#: Sweepable fields that :func:`work_units` does not read and from which validation derives nothing it reads (times,
#: rates, flags of the schedule): every point of a sweep of one costs its first point's work units, so a sweep of
#: one is refused from the first point's units times its points (:func:`latency_lab.analysis.sweep.points`), not after
#: validating points until their units pass :data:`MAX_WORK_UNITS`. ``tests/latency_lab/scenario/test_limits.py`` holds
#: each to it. A field not listed is priced point by point.
WORK_FREE_FIELDS = frozenset(
    {
        "network.rtt_ms",
        "network.bandwidth_bps",
        "network.uplink_delay_ms",
        "network.downlink_delay_ms",
        "network.uplink_bandwidth_bps",
        "network.packet_overhead_bytes",
        "tcp.initial_window_segments",
        "tcp.delayed_ack_ms",
        "tcp.delayed_ack_segments",
        "tcp.nagle",
        "tcp.handshake",
        "tcp.rto_min_ms",
        "http.header_flush",
        "http.header_flush_persistent_only",
        "http.server_think_ms",
        "http.client_think_ms",
        "http.connection_overhead_ms",
        "http.pipeline_writes",
        "session.think_time_ms",
        "session.server_idle_timeout_ms",
        "dns.lookup",
        "dns.resolver_rtt_ms",
        "multiplex.headers_alone",
        "quic.max_ack_delay_ms",
    }
)


def work_units(s: Scenario) -> int:
    """Work units of predicting ``s`` for each of its protocols (the estimate every front end checks before it runs
    anything: the same scenario is always accepted or always refused, however busy the machine): the sum of
    :func:`run_units`, with the page's counts taken once (:func:`protocols_base_units`)."""
    return work_floor(s, rounds=True)


def work_floor(s: Scenario, rounds: bool = False) -> int:
    """:func:`work_units` of ``s`` leaving out its window rounds (unless ``rounds``): a floor of them."""
    factor, fixed = RUN_COSTS[run_kind(s)]
    return sum(units * factor + fixed for units in protocols_base_units(s, s.protocols, rounds).values())


#: Sweepable fields whose work units only move one way as the value grows, for :func:`latency_lab.analysis.sweep.points` to
#: price a sweep of one from its values, before validating any point, each value at the floor (:func:`work_floor`) of
#: a value on its cheaper side: ``field -> (direction, rounds)``, direction ``-1`` where a larger value costs no more
#: (a point costs at least what any larger value's floor is), ``+1`` where it costs no less, and ``rounds`` whether the
#: window rounds move that way too (else the floor leaves them out). Falling: ``tcp.mss_bytes``,
#: ``multiplex.frame_bytes`` and ``quic.max_datagram_bytes`` (larger pieces: fewer responses' pieces, request and
#: handshake segments, but not fewer window rounds, as a window holds whole pieces: 1,000 bytes hold one of 600 and two
#: of 500), and ``tcp.receive_window_bytes`` (fewer rounds, nothing else). Rising: the page's and the headers' bytes
#: (``page.html_bytes``, ``http.html_compression_ratio``, ``page.image_size_ratio``: an image of a larger ratio is no
#: smaller; ``http.response_header_bytes``, ``http.request_bytes``: more pieces and rounds) and ``session.pages`` (every
#: part times the page loads). ``tests/latency_lab/scenario/test_limits.py`` holds each to it. The search of 2026-11-28
#: (docs/measurements.md) found a sweep of 396 segment sizes refused after 250 validated points, 0.15-0.29 s of CPU,
#: and one of 584 image ratios 0.14 s (bench/worst_case.py seed 28, 2026-11-29).
MONOTONE_WORK_FIELDS: dict[str, tuple[int, bool]] = {
    "tcp.mss_bytes": (-1, False),
    "multiplex.frame_bytes": (-1, False),
    "quic.max_datagram_bytes": (-1, False),
    "tcp.receive_window_bytes": (-1, True),
    "page.html_bytes": (1, True),
    "http.html_compression_ratio": (1, True),
    "page.image_size_ratio": (1, True),
    "http.response_header_bytes": (1, True),
    "http.request_bytes": (1, True),
    "session.pages": (1, True),
}


def costly_fields(s: Scenario) -> list[str]:
    """The fields that make a prediction of ``s`` too much work (:func:`work_units`), where its
    message goes: the protocols, the part of the page that costs most (its objects' count, or the HTML's or the
    objects' size), the session's page loads if more than one, the loss rate if over 0 (a lossy run costs several
    times a lossless one: :data:`RUN_COSTS`) and a split-proxy path's architecture."""
    segments = response_segments(s)
    objects = len(s.page.sizes()) + 1
    per_object = sum(OBJECT_UNITS.get(p, 5) for p in s.protocols) * objects
    mss = s.tcp.mss_bytes or 1460
    html = -(-(s.http.response_header_bytes + s.page.html_bytes) // mss)
    if per_object >= len(s.protocols) * segments:
        page = "page.object_bytes" if s.page.object_bytes is not None else "page.object_count"
    elif 2 * html >= segments:
        page = "page.html_bytes"
    else:
        page = "page.object_bytes" if s.page.object_bytes is not None else "page.object_size_bytes"
    rounds = WINDOW_ROUND_UNITS * max((window_rounds(s, p) for p in s.protocols), default=0)
    return [
        page,
        "protocols",
        *(["tcp.receive_window_bytes"] if rounds >= segments else []),
        *(["session.pages"] if page_loads(s) > 1 else []),
        *(["network.loss_rate"] if s.network.loss_rate > 0 else []),
        *(["proxy.architecture"] if s.proxy.architecture == "split_proxy" else []),
    ]


def check(units: int, maximum: int, name: str, what: str) -> Limit | None:
    """A :class:`Limit` if ``units`` is over ``maximum``, else ``None``; ``what`` says what was measured."""
    if units <= maximum:
        return None
    return Limit(
        name=name,
        maximum=maximum,
        actual=units,
        message=(
            f"{what} is too much work for one request: it would cost {units:,} work units, at most {maximum:,} "
            f"allowed ({name}). Each protocol asked for (and each sweep point) costs one unit per response packet "
            "and up to 5 per object (HTTP/1.0 most), times "
            f"{RUN_COSTS['loss'][0]} plus {RUN_COSTS['loss'][1]} with network.loss_rate over 0 and times "
            f"{SPLIT_PROXY_LEGS} on a split-proxy path (its legs): ask for fewer protocols, fewer objects, a smaller "
            "page or no loss (see /api/docs#limits)"
        ),
    )


# --- the hard budget: checked inside the engine while it runs -------------------------------------------
#
# The estimate above refuses a request before anything runs. The budget below is the backstop that makes a
# runaway impossible whatever the estimate misses: the engine counts its steps (every packet and timer it
# schedules, every application write) and stops with :class:`WorkLimitExceeded` past the allowance. A
# request (one page view, one API call, one CLI scenario) opens one budget with :func:`budget`; every
# protocol run and sweep point inside it draws from it. Outside any budget each run gets the default.

#: Engine steps one request may take, in the native engine's steps, counted by the engine that runs: a step of the
#: native engine (C++, latency_lab/engine/native) is one, a step of the Python engine :data:`PYTHON_STEP_COST`. The
#: native engine takes 0.08 to 0.23 us of CPU a step on large runs (a 990-object page, a 14 MB HTML page, Microscape's
#: 43 objects; 0.57 us on a 3-object page, where the document's assembly is most of it; 2026-11-27), so 1,200,000 is
#: about 0.3 s of the native engine at its slowest per step. The Python engine runs the traced runs of the formulas
#: (and every run where the native engine is not built): its steps' price keeps them within the same second.
MAX_ENGINE_STEPS = 1_200_000
#: What a step of the Python engine costs in native steps: 26, from their CPU a step on the same large runs (a
#: 990-object page, a 14 MB HTML page, an h2 page of 300 objects, an HTTP/1.0 page of 200, the n97-wan preset): 7.5 to
#: 15 us of CPU a step uncompiled against 0.5 to 2.6 us on the native engine, the document's assembly included
#: (2026-11-29, load 5-6 on the 2 cores; 2.2 times, 1.7 to 2.9, the 3.1 to 5.9 us of the Python engine compiled by
#: Cython, whose steps cost 12 until it was removed that day, issue 29). So the Python engine gets 46,000 steps of
#: MAX_ENGINE_STEPS (about 0.7 s) and a traced run, at :data:`TRACED_STEP_COST` that, 15,400, which is what
#: :data:`MAX_FORMULA_WORK_UNITS` holds at the plain kind's most steps a unit (3,000 x 5 x 3 x 26 = 1,170,000 of
#: 1,200,000, so the estimate refuses every formula the budget would stop): 26 is the most that keeps it so. The
#: largest formulas the estimate accepts (3,000 units, each protocol, many objects or a 4 MB HTML page: 4,000 to 7,500
#: traced steps) took 170 to 390 ms of CPU through the API uncompiled, 90 to 270 ms compiled (2026-11-29, load 5-6).
PYTHON_STEP_COST = 26
#: Engine steps of the teaching panel's run (its ladder draws every packet; a budget of the answer's size, :func:`budget`'s
#: ``size_only``): the native engine's whole budget would let 330,000 packets through, 1.8 s of drawing
#: (bench/worst_case.py, 2026-11-27). 150,000, the budget of the Cython-compiled Python engine of then.
MAX_LADDER_ENGINE_STEPS = 150_000
#: Engine steps of a prediction that lists every packet (``packets=true``): its answer holds about 500 bytes of JSON
#: a packet, and writing it costs about what the run does. Within :data:`MAX_ENGINE_STEPS` a search found a 7-protocol
#: page of 300 tiny objects with 50 KB requests (6,265 work units, under max_packets_work_units): 86,937 packets, a
#: 43 MB answer, 1.0 s of CPU (bench/worst_case.py, 2026-11-25).
MAX_PACKETS_ENGINE_STEPS = 30_000
#: A step of a traced run (linear forms, for formulas) costs about this many plain steps.
TRACED_STEP_COST = 3
#: The expected cost of random loss (latency_lab.analysis.expected_loss, when network.loss_rate > 0) reads the schedule a run
#: made; per step of that run it costs about 1.3 steps' time (median), 2 on large schedules and up to 9 on small
#: ones (40 random lossy scenarios, the Python engine compiled by Cython of then, 2026-11-25; the Python engine's loss
#: analysis runs only where the native engine is not built). Charged to the request's budget before it runs
#: (:func:`charge`), so a lossy request's steps are bounded like a lossless one's time: without it a lossy page
#: within the step budget took up to about 3 times as long (bench/worst_case.py).
LOSS_STEP_COST = 2
#: With the native engine in charge, a lossy run it makes is charged, in native steps, the loss analysis included (the
#: engine reads its schedule, latency_lab/engine/native/loss.cpp; the periods after a loss are C++ too,
#: latency_lab/engine/native/periods.cpp; the closed forms too, loss_recovery.cpp): :data:`NATIVE_LOSS_STEP_COST` for each
#: step the engine took, plus :data:`NATIVE_LOSS_RUN_STEPS` once (the loss analysis's fixed part: the periods of a new
#: loss rate or window (not of a new RTT or RTO since 2026-11-28), and the closed forms). Measured from empty caches, as
#: a request meeting new numbers pays them (bench/loss_step_cost.py --runs 200 --seed 11, 2026-11-28 13:16 UTC, load
#: 0.1): lossy over lossless CPU 4.25 (median), 11.7 (80th percentile), 22.5 at most, and at most 12.2 on the 37 runs of
#: over 3,000 steps, where a request's budget matters; least squares 2.3 lossless steps a step plus 3,100 a run (a
#: lossless step 0.69 µs median; up to 24,500 a run above the slope). Before the periods moved to C++ the same kind of
#: timing gave 25 / 127 / 220 and the charge was 36 (a charge of 8, set from warm timings, had let a cold lossy page
#: take 1.1-1.5 s of CPU and was taken back the same morning).
#: A persistent page of 368 unequal objects with tcp.idle_restart keep at 1 % loss (bench/cases/lossy_keep_368.json,
#: found by bench/worst_case.py) cost 1.04-1.29 s of CPU for 27,343 engine steps (0.027 s lossless; charged 363,459):
#: after each loss loss.cpp walks the rest of the connection (the kept window never holds its largest response again),
#: and it kept a shared walk for every run of equal responses each walk crossed (542,565 of them for 14,756 walks,
#: each used once). Sharing only where a walk enters its first such run: 0.14 s (5.5 times lossless, the most any
#: draw has shown: bench/loss_step_cost.py --every-field --runs 40 --seed 3 gave median 1.29, at most 3.27, 2026-11-29
#: 18:58 UTC, load 11). Its walks are still quadratic in the responses (a response's segments times the responses
#: after it), bounded by the 10,000 response segments a page may have: 0.12-0.18 s for pages of 300 to 700 unequal
#: responses filling that bound. Lower this charge only with a bench/worst_case.py search of lossy_fill behind it: at
#: 5 the slices of that page's loss chart (/sweep-points) took 10 s of CPU before the fix (1.1 s after, estimated).
NATIVE_LOSS_STEP_COST = 13
#: What a lossy run on the native engine is charged once, in native steps, beyond :data:`NATIVE_LOSS_STEP_COST` a
#: step: about 2 ms of CPU, the median fixed part of a cold lossy run (a sweep point, which meets a new RTT or loss
#: rate, pays it every time: 2.1 ms a protocol run median, 5.2 ms at the 90th percentile, 4,403 points of the
#: presets, 2026-11-28) at the budget's 0.25 µs a step.
NATIVE_LOSS_RUN_STEPS = 8_000
#: Native steps a base unit stands for at most in a lossless run (:data:`RUN_COSTS`' ``plain``: 5.0): converts
#: :data:`NATIVE_LOSS_RUN_STEPS` into :func:`run_cost`'s units.
PLAIN_STEPS_PER_UNIT = 5

_budget: ContextVar[list[int] | None] = ContextVar("latency_lab_budget", default=None)
#: The current budget's documented name and size (None outside any budget: each run's default, MAX_ENGINE_STEPS).
_budget_limit: ContextVar[tuple[str, int] | None] = ContextVar("latency_lab_budget_limit", default=None)
#: Whether the current budget bounds the answer's size, not its time (:func:`budget`'s ``size_only``): a Python
#: engine step then costs 1.
_size_only: ContextVar[bool] = ContextVar("latency_lab_budget_size_only", default=False)
#: Whether the native engine runs this process's numeric predictions (set by :func:`follow_engine`): :func:`run_cost`
#: prices a run by the engine that makes it.
_native = False


def follow_engine(engine: str) -> None:
    """Price runs for the engine that runs the numbers, ``"native"`` or ``"python"`` (:func:`run_cost`). Called by
    ``import latency_lab`` once the engine is chosen (this module, in the scenario layer, imports no engine)."""
    global _native
    _native = engine == "native"


def python_step_cost(traced: bool = False) -> int:
    """What one step of the Python engine costs from the current budget: :data:`PYTHON_STEP_COST` (1 in a budget of
    the answer's size, :func:`budget`'s ``size_only``), times :data:`TRACED_STEP_COST` for a traced run."""
    return (1 if _size_only.get() else PYTHON_STEP_COST) * (TRACED_STEP_COST if traced else 1)


def run_cost(s: Scenario) -> int:
    """:func:`base_units` of ``s`` in the native engine's terms, priced by the engine that runs it, as the step budget
    charges it: on the native engine the units as they are, with loss :data:`NATIVE_LOSS_STEP_COST` times them plus
    each protocol run's :data:`NATIVE_LOSS_RUN_STEPS` (in units); on the Python engine (the native one not built, or
    ``LATENCY_LAB_ENGINE=python``) :data:`PYTHON_STEP_COST` times them, and with loss ``1 + LOSS_STEP_COST`` times
    that. A budget of such units (the calculator's sweep plot) then stands for about the same time on either engine,
    with loss or without."""
    units = sum(protocols_base_units(s, s.protocols).values())
    if _native:
        if s.network.loss_rate > 0:
            return units * NATIVE_LOSS_STEP_COST + len(s.protocols) * (NATIVE_LOSS_RUN_STEPS // PLAIN_STEPS_PER_UNIT)
        return units
    # the loss analysis reads the run's schedule, LOSS_STEP_COST a step more (as the step budget charges it)
    return units * PYTHON_STEP_COST * (1 + LOSS_STEP_COST if s.network.loss_rate > 0 else 1)


class WorkLimitExceeded(Exception):
    """The engine went past the request's step budget; ``limit`` says which and by how much."""

    def __init__(self, limit: Limit) -> None:
        super().__init__(limit.message)
        self.limit = limit


@contextmanager
def budget(steps: int | None = None, name: str = "max_engine_steps", size_only: bool = False) -> Iterator[None]:
    """Run the body with ``steps`` engine steps in all (one request's budget; default :data:`MAX_ENGINE_STEPS`),
    documented as ``name``. ``size_only``: the budget bounds the answer's size, not its time (the packets' budget), so
    a step of the Python engine costs 1 in it, as a native one does."""
    if steps is None:
        steps = MAX_ENGINE_STEPS
    token = _budget.set([steps])
    named = _budget_limit.set((name, steps))
    costed = _size_only.set(size_only)
    try:
        yield
    finally:
        _size_only.reset(costed)
        _budget_limit.reset(named)
        _budget.reset(token)


def request_budget(packets: bool = False) -> AbstractContextManager[None]:
    """One request's budget, the same for every front end: :data:`MAX_ENGINE_STEPS`, or with ``packets`` (the answer
    lists every packet) :data:`MAX_PACKETS_ENGINE_STEPS`."""
    if packets:
        return budget(MAX_PACKETS_ENGINE_STEPS, "max_packets_engine_steps", size_only=True)
    return budget()


@contextmanager
def unbudgeted() -> Iterator[None]:
    """Run the body outside any request's budget: each run gets the default. Only for work that no request
    chooses (the seed studies the gallery shows, the same for everyone and computed once per process)."""
    token = _budget.set(None)
    try:
        yield
    finally:
        _budget.reset(token)


def allowance() -> int:
    """Engine steps left in the current budget (a run outside any budget gets the whole default)."""
    left = _budget.get()
    return MAX_ENGINE_STEPS if left is None else left[0]


def spend(steps: int) -> None:
    """Take ``steps`` from the current budget (nothing outside a budget)."""
    left = _budget.get()
    if left is not None:
        left[0] -= steps


def charge(steps: int) -> None:
    """Take ``steps`` from the current budget *before* the work they stand for: :class:`WorkLimitExceeded` if fewer
    are left (then nothing is taken). Outside any budget: nothing (as :func:`spend`)."""
    left = _budget.get()
    if left is None:
        return
    if steps > left[0]:
        raise exceeded(MAX_ENGINE_STEPS - left[0] + steps)
    left[0] -= steps


def charge_loss_analysis(steps: int, per_step: int, per_run: int = 0) -> None:
    """Charge the loss analysis of a run of ``steps`` steps to the current budget before it runs (:func:`charge`):
    ``per_step`` a step and ``per_run`` once. Nothing in a budget of the answer's size (``budget(size_only=True)``:
    the packets' budget): the analysis adds no packet to the answer, and its time is bounded before anything runs by
    the work estimate, which prices loss (:data:`RUN_COSTS`). A lossy 6-protocol page with packets was refused by the
    30,000 steps of max_packets_engine_steps once a lossy run was charged 8,000 steps for its fixed part
    (tests/latency_lab/test_cli_json.py, 2026-11-28)."""
    if _size_only.get():
        return
    charge(per_step * steps + per_run)


def exceeded(actual: int) -> WorkLimitExceeded:
    """The error for a request that reached ``actual`` engine steps, counted as callers do from
    :data:`MAX_ENGINE_STEPS` (``MAX_ENGINE_STEPS - allowance at the start + steps taken``): past the current budget
    (:data:`MAX_ENGINE_STEPS`, or a smaller one like :data:`MAX_PACKETS_ENGINE_STEPS`, named by it)."""
    name, maximum = _budget_limit.get() or ("max_engine_steps", MAX_ENGINE_STEPS)
    actual = actual - MAX_ENGINE_STEPS + maximum  # steps taken in this budget
    return WorkLimitExceeded(
        Limit(
            name=name,
            maximum=maximum,
            actual=max(actual, maximum + 1),
            message=(
                f"this request needs more than the {maximum:,} model steps (packets, timers and application "
                "writes; the expected cost of loss counts each of its run's steps twice more) one request may take "
                f"({name}): ask for fewer protocols, points, objects or pages, or larger writes or segments "
                "(see /api/docs#limits)"
            ),
        )
    )
