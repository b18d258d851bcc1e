# Cython declarations for the compiled build of latency_lab/mechanisms/rto.py: the estimator runs on every ACK, so the
# engine (latency_lab/engine/tcp.pxd cimports this) calls it as C functions on C doubles.
cpdef tuple first_sample(double r_ms)
cpdef tuple update(double srtt_ms, double rttvar_ms, double r_ms)
cpdef double timeout_ms(double srtt_ms, double rttvar_ms, double granularity_ms, double rto_min_ms, double rto_max_ms, bint min_on_variation=*)
cpdef long long restart_window(long long cwnd_segments, long long iw_segments, double idle_ms, double rto_ms, bint halve)
