// latency_lab/analysis/expected_loss.structure in C++: what the closed forms of random loss need, read off a finished
// schedule (the connections on the page's path, their SYNs, their data segments in runs of equal cost with the
// slower sending after a loss (latency_lab/mechanisms/loss_recovery.penalty), the other connections with their slack).
// The Python functions are the readable reference; each function here names the one it follows, statement for
// statement, and tests/latency_lab/engine/test_engine_backends.py proves the two equal.
#pragma once

#include "session.hpp"

namespace ll {

// loss_recovery.Run's fields, and which chain of work it belongs to (-1 the page's path, -2 - k the k-th of
// LossOut::slot_conn, else an index into LossOut::par_conn)
struct LossRun {
  int chain;
  long long before, count, w;
  bool quic, initial_pto;
  double slack;
  long long streams, follow, burst_before, to_rounds, to_stalls, fr_rounds, fr_stalls, rest;
  double rest_ms;
  long long page;
  double rto;
  long long carry;
  double carry_ms;
  long long carry_n;
};

struct LossOut {
  long long syns = 0;  // SYN exchanges on the page's path
  std::vector<int> connections;  // on the page's path (sorted)
  std::vector<long long> page_syns;
  std::vector<LossRun> runs;  // the path's first, then each other connection's, in par_conn's order
  // the other connections on the lossy link (loss_recovery.Parallel): connection, SYNs, slack, page
  std::vector<int> par_conn;
  std::vector<long long> par_syns, par_page;
  std::vector<double> par_slack;
  // http10_parallel (expected_loss.slot_connections): every object connection in the order it opened, its runs chain
  // -2 - k: connection, SYNs, the float of its own objects (ms), page, whether it is the page's HTML connection (lead)
  std::vector<int> slot_conn;
  std::vector<long long> slot_syns, slot_page;
  std::vector<double> slot_slack;
  std::vector<char> slot_lead;
};

// expected_loss.structure(s, protocol) with others and costed
void loss_structure(const Session& s, bool quic, LossOut& out);

}  // namespace ll
