// latency_lab/analysis/critical_path.walk and expected_loss.path_connections in C++ (see engine.hpp).
#include "api.hpp"

namespace ll {

// ------------------------------------------------------------------------------------------- critical path
static inline Cat category_of(const Packet& pkt) {
  PKind kind = pkt.kind;
  if (kind == K_SYN || kind == K_SYNACK || kind == K_FIN || kind == K_RST || (kind == K_ACK && pkt.cause.kind == CK_HANDSHAKE))
    return CONN_SETUP;
  if (pkt.obj == OBJ_TLS) return TLS_SETUP;
  return (pkt.dir & 1) ? SERIALIZATION : REQUEST;
}

Walk walk(const Engine& eng, int32_t final_pkt, Ref stop) { return walk(eng, final_pkt, stop, nullptr); }

Walk walk(const Engine& eng, int32_t final_pkt, Ref stop, std::vector<Step>* steps) {
  Walk w{};
  for (double& x : w.acc) x = 0.0;
  w.trips = 0;
  Ref node = final_pkt;
  bool arriving = true, queued = false;
  int role = -1;  // a Cat while following an ACK back
  Cat last = SERIALIZATION;
  bool split = false;  // the last step was a packet's serialization and flight toward the client
  double last_tx = 0.0;
  const bool has_stop = stop != NIL;
  const double stop_t = has_stop ? eng.point_t(stop) : 0.0;
  while (node != NIL) {
    if (has_stop) {
      if (node == stop) break;
      double at;
      if (is_point(node)) {
        at = eng.pt(node).t;
      } else {
        const Packet& pk = eng.packets[node];
        at = arriving ? pk.t_a : queued ? pk.t_q : pk.t_s;
      }
      if (at < stop_t) {
        double over = stop_t - at;
        if (split) {
          double part = last_tx < over ? last_tx : over;
          w.acc[SERIALIZATION] = w.acc[SERIALIZATION] - part;
          w.acc[PROPAGATION] = w.acc[PROPAGATION] - (over - part);
          if (steps) {
            steps->push_back({SERIALIZATION, -part, -1, OBJ_NONE});
            steps->push_back({PROPAGATION, -(over - part), -1, OBJ_NONE});
          }
        } else {
          w.acc[last] = w.acc[last] - over;
          if (steps) steps->push_back({last, -over, -1, OBJ_NONE});
        }
        break;
      }
    }
    if (is_point(node)) {
      const Point& pt = eng.pt(node);
      if (pt.has_extra) {
        w.acc[pt.cat] = w.acc[pt.cat] + pt.extra;
        if (steps) steps->push_back({pt.cat, pt.extra, -1, OBJ_NONE});
        last = pt.cat;
        split = false;
      }
      node = pt.base;
      arriving = true;
      role = -1;
      continue;
    }
    const Packet& p = eng.packets[node];
    if (arriving) {
      Cat cat = category_of(p);
      split = false;
      if (role < 0) {
        if (cat == SERIALIZATION) {
          w.acc[cat] = w.acc[cat] + p.tx;
          w.acc[PROPAGATION] = w.acc[PROPAGATION] + (p.t_a - p.t_e);
          if (steps) {
            steps->push_back({PROPAGATION, p.t_a - p.t_e, p.conn, p.obj});
            steps->push_back({cat, p.tx, p.conn, p.obj});
          }
          split = true;
          last_tx = p.tx;
        } else {
          w.acc[cat] = w.acc[cat] + (p.t_a - p.t_s);
          if (steps) steps->push_back({cat, p.t_a - p.t_s, p.conn, p.obj});
        }
      } else if (p.kind == K_DATA && p.n > 0) {
        w.acc[cat] = w.acc[cat] + p.tx;
        w.acc[role] = w.acc[role] + (p.t_a - p.t_e);
        if (steps) {
          steps->push_back({role, p.t_a - p.t_e, p.conn, p.obj});
          steps->push_back({cat, p.tx, p.conn, p.obj});
        }
        role = -1;
      } else {
        w.acc[role] = w.acc[role] + (p.t_a - p.t_s);
        if (steps) steps->push_back({role, p.t_a - p.t_s, p.conn, p.obj});
      }
      last = role >= 0 ? static_cast<Cat>(role) : cat;
      if (p.dir == 1) w.trips += 1;
      arriving = false;
      continue;
    }
    Ref prev = p.prev;
    if (!queued && prev != NIL && p.t_s > p.t_q) {
      const Packet& pv = eng.packets[prev];
      Cat cat = role >= 0 ? static_cast<Cat>(role) : category_of(pv);
      w.acc[cat] = w.acc[cat] + pv.tx;
      if (steps) steps->push_back({cat, pv.tx, pv.conn, pv.obj});
      last = cat;
      split = false;
      node = prev;
      continue;
    }
    queued = false;
    const Cause& cause = p.cause;
    switch (cause.kind) {
      case CK_APP:
        node = cause.ref;
        role = -1;
        break;
      case CK_RELEASE:
        node = cause.ref;
        role = cause.reason == R_NAGLE ? NAGLE_STALL : SS_IDLE;
        arriving = true;
        break;
      case CK_PACE:
        w.acc[SS_IDLE] = w.acc[SS_IDLE] + cause.extra;
        if (steps) steps->push_back({SS_IDLE, cause.extra, p.conn, p.obj});
        last = SS_IDLE;
        split = false;
        node = cause.ref;
        queued = true;
        break;
      case CK_ARRIVAL: {
        if (cause.has_extra) {
          Cat cat = cause.cat;
          if (role == NAGLE_STALL) cat = NAGLE_STALL;
          w.acc[cat] = w.acc[cat] + cause.extra;
          if (steps) steps->push_back({cat, cause.extra, p.conn, p.obj});
          last = cat;
          split = false;
        }
        node = cause.ref;
        arriving = true;
        break;
      }
      case CK_HANDSHAKE:
      case CK_ACK:
        node = cause.ref;
        arriving = true;
        break;
      default:
        node = NIL;
    }
  }
  return w;
}

std::vector<int> path_connections(const Session& s) {
  const Engine& eng = s.eng;
  std::vector<char> seen_pk(eng.packets.size(), 0), seen_pt(eng.points.size(), 0), on(s.conns.size(), 0);
  for (int32_t final_pkt : s.page_end) {
    Ref node = final_pkt;
    while (node != NIL) {
      if (is_point(node)) {
        int32_t i = point_index(node);
        if (seen_pt[i]) break;
        seen_pt[i] = 1;
        node = eng.points[i].base;
      } else {
        if (seen_pk[node]) break;
        seen_pk[node] = 1;
        const Packet& p = eng.packets[node];
        on[p.conn] = 1;
        node = p.cause.kind != CK_NONE ? p.cause.ref : NIL;
      }
    }
  }
  std::vector<int> out;
  for (size_t c = 0; c < on.size(); ++c)
    if (on[c]) out.push_back(static_cast<int>(c));
  return out;
}

}  // namespace ll
