# Cython declarations for the compiled build of latency_lab/engine/tcp.py (see latency_lab/engine/core.pxd).
from latency_lab.engine.core cimport Engine, Packet, Quantities
from latency_lab.mechanisms cimport rto

cdef class Connection

cdef class Endpoint:
    cdef public Quantities q
    cdef public Connection conn
    cdef public object name, mss, rwnd, profile, dack, dack_ms, rto, idle_restart
    cdef public Engine eng
    cdef public int dir
    cdef public long long mss_n, rwnd_n, cwnd, cwnd_cap, dack_segments, quickacks
    cdef public long long blocked_len, blocked_window, obj_i, un_segs, token, segments
    cdef public double acked_carry, una_n, end_n, nxt_n, rcv_n, un_bytes
    cdef public bint nagle_idle_at_entry, close_sends_held, cwnd_counts_bytes, deliver_before_ack
    cdef public bint nagle, quick_ack, dack_bytes, ack_handshake, hold, pacing, closing, fin_sent
    cdef public bint pingpong_ack, pingpong
    cdef public double last_rcv_t
    cdef public object last_data_t, pace_interval, next_pace, last_paced, last_ack, blocked, last_end
    cdef public object zero, una, nxt, end, rcv, first_pkt, last_pkt
    cdef public double rto_min, srtt, rttvar, sml_n, rto_granularity, rto_max
    cdef public bint rto_min_on_variation
    cdef public list seg_ends, seg_sent, rto_log, restart_t
    cdef public long long seg_i, timed_i, max_out
    cdef public double max_seq_n
    cdef public bint cwnd_counts_packets, nagle_minshall, rtt_one, cwnd_limited_growth
    cdef public list obj_bounds, hs_ranges
    cdef public object on_data, on_fin, deliver
    cdef public Endpoint peer
    cpdef release(self)
    cpdef set_profile(self, object profile)
    cpdef _track(self, object t, double length_n)
    cpdef long long _acked(self, object t, double ack_n)
    cpdef rtt_sample(self, object t, double sent)
    cpdef double app_received(self)
    cpdef write(self, object t, object nbytes, str obj, object point)
    cpdef output(self, object t, tuple cause)
    cpdef str _obj_at(self, double offset)
    cpdef _block(self, str reason, object length)
    cpdef _released(self, object t, tuple cause)
    cpdef _send(self, Packet pkt, object t, tuple cause)
    cpdef Packet send_control(self, str kind, object t, tuple cause, bint fin=*)
    cpdef arrive(self, object t, Packet pkt)
    cpdef _receive(self, object t, Packet pkt, object payload)
    cpdef _track(self, object t, double length_n)
    cpdef long long _acked(self, object t, double ack_n)
    cpdef rtt_sample(self, object t, double sent)

cdef class Connection:
    cdef public object session, names, rto, on_open, last_write, on_done, tls, mux, syn_t
    cdef public Engine eng
    cdef public int id, leg, served, expect_i, syns
    cdef public bint close_after
    cdef public tuple links
    cdef public Endpoint client, server
    cdef public list requests, expect
    cdef public double expect_end, synack_t
    cpdef release(self)
