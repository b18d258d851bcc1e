// latency_lab/mechanisms/loss.py's periods of congestion avoidance after a loss (_after_loss_tree and the functions under
// it: _segments_to, _window_after, _rounds_for, _mean_in, _key, window_timeout_probability) in C++. The loss analysis of a request that meets a new loss rate or window evaluates
// dozens of these trees (about 46 ms of CPU a lossy run in Python, up to 232 ms; bench/loss_step_cost.py,
// 2026-11-28). The Python functions are the readable reference; each function here names the one it follows,
// statement for statement in the same order, and tests/latency_lab/mechanisms/test_loss_periods.py proves the two equal.
#pragma once

#include <cmath>

namespace ll {

// Python's rules where C++'s differ, for the loss analysis's closed forms (periods.cpp, loss_recovery.cpp):
// max(a, b) and min(a, b) keep the first unless the second is strictly greater (smaller); math.log(x, base)
inline double py_max(double a, double b) { return b > a ? b : a; }
inline double py_min(double a, double b) { return b < a ? b : a; }
inline double log_base(double x, double base) { return std::log(x) / std::log(base); }
// Python's x ** y on floats (periods.cpp: libm's pow at run time, never folded)
double py_pow(double x, double y);

// loss.position_timeout_probability and loss.repair_timeout_probability (periods.cpp), for both files
double position_timeout_probability(double p, long long m);
double repair_timeout_probability(double p, long long m);

// loss.py's constants, passed by the caller (declared once, there)
struct PeriodsConstants {
  int transient_periods;
  double fine_window, bin_ratio, tail_mass, min_ssthresh;
};

// _after_loss_tree's (rounds, timeouts, used, sending, reach): independent of the round-trip time and the timeout
struct PeriodsOut {
  double rounds, timeouts, used, sending, reach;
};

// loss._after_loss_tree(p, rest, h, b, w_max); rest may be infinite
PeriodsOut after_loss_tree(double p, double rest, double h, int b, double w_max, const PeriodsConstants& c);

}  // namespace ll
