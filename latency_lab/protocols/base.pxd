# Cython declarations for the compiled build of latency_lab/protocols/base.py (see latency_lab/engine/core.pxd).
from latency_lab.engine.core cimport Engine, Packet
from latency_lab.engine.tcp cimport Connection

cdef class ObjectRecord:
    cdef public str name
    cdef public object bytes, start, end, end_pkt
    cdef public int page, connection

cdef class Session:
    cdef public object q, p, start, keep_conn, driver, cwnd_cache, relay, pool_state
    cdef public Engine eng
    cdef public list conns, pool, page_names, events, page_start, page_end
    cdef public dict objects
    cdef public int restarts, page, page_left, client_leg, tls_handshakes, dns_lookups
    cdef public long long tls_bytes
    cdef public bint dns_done
    cpdef release(self)
    cpdef _server_data(self, Connection conn, object t, Packet pkt)
    cpdef _client_data(self, Connection conn, object t, Packet pkt)
