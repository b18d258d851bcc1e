// latency-lab's native schedule engine: the float path of latency_lab/engine/core.py, latency_lab/engine/tcp.py,
// latency_lab/protocols/ (base, the seven drivers, multiplex, secure_setup, proxy) and latency_lab/analysis/critical_path.py
// written again in C++, statement for statement, so that every time is the same sum of the same terms in the
// same order as in the Python engine (the readable reference). Nothing here is new physics: each function
// names the Python function it follows; the mechanisms' closed forms are the ones of latency_lab/mechanisms/.
//
// Packets and points live in arrays and refer to each other by index; the events of the schedule sit in a
// binary heap keyed by (time, sequence number) as in core.Engine; callbacks are C++ closures. What a student
// reads (the sentences of the events) is built afterwards in Python from the numbers recorded here
// (latency_lab/engine/native/__init__.py), by the same functions the Python engine uses.
//
// Split proxies (seed 003) run here too (proxy.cpp); not covered: traced runs (linear forms, for formulas), which the
// Python engine makes. With network.loss_rate > 0 the loss analysis's reading of the schedule runs here too (loss.cpp).
// Compiled with -ffp-contract=off (setup.py) so that no multiply-add is fused: the sums round as Python's do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "params.hpp"

namespace ll {

// ------------------------------------------------------------------------------------------------ core.py
enum PKind : uint8_t { K_SYN = 0, K_SYNACK, K_ACK, K_DATA, K_FIN, K_RST };
// the breakdown categories, in latency_lab.analysis.critical_path.CATEGORIES' order
enum Cat : uint8_t { DNS = 0, CONN_SETUP, TLS_SETUP, REQUEST, SERVER, PROPAGATION, SERIALIZATION, SS_IDLE, DACK_STALL, NAGLE_STALL, NCAT };
enum CauseKind : uint8_t { CK_NONE = 0, CK_APP, CK_RELEASE, CK_ACK, CK_PACE, CK_ARRIVAL, CK_HANDSHAKE };
enum Reason : uint8_t { R_NONE = 0, R_WINDOW, R_NAGLE };

// object ids of packets (Python's Packet.obj): >= 0 an object of the page, else:
constexpr int OBJ_NONE = -1;  // None
constexpr int OBJ_TLS = -2;   // "tls" (secure_setup.TLS_OBJECT)
constexpr int OBJ_EMPTY = -3; // "" (an endpoint that wrote nothing)
constexpr int OBJ_SETTINGS = -4;  // "h2_settings" (multiplex.SETTINGS_OBJECT)

// a node of the cause graph: a packet (>= 0), a point (-2 - index) or nothing (-1)
using Ref = int32_t;
constexpr Ref NIL = -1;
inline Ref point_ref(int32_t i) { return -2 - i; }
inline bool is_point(Ref r) { return r <= -2; }
inline int32_t point_index(Ref r) { return -2 - r; }

struct Cause {
  CauseKind kind = CK_NONE;
  Ref ref = NIL;
  bool has_extra = false;
  double extra = 0.0;  // arrival: the timer's extra; pace: the interval
  Cat cat = SERIALIZATION;  // arrival: the category of the extra
  Reason reason = R_NONE;  // release: what had held the data
  int32_t note = -1;  // arrival of a delayed ACK: index into Engine::notes
};

// the cause ("arrival", base, None, cat) of a packet sent because ``base`` arrived
inline Cause arrival_cause(Ref base, Cat cat) {
  Cause c;
  c.kind = CK_ARRIVAL;
  c.ref = base;
  c.cat = cat;
  return c;
}

struct Packet {
  int conn;
  int dir;
  PKind kind;
  double n;  // payload bytes
  int options = 0;
  bool fin = false;
  bool has_held = false;
  double held = 0.0;
  int obj = OBJ_NONE;
  Cause cause;
  Ref prev = NIL;
  double t_q = 0, t_s = 0, tx = 0, t_e = 0, t_a = 0;
  long long wire = 0;
  double seq_end = 0, ack = 0;
};

struct Point {
  double t;
  Ref base;
  bool has_extra;
  double extra;
  Cat cat;
};

// why a delayed ACK was held (tcp.Endpoint._held_note's numbers)
struct Note {
  long long segs;
  long long nbytes;
  long long ep_dack_segments;
};

struct WorkLimit {  // core.Engine.over_budget: the steps reached
  long long steps;
};

struct Endpoint;
struct Connection;
struct Session;

enum EvType : uint8_t {
  EV_ARRIVE, EV_DACK_TIMER, EV_PACED, EV_CALL,
};

struct Event {
  double t;
  long long seq;
  EvType type;
  Endpoint* ep;
  int32_t a;  // packet index, or the timer's token
  int32_t b;  // the timer's first packet
  int32_t fn;  // EV_CALL: index into Engine::calls
};

struct Engine {
  const Quantities* q;
  std::vector<Event> heap;
  long long seq = 0;
  std::vector<double> link_free;  // two a leg (and the other origins' own paths): Quantities' links
  std::vector<Ref> link_last;
  std::vector<Packet> packets;
  std::vector<Point> points;
  std::vector<Note> notes;
  std::vector<std::function<void(double)>> calls;  // closures of EV_CALL events (freed as they run)
  long long wire_bytes = 0;
  long long max_seq;

  explicit Engine(const Quantities* q_, long long allowance)
      : q(q_), link_free(q_->k.size(), 0.0), link_last(q_->k.size(), NIL), max_seq(allowance) {
    packets.reserve(1024);
    points.reserve(256);
    heap.reserve(256);
  }

  Ref point(double t, Ref base, bool has_extra, double extra, Cat cat) {
    points.push_back(Point{t, base, has_extra, extra, cat});
    return point_ref(static_cast<int32_t>(points.size() - 1));
  }
  const Point& pt(Ref r) const { return points[point_index(r)]; }
  double point_t(Ref r) const { return points[point_index(r)].t; }

  void step(long long n = 1) {
    seq += n;
    if (seq > max_seq) throw WorkLimit{seq};
  }
  void ensure(long long n) {
    if (seq + n > max_seq) throw WorkLimit{seq + n};
  }

  struct Later {  // heap order: (t, seq) smallest first (a function object, so the heap's comparisons inline)
    bool operator()(const Event& a, const Event& b) const { return a.t > b.t || (a.t == b.t && a.seq > b.seq); }
  };
  void push(Event e) {
    heap.push_back(e);
    std::push_heap(heap.begin(), heap.end(), Later());
  }
  void at(double t, std::function<void(double)> fn) {
    step();
    calls.push_back(std::move(fn));
    push(Event{t, seq, EV_CALL, nullptr, 0, 0, static_cast<int32_t>(calls.size() - 1)});
  }
  void at_timer(double t, Endpoint* ep, int32_t token, int32_t first) {
    step();
    push(Event{t, seq, EV_DACK_TIMER, ep, token, first, -1});
  }
  void at_paced(double t, Endpoint* ep) {
    step();
    push(Event{t, seq, EV_PACED, ep, 0, 0, -1});
  }
  // core.Engine.transmit
  int32_t transmit(Packet&& pkt, double t, const Cause& cause, Endpoint* deliver) {
    int d = pkt.dir;
    pkt.t_q = t;
    pkt.cause = cause;
    double free = link_free[d];
    double start = t >= free ? t : free;
    int opt = pkt.options;
    double tx = (pkt.n + opt + q->o) * q->k[d];
    double end = start + tx;
    double arrival = end + q->d[d];
    pkt.t_s = start;
    pkt.tx = tx;
    pkt.t_e = end;
    pkt.t_a = arrival;
    pkt.wire = static_cast<long long>(pkt.n) + opt + q->o;
    wire_bytes += pkt.wire;
    pkt.prev = link_last[d];
    int32_t idx = static_cast<int32_t>(packets.size());
    link_last[d] = idx;
    link_free[d] = end;
    packets.push_back(std::move(pkt));
    step();
    push(Event{arrival, seq, EV_ARRIVE, deliver, idx, 0, -1});
    return idx;
  }
  void run();
};

// Python's float // and % (floats here are whole byte counts, but the rule is Python's)
inline double py_floordiv(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  double fl;
  if (div != 0) {
    fl = std::floor(div);
    if (div - fl > 0.5) fl += 1.0;
  } else {
    fl = std::copysign(0.0, a / b);
  }
  return fl;
}
inline double py_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

}  // namespace ll
