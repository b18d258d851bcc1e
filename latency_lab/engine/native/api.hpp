// What one native run hands back to Python (latency_lab/engine/native/_native.pyx): the numbers of
// latency_lab.analysis.predict.result, read off the finished schedule, in plain arrays.
#pragma once

#include <array>

#include "loss.hpp"
#include "session.hpp"

namespace ll {

// One amount the critical path walk files (latency_lab/analysis/critical_path.walk's ``steps``), last first: its
// category (Cat), the amount (ms), the packet's connection and object (-1 and OBJ_NONE for a point of the schedule).
struct Step {
  int cat;
  double amount;
  int conn;
  int obj;
};
// walk, keeping every amount it files in ``steps`` when given (walk.cpp)
Walk walk(const Engine& eng, int32_t final_pkt, Ref stop, std::vector<Step>* steps);

enum Status { OK = 0, OVER_BUDGET = 1, INCOMPLETE = 2 };

// The stall counts of latency_lab/analysis/critical_path.stall_counts(path_stalls(steps, ...), restarts), read off the
// walks' steps without building the stalls: a stall is a run of consecutive steps of the stall parts (SS_IDLE,
// DACK_STALL, NAGLE_STALL), steps of amount 0 skipped (critical_path.stalls); it counts once under each part it has.
struct StallCounts {
  long long slow_start_rounds = 0, delayed_ack_stalls = 0, nagle_stalls = 0;
};

inline void count_stalls(const std::vector<Step>& steps, StallCounts& out) {
  bool in_stall = false;
  bool has[3] = {false, false, false};
  auto close = [&]() {
    if (!in_stall) return;
    out.slow_start_rounds += has[0];
    out.delayed_ack_stalls += has[1];
    out.nagle_stalls += has[2];
    in_stall = false;
  };
  for (const Step& st : steps) {
    if (st.amount == 0) continue;  // critical_path.stalls: ``if x == 0: continue``
    if (st.cat != SS_IDLE && st.cat != DACK_STALL && st.cat != NAGLE_STALL) {
      close();
      continue;
    }
    if (!in_stall) {
      in_stall = true;
      has[0] = has[1] = has[2] = false;
    }
    has[st.cat - SS_IDLE] = true;
  }
  close();
}

struct Output {
  int status = OK;
  long long steps = 0;  // engine steps taken (or reached, past the budget)
  int incomplete_object = -1;
  // each page: its load time, breakdown (CATEGORIES' order) and round trips; where it began and ended
  std::vector<double> page_load, page_t0, page_t1;
  std::vector<std::array<double, NCAT>> page_acc;
  std::vector<long long> page_trips;
  // each object (in the session's order): its connection, first request and last byte
  std::vector<int> obj_conn;
  std::vector<double> obj_start, obj_end;
  std::vector<EventRec> events;
  std::vector<Note> notes;
  long long connections = 0, tls_handshakes = 0, tls_bytes = 0, dns_lookups = 0, packets = 0, wire_bytes = 0;
  // expected_loss.lossless_structure's inputs: the connections on the path (on the lossy link: a split-proxy path's
  // long haul), each connection's counts
  std::vector<int> on_path;
  std::vector<int> conn_legs;  // each connection's leg (core.PATH, CLIENT_LEG, SERVER_LEG): its ends' names
  std::vector<long long> conn_segments, conn_syns;
  std::vector<double> conn_syn_t;
  // the packets (``packets=True``)
  std::vector<Packet> pkts;
  // expected_loss.structure's numbers (set want_loss before the run: a loss rate above 0)
  bool want_loss = false;
  LossOut loss;
  // each page's walk of its critical path, step by step (Step): the path stalls are read off them
  std::vector<std::vector<Step>> page_steps;
  // set before the run: what a summary reads only (latency_lab.analysis.native.summary): the stall counts and the
  // restarts counted here (stalls, restarts), page_steps, events, notes and objects left empty
  bool summary_only = false;
  StallCounts stalls;
  long long restarts = 0;
};

inline void run_session(const Params& params, int protocol, long long allowance, bool want_packets, Output& out) {
  Session s(params, protocol, allowance);
  try {
    s.run();
  } catch (const WorkLimit& e) {
    out.status = OVER_BUDGET;
    out.steps = e.steps;
    return;
  }
  out.steps = s.eng.seq;
  for (size_t i = 0; i < s.objects.size(); ++i) {
    if (s.objects[i].end_pkt < 0) {
      out.status = INCOMPLETE;
      out.incomplete_object = static_cast<int>(i);
      return;
    }
  }
  const Engine& eng = s.eng;
  const bool summary = out.summary_only;
  std::vector<Step> steps;  // a summary's walk, counted and dropped
  for (size_t k = 0; k < s.page_end.size() && k < s.page_start.size(); ++k) {
    Ref st = s.page_start[k];
    int32_t final_pkt = s.page_end[k];
    std::vector<Step>* page_steps = &steps;
    if (summary) {
      steps.clear();
    } else {
      out.page_steps.emplace_back();
      page_steps = &out.page_steps.back();
    }
    Walk w = walk(eng, final_pkt, st == s.start ? NIL : st, page_steps);
    if (summary) count_stalls(steps, out.stalls);
    double t0 = eng.point_t(st);
    double t1 = eng.packets[final_pkt].t_a;
    out.page_load.push_back(t1 - t0);
    out.page_t0.push_back(t0);
    out.page_t1.push_back(t1);
    std::array<double, NCAT> acc;
    for (int c = 0; c < NCAT; ++c) acc[c] = w.acc[c];
    out.page_acc.push_back(acc);
    out.page_trips.push_back(w.trips);
  }
  if (summary) {
    for (const EventRec& e : s.events) out.restarts += e.kind == E_RESTART;
  } else {
    for (const ObjectRecord& r : s.objects) {
      out.obj_conn.push_back(r.connection);
      out.obj_start.push_back(r.start);
      out.obj_end.push_back(r.end);
    }
    out.events = s.events;
    out.notes = eng.notes;
  }
  out.connections = static_cast<long long>(s.conns.size());
  out.tls_handshakes = s.tls_handshakes;
  out.tls_bytes = s.tls_bytes;
  out.dns_lookups = s.dns_lookups;
  out.packets = static_cast<long long>(eng.packets.size());
  out.wire_bytes = eng.wire_bytes;
  for (int c : path_connections(s))
    if (s.conns[static_cast<size_t>(c)]->leg == 0) out.on_path.push_back(c);
  for (const auto& c : s.conns) {
    out.conn_legs.push_back(c->leg);
    out.conn_segments.push_back(c->client->segments + c->server->segments);
    out.conn_syns.push_back(c->syns);
    out.conn_syn_t.push_back(c->has_syn_t ? c->syn_t : 0.0);
  }
  if (want_packets) out.pkts = eng.packets;
  if (out.want_loss) loss_structure(s, protocol == 6, out.loss);  // 6: h3 (_native.pyx's PROTOCOLS)
}

}  // namespace ll
