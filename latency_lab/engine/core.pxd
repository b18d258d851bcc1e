# Cython declarations for the compiled build of latency_lab/engine/core.py (pure Python mode: the .py file is the
# source; this file only gives its classes C layouts and typed fields). Times and byte counts that are
# floats in a plain run and linear forms in a traced run stay ``object``.

cdef class Quantities:
    cdef public object p, zero, o, server_think, client_think, dack, conn_overhead, mss, header, request, rwnd
    cdef public object mux, dns
    cdef public tuple d, k, rwnd_n, rwnds

cdef class Traced(Quantities):
    pass

cdef class Packet:
    cdef public object ack, cause, held, n, obj, payload, prev, seq_end, t_a, t_e, t_q, t_s, tx, wire
    cdef public int conn, dir, options
    cdef public str kind
    cdef public bint fin

cdef class Point:
    cdef public object t, base, extra
    cdef public str cat

cdef class Engine:
    cdef public Quantities q
    cdef public bint traced
    cdef public list heap, link_free, link_last, packets
    cdef public long long seq, cost, start_allowance, max_seq, wire_bytes
    cpdef step(self, long long n=*)
    cpdef transmit(self, Packet pkt, object t, tuple cause, object deliver)
