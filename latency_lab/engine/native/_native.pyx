# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""The native engine's binding: a resolved scenario's numbers in, one protocol's schedule's numbers out.

:func:`prepare` turns :class:`latency_lab.scenario.params.Params` into the C++ engine's parameters once per
prediction; :func:`run` runs one protocol's schedule (``engine.hpp``) and returns its numbers as a
:class:`Run`. Turning them into the output document (sentences, dictionaries) is
:mod:`latency_lab.analysis.native`'s. Imports nothing of the model's own.
"""

from libcpp cimport bool as cbool
from libcpp.vector cimport vector


cdef extern from "params.hpp" namespace "ll":
    cdef cppclass Profile:
        cbool syn_ack_opens_window, ack_counts_bytes, nagle_idle_at_entry, close_sends_held, cwnd_counts_bytes
        cbool ack_first_segment, fin_on_data_acked_alone, deliver_before_ack, last_ack_any_ack
        long long cwnd_abc_limit_segments, quickack_segments
        cbool pingpong_ack
        cbool cwnd_counts_packets, nagle_minshall, rtt_times_one_segment
        double rto_granularity_ms
        cbool rto_min_on_variation
        double rto_max_ms
        cbool restart_halves_per_rto, cwnd_limited_growth

    cdef cppclass Params:
        double d_up, d_down, k_up, k_down
        long long overhead
        Profile profile, quic_profile
        long long mss, iw, rwnd
        double dack_ms
        long long dack_segments
        cbool nagle
        int handshake, idle_restart
        double rto_ms
        long long request, header
        cbool header_flush, flush_persistent_only
        long long write
        double server_think, client_think, conn_overhead
        long long parallel, html
        vector[long long] objects
        vector[long long] object_parents
        vector[double] origin_dns_ms
        vector[long long] origin_preconnected
        vector[long long] origin_coalesce
        vector[long long] object_origins
        vector[long long] object_urgency
        vector[long long] object_incremental
        vector[long long] object_early_hint
        vector[long long] origin_early_preconnect
        vector[long long] object_named_at
        vector[long long] origin_path
        vector[double] origin_d_up
        vector[double] origin_d_down
        vector[double] origin_k_up
        vector[double] origin_k_down
        vector[double] origin_rto_ms
        long long early_hints_bytes
        long long pages
        double user_think
        cbool has_idle_timeout
        double idle_timeout, dns_ms
        int tls, tls_resumption
        cbool tls_early_data
        cbool tls_false_start
        long long tls_client_hello, tls_server_flight, frame, mux_request, quic_datagram
        long long tls_tickets, tls_ticket_bytes
        cbool mux_headers_alone
        long long mux_server_settings, mux_settings_ack
        cbool window_packets
        double quic_ack_delay, rto_min_ms
        cbool pipeline_one_write
        cbool preconnect
        cbool has_proxy  # split proxies (seed 003): ProxyParams' numbers, each leg's window resolved (params.hpp)
        double d_c, k_c, d_s, k_s
        long long rwnd_x, rwnd_c, rwnd_s, proxy_connections, proxy_mux
        double rto_c, rto_s


cdef extern from "engine.hpp" namespace "ll":
    cdef struct Cause:
        int kind
        int ref
        int reason
        int note

    cdef struct Packet:
        int conn, dir, kind
        double n
        int options
        cbool fin, has_held
        double held
        int obj
        double t_q, t_s, t_a
        long long wire

    cdef struct Note:
        long long segs, nbytes, ep_dack_segments


cdef extern from "session.hpp" namespace "ll":
    cdef struct EventRec:
        int kind, reason, conn, side, obj
        double t, gap
        long long blocked_len, blocked_window, rwnd_n
        cbool has_held
        double held, peer_dack_ms
        int note
        double rto
        long long before, after


cdef extern from "api.hpp" namespace "ll":
    cdef struct Step:
        int cat
        double amount
        int conn, obj

    cdef cppclass Output:
        int status
        long long steps
        int incomplete_object
        vector[double] page_load, page_t0, page_t1
        vector[long long] page_trips
        vector[int] obj_conn
        vector[double] obj_start, obj_end
        vector[EventRec] events
        vector[Note] notes
        long long connections, tls_handshakes, tls_bytes, dns_lookups, packets, wire_bytes
        vector[int] on_path, conn_legs
        vector[long long] conn_segments, conn_syns
        vector[double] conn_syn_t
        vector[Packet] pkts
        vector[vector[Step]] page_steps
        long long restarts

    void run_session(const Params&, int, long long, cbool, Output&) except + nogil


cdef extern from *:
    """
    static inline double ll_page_acc(const ll::Output& o, size_t k, int c) { return o.page_acc[k][c]; }
    static inline void ll_want_summary(ll::Output& o) { o.summary_only = true; }
    static inline long long ll_stalls(const ll::Output& o, int part) {
      return part == 0 ? o.stalls.slow_start_rounds : part == 1 ? o.stalls.delayed_ack_stalls : o.stalls.nagle_stalls;
    }
    """
    double ll_page_acc(const Output& o, size_t k, int c)
    void ll_want_summary(Output& o)
    long long ll_stalls(const Output& o, int part)


HANDSHAKES = {"three_way": 0, "none": 1, "ttcp": 2, "fast_open": 3, "warm": 4}
IDLE_RESTARTS = {"slow_start": 0, "keep": 1, "fast_start": 2, "paced": 3}
TLS_VERSIONS = {"none": 0, "1.2": 1, "1.3": 2}
RESUMPTIONS = {"none": 0, "after_first": 1, "all": 2}
PROTOCOLS = {"http10": 0, "http10_parallel": 1, "persistent": 2, "pipelined": 3, "getall": 4, "h2": 5, "h3": 6, "persistent_parallel": 7}
#: the breakdown's categories in the engine's order (latency_lab.analysis.critical_path.CATEGORIES)
NCAT = 10
KINDS = ("SYN", "SYNACK", "ACK", "DATA", "FIN", "RST")
REASONS = (None, "window", "nagle")


cdef void _profile(Profile* out, object pr):
    out.syn_ack_opens_window = pr.syn_ack_opens_window
    out.ack_counts_bytes = pr.ack_counts_bytes
    out.nagle_idle_at_entry = pr.nagle_idle_at_entry
    out.close_sends_held = pr.close_sends_held
    out.cwnd_counts_bytes = pr.cwnd_counts_bytes
    out.ack_first_segment = pr.ack_first_segment
    out.fin_on_data_acked_alone = pr.fin_on_data_acked_alone
    out.deliver_before_ack = pr.deliver_before_ack
    out.last_ack_any_ack = pr.last_ack_any_ack
    out.cwnd_abc_limit_segments = pr.cwnd_abc_limit_segments
    out.quickack_segments = pr.quickack_segments
    out.pingpong_ack = pr.pingpong_ack
    out.cwnd_counts_packets = pr.cwnd_counts_packets
    out.nagle_minshall = pr.nagle_minshall
    out.rtt_times_one_segment = pr.rtt_times_one_segment
    out.rto_granularity_ms = pr.rto_granularity_ms
    out.rto_min_on_variation = pr.rto_min_on_variation
    out.rto_max_ms = pr.rto_max_ms
    out.restart_halves_per_rto = pr.restart_halves_per_rto
    out.cwnd_limited_growth = pr.cwnd_limited_growth


cdef class Prepared:
    """A resolved scenario's numbers in the engine's layout (one per prediction, shared by its protocols)."""

    cdef Params c

    def __init__(self, p, quic_profile):
        cdef Params* c = &self.c
        c.d_up = p.d_up
        c.d_down = p.d_down
        c.k_up = p.k_up
        c.k_down = p.k_down
        c.overhead = p.overhead
        _profile(&c.profile, p.profile)
        _profile(&c.quic_profile, quic_profile)
        c.mss = p.mss
        c.iw = p.iw
        c.rwnd = p.rwnd
        c.dack_ms = p.dack_ms
        c.dack_segments = p.dack_segments
        c.nagle = p.nagle
        c.handshake = HANDSHAKES[p.handshake]
        c.idle_restart = IDLE_RESTARTS[p.idle_restart]
        c.rto_ms = p.rto_ms
        c.request = p.request
        c.header = p.header
        c.header_flush = p.header_flush
        c.flush_persistent_only = p.flush_persistent_only
        c.write = p.write
        c.server_think = p.server_think
        c.client_think = p.client_think
        c.conn_overhead = p.conn_overhead
        c.parallel = p.parallel
        c.html = p.html
        c.objects = p.objects
        c.object_parents = p.object_parents
        c.origin_dns_ms = p.origin_dns_ms
        c.origin_preconnected = p.origin_preconnected
        c.origin_coalesce = p.origin_coalesce
        c.object_origins = p.object_origins
        c.object_urgency = p.object_urgency
        c.object_incremental = p.object_incremental
        c.object_early_hint = p.object_early_hint
        c.origin_early_preconnect = p.origin_early_preconnect
        c.early_hints_bytes = p.early_hints_bytes
        c.object_named_at = p.object_named_at
        c.origin_path = p.origin_path
        c.origin_d_up = p.origin_d_up
        c.origin_d_down = p.origin_d_down
        c.origin_k_up = p.origin_k_up
        c.origin_k_down = p.origin_k_down
        c.origin_rto_ms = p.origin_rto_ms
        c.pages = p.pages
        c.user_think = p.user_think
        c.has_idle_timeout = p.idle_timeout is not None
        c.idle_timeout = p.idle_timeout if p.idle_timeout is not None else 0.0
        c.dns_ms = p.dns_ms
        c.tls = TLS_VERSIONS[p.tls]
        c.tls_resumption = RESUMPTIONS[p.tls_resumption]
        c.tls_early_data = p.tls_early_data
        c.tls_false_start = p.tls_false_start
        c.tls_client_hello = p.tls_client_hello
        c.tls_server_flight = p.tls_server_flight
        c.tls_tickets = p.tls_tickets
        c.tls_ticket_bytes = p.tls_ticket_bytes
        c.frame = p.frame
        c.mux_request = p.mux_request
        c.mux_headers_alone = p.mux_headers_alone
        c.mux_server_settings = p.mux_server_settings
        c.mux_settings_ack = p.mux_settings_ack
        c.window_packets = p.window_packets
        c.quic_datagram = p.quic_datagram
        c.quic_ack_delay = p.quic_ack_delay
        c.rto_min_ms = p.rto_min_ms
        c.pipeline_one_write = p.pipeline_one_write
        c.preconnect = p.preconnect
        c.has_proxy = p.proxy is not None
        c.d_c = p.proxy.d_c if p.proxy is not None else 0.0
        c.k_c = p.proxy.k_c if p.proxy is not None else 0.0
        c.d_s = p.proxy.d_s if p.proxy is not None else 0.0
        c.k_s = p.proxy.k_s if p.proxy is not None else 0.0
        c.rwnd_x = (p.proxy.rwnd_x or p.rwnd) if p.proxy is not None else p.rwnd
        c.rwnd_c = (p.proxy.rwnd_c or p.rwnd) if p.proxy is not None else p.rwnd
        c.rwnd_s = (p.proxy.rwnd_s or p.rwnd) if p.proxy is not None else p.rwnd
        c.proxy_connections = p.proxy.connections if p.proxy is not None else 0
        c.proxy_mux = p.proxy.mux if p.proxy is not None else 0
        c.rto_c = p.proxy.rto_c if p.proxy is not None else 0.0
        c.rto_s = p.proxy.rto_s if p.proxy is not None else 0.0


cdef class Run:
    """One protocol's schedule as numbers (see api.hpp's Output for each field)."""

    cdef public int status
    cdef public long long steps
    cdef public int incomplete_object
    cdef public list pages  # (load, [acc by category], trips, t0, t1)
    cdef public list objects  # (connection, start, end)
    cdef public list events  # tuples, see api.hpp's EventRec
    cdef public list notes  # (segs, nbytes, the endpoint's delayed_ack_segments)
    cdef public dict counts
    cdef public list on_path, conn_legs
    cdef public list conn_segments, conn_syns, conn_syn_t
    cdef public list packets
    cdef public tuple loss  # with ``loss``: expected_loss.structure's numbers (_loss_numbers)
    cdef public list walk_steps  # each page's walk: (category index, amount, connection, object), last first
    cdef public tuple costed  # with ``cost_at``: the loss analysis costed in C++ (_loss_costed)
    # with ``summary``: (slow_start_rounds, delayed_ack_stalls, nagle_stalls, slow_start_restarts), counted in C++
    # (api.hpp's count_stalls: critical_path.stall_counts of the walks' path_stalls); else None
    cdef public tuple stall_counts


def run(Prepared prepared, str protocol, long long allowance, bint packets=False, bint loss=False, double cost_at=0.0,
        bint summary=False):
    """Run ``protocol``'s schedule on the prepared scenario within ``allowance`` engine steps (with ``loss``, also
    reading what the loss analysis needs off it: :attr:`Run.loss`; with ``cost_at`` above 0, costing it at that loss
    rate: :attr:`Run.costed`). With ``summary``, only what a summary reads: the stall counts (:attr:`Run.stall_counts`)
    instead of the walks' steps, the events, notes and objects (left empty)."""
    cdef Output out
    cdef int proto = PROTOCOLS[protocol]
    ll_want_loss(out, loss or cost_at > 0)
    if summary:
        ll_want_summary(out)
    with nogil:
        run_session(prepared.c, proto, allowance, packets, out)
    cdef Run r = Run()
    r.status = out.status
    r.steps = out.steps
    r.incomplete_object = out.incomplete_object
    if out.status != 0:
        return r
    cdef size_t k, i
    cdef int c
    r.pages = [
        (out.page_load[k], [ll_page_acc(out, k, c) for c in range(NCAT)], out.page_trips[k], out.page_t0[k], out.page_t1[k])
        for k in range(out.page_load.size())
    ]
    if summary:
        r.stall_counts = (ll_stalls(out, 0), ll_stalls(out, 1), ll_stalls(out, 2), out.restarts)
    r.objects = [(out.obj_conn[i], out.obj_start[i], out.obj_end[i]) for i in range(out.obj_conn.size())]
    cdef EventRec e
    r.events = []
    for i in range(out.events.size()):
        e = out.events[i]
        r.events.append(
            (e.kind, REASONS[e.reason], e.conn, e.side, e.obj, e.t, e.gap, e.blocked_len, e.blocked_window,
             e.rwnd_n, e.held if e.has_held else None, e.peer_dack_ms, e.note, e.rto, e.before, e.after)
        )
    cdef Note nt
    r.notes = []
    for i in range(out.notes.size()):
        nt = out.notes[i]
        r.notes.append((nt.segs, nt.nbytes, nt.ep_dack_segments))
    r.counts = {
        "connections": out.connections,
        "tls_handshakes": out.tls_handshakes,
        "tls_bytes": out.tls_bytes,
        "dns_lookups": out.dns_lookups,
        "packets": out.packets,
        "bytes_on_wire": out.wire_bytes,
    }
    r.on_path = list(out.on_path)
    r.conn_legs = list(out.conn_legs)
    r.conn_segments = list(out.conn_segments)
    r.conn_syns = list(out.conn_syns)
    r.conn_syn_t = list(out.conn_syn_t)
    cdef Step sp
    r.walk_steps = []
    for k in range(out.page_steps.size()):
        page = []
        for i in range(out.page_steps[k].size()):
            sp = out.page_steps[k][i]
            page.append((sp.cat, sp.amount, sp.conn, sp.obj))
        r.walk_steps.append(page)
    cdef Packet pk
    if packets:
        r.packets = []
        for i in range(out.pkts.size()):
            pk = out.pkts[i]
            r.packets.append(
                (pk.dir, pk.conn, KINDS[pk.kind], pk.n, pk.wire, pk.fin, pk.obj, pk.t_q, pk.t_s, pk.t_a,
                 pk.held if pk.has_held else None)
            )
    if loss:
        r.loss = _loss_numbers(out)
    if cost_at > 0:
        r.costed = _loss_costed(out, prepared.c, cost_at, protocol == "h3")
    return r


# ------------------------------------------------------------------------------ the loss analysis (loss.hpp)
cdef extern from "loss.hpp" namespace "ll":
    cdef struct LossRun:
        int chain
        long long before, count, w
        cbool quic, initial_pto
        double slack
        long long streams, follow, burst_before, to_rounds, to_stalls, fr_rounds, fr_stalls, rest
        double rest_ms
        long long page
        double rto
        long long carry
        double carry_ms
        long long carry_n

    cdef cppclass LossOut:
        long long syns
        vector[int] connections
        vector[long long] page_syns
        vector[LossRun] runs
        vector[int] par_conn
        vector[long long] par_syns, par_page
        vector[double] par_slack
        vector[int] slot_conn
        vector[long long] slot_syns, slot_page
        vector[double] slot_slack
        vector[char] slot_lead


cdef extern from *:
    """
    static inline void ll_want_loss(ll::Output& o, bool want) { o.want_loss = want; }
    static inline const ll::LossOut& ll_loss(const ll::Output& o) { return o.loss; }
    """
    void ll_want_loss(Output& o, cbool want)
    const LossOut& ll_loss(const Output& o)


cdef tuple _loss_numbers(const Output& out):
    """(syns, connections, page_syns, runs, others, slots): ``runs`` each ``(chain, *loss_recovery.Run's fields in
    order)``, chain -1 the page's path, -2 - k the k-th of ``slots``, else an index into ``others``, each ``(connection,
    syns, slack, page)``; ``slots`` http10_parallel's object connections, each ``(connection, syns, slack, page, lead)``."""
    cdef const LossOut* lo = &ll_loss(out)
    cdef size_t i
    cdef LossRun x
    runs = []
    for i in range(lo.runs.size()):
        x = lo.runs[i]
        runs.append(
            (x.chain, x.before, x.count, x.w, x.quic, x.initial_pto, x.slack, x.streams, x.follow, x.burst_before,
             x.to_rounds, x.to_stalls, x.fr_rounds, x.fr_stalls, x.rest, x.rest_ms, x.page, x.rto, x.carry, x.carry_ms,
             x.carry_n)
        )
    others = [(lo.par_conn[i], lo.par_syns[i], lo.par_slack[i], lo.par_page[i]) for i in range(lo.par_conn.size())]
    slots = [
        (lo.slot_conn[i], lo.slot_syns[i], lo.slot_slack[i], lo.slot_page[i], lo.slot_lead[i] != 0)
        for i in range(lo.slot_conn.size())
    ]
    return (lo.syns, list(lo.connections), list(lo.page_syns), runs, others, slots)


# ----------------------------------------------------- the periods after a loss (periods.hpp; latency_lab.mechanisms.loss)
cdef extern from "periods.hpp" namespace "ll":
    cdef struct PeriodsConstants:
        int transient_periods
        double fine_window, bin_ratio, tail_mass, min_ssthresh

    cdef struct PeriodsOut:
        double rounds, timeouts, used, sending, reach

    PeriodsOut after_loss_tree(double p, double rest, double h, int b, double w_max, const PeriodsConstants& c)


def periods(double p, double rest, double h, int b, double w_max,
            int transient_periods, double fine_window, double bin_ratio, double tail_mass, double min_ssthresh):
    """:func:`latency_lab.mechanisms.loss._after_loss_tree` in C++: ``(rounds, timeouts, used, sending, reach)``; the
    constants are loss.py's, passed by it (declared once, there)."""
    cdef PeriodsConstants c
    c.transient_periods = transient_periods
    c.fine_window = fine_window
    c.bin_ratio = bin_ratio
    c.tail_mass = tail_mass
    c.min_ssthresh = min_ssthresh
    cdef PeriodsOut out = after_loss_tree(p, rest, h, b, w_max, c)
    return out.rounds, out.timeouts, out.used, out.sending, out.reach


# ------------------------------------- the loss analysis costed (loss_recovery.hpp; latency_lab.mechanisms.loss_recovery)
cdef extern from "loss_recovery.hpp" namespace "ll":
    cdef struct CostParams:
        double p, rtt, rto, ack_delay, dack, w_max
        long long ack_segments, parallel
        cbool h3

    cdef struct LossCosted:
        double handshake, timeouts, fast_retransmit, slower_sending, extra, head_of_line
        long long segments

    LossCosted loss_expected(const LossOut& lo, const CostParams& cp) nogil

    cdef struct LossRecoveryConstants:
        double syn_timeout_ms, quic_initial_pto_ms, partial_round, exact_rest, rest_grid_ratio
        long long carried_follow
        int transient_periods
        double fine_window, bin_ratio, tail_mass, min_ssthresh

    LossRecoveryConstants loss_recovery_constants()


cdef tuple _loss_costed(const Output& out, const Params& c, double rate, bint h3):
    """:func:`latency_lab.mechanisms.loss_recovery.expected` of the run's structure at loss rate ``rate`` (above 0), in C++:
    ``((handshake, timeouts, fast_retransmit, slower_sending), extra, head_of_line, segments, connections)``, ms."""
    cdef CostParams cp
    cp.p = rate
    cp.rtt = c.d_up + c.d_down
    cp.rto = c.rto_ms
    cp.ack_delay = c.quic_ack_delay
    cp.dack = c.dack_ms
    cp.w_max = <double>c.rwnd / <double>c.mss
    cp.ack_segments = c.dack_segments if c.dack_segments > 1 else 1
    cp.parallel = c.parallel
    cp.h3 = h3
    cdef const LossOut* lo = &ll_loss(out)
    cdef LossCosted x
    with nogil:
        x = loss_expected(lo[0], cp)
    return (
        (x.handshake, x.timeouts, x.fast_retransmit, x.slower_sending), x.extra, x.head_of_line, x.segments,
        list(lo.connections),
    )


def loss_costing_constants():
    """The constants of :mod:`latency_lab.mechanisms.loss` and :mod:`latency_lab.mechanisms.loss_recovery` that loss_recovery.cpp
    declares again, by their Python names (the tests hold them equal)."""
    cdef LossRecoveryConstants k = loss_recovery_constants()
    return {
        "SYN_TIMEOUT_MS": k.syn_timeout_ms, "QUIC_INITIAL_PTO_MS": k.quic_initial_pto_ms,
        "PARTIAL_ROUND": k.partial_round, "EXACT_REST": k.exact_rest, "REST_GRID_RATIO": k.rest_grid_ratio,
        "CARRIED_FOLLOW": k.carried_follow, "TRANSIENT_PERIODS": k.transient_periods, "FINE_WINDOW": k.fine_window,
        "BIN_RATIO": k.bin_ratio, "TAIL_MASS": k.tail_mass, "MIN_SSTHRESH": k.min_ssthresh,
    }
