// latency_lab/mechanisms/loss_recovery.expected in C++, for numbers only: the expected_with_loss block's numbers costed from
// the structure loss.cpp reads off the schedule (LossOut), with the closed forms of latency_lab/mechanisms/loss.py it calls
// (handshake_extra_ms, repair_timeout_probability, timeout_ms, steady_throughput, after_loss_ms, carried_ms, ...) and
// the periods after a loss of periods.cpp. A lossy native prediction then spends no time in Python on its costing
// (issue 29: it was 59 % of a lossy Microscape prediction's samples). The Python functions are the readable reference
// and the symbolic path; each function here names the one it follows, statement for statement in the same order, and
// tests/latency_lab/engine/test_native_loss_recovery.py proves the two equal.
#pragma once

#include "loss.hpp"

namespace ll {

// what loss_recovery.expected reads of the scenario (latency_lab.scenario.params.Params), and the loss rate
struct CostParams {
  double p;  // network.loss_rate, above 0
  double rtt;  // d_up + d_down (ms)
  double rto;  // rto_ms: the initial retransmission timeout (ms)
  double ack_delay;  // quic_ack_delay (ms)
  double dack;  // dack_ms (ms)
  double w_max;  // rwnd / mss (segments)
  long long ack_segments;  // max(dack_segments, 1)
  long long parallel;  // http.parallel_connections (the slots, where LossOut has slot connections)
  bool h3;  // independent streams
};

// the block's numbers: by_cause_ms in loss_recovery.CAUSES's order, their sum, the head of line, the path's segments
struct LossCosted {
  double handshake, timeouts, fast_retransmit, slower_sending, extra, head_of_line;
  long long segments;
};

// loss_recovery.expected(from_native(...), p, 0)'s numbers
LossCosted loss_expected(const LossOut& lo, const CostParams& cp);

// the constants of loss.py and loss_recovery.py this file declares again (tests compare them with Python's)
struct LossRecoveryConstants {
  double syn_timeout_ms, quic_initial_pto_ms, partial_round, exact_rest, rest_grid_ratio;
  long long carried_follow;
  int transient_periods;
  double fine_window, bin_ratio, tail_mass, min_ssthresh;
};
LossRecoveryConstants loss_recovery_constants();

}  // namespace ll
