// latency_lab/engine/core.py's run loop and latency_lab/engine/tcp.py, statement for statement (see engine.hpp).
#include "session.hpp"

namespace ll {

void Engine::run() {  // core.Engine.run
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), Later());
    Event e = heap.back();
    heap.pop_back();
    switch (e.type) {
      case EV_ARRIVE:
        e.ep->arrive(e.t, e.a);
        break;
      case EV_DACK_TIMER:
        e.ep->timer(e.t, e.a, e.b);
        break;
      case EV_PACED:
        e.ep->paced_output(e.t);
        break;
      case EV_CALL: {
        std::function<void(double)> fn = std::move(calls[e.fn]);
        fn(e.t);
        break;
      }
    }
  }
}

// ----------------------------------------------------------------------------------------------- Endpoint
Endpoint::Endpoint(Connection* c, int side_, long long cwnd_) : conn(c), eng(c->eng), q(c->eng->q), side(side_) {
  const Params* p = q->p;
  dir = c->links[side_];
  mss = static_cast<double>(p->mss);
  mss_n = p->mss;
  rwnd_n = q->rwnd_n[c->leg];
  rwnd = static_cast<double>(rwnd_n);
  profile = p->profile;
  nagle = p->nagle;
  window_packets = p->window_packets;
  cwnd = cwnd_;
  cwnd_cap = rwnd_n / p->mss + 2;
  quick_ack = p->profile.ack_first_segment;
  quickacks = p->profile.quickack_segments;
  pingpong_ack = p->profile.pingpong_ack;
  if (pingpong_ack) quickacks += rwnd_n / (2 * p->mss);
  dack_bytes = p->profile.ack_counts_bytes;
  dack_segments = p->dack_segments;
  dack_ms = p->dack_ms;
  dack = p->dack_ms;
  idle_restart = p->idle_restart;
  rto = c->rto;
  rto_min = p->rto_min_ms;
}

double Endpoint::app_received() const {
  double r = rcv_n;
  double skip = 0.0;
  for (const auto& range : peer->hs_ranges) {
    if (range.first >= r) break;
    skip += std::min(range.second, r) - range.first;
  }
  return r - skip;
}

void Endpoint::write(double t, double nbytes, int obj, Ref point) {
  eng->step();
  end = end + nbytes;
  end_n += nbytes;
  obj_bounds.emplace_back(end_n, obj);
  Cause c;
  c.kind = CK_APP;
  c.ref = point;
  output(t, c);
}

void Endpoint::close(double t, Ref point) {
  closing = true;
  Cause c;
  c.kind = CK_APP;
  c.ref = point;
  output(t, c);
}

int Endpoint::obj_at(double offset) {
  size_t i = static_cast<size_t>(obj_i);
  while (i + 1 < obj_bounds.size() && offset >= obj_bounds[i].first) ++i;
  obj_i = static_cast<long long>(i);
  return obj_bounds.empty() ? OBJ_EMPTY : obj_bounds[i].second;
}

static inline bool nagle_may_send(double length, long long mss_bytes, bool is_all_buffered, bool nothing_outstanding,
                                  bool nagle_on, bool closing, bool half_window_rule, long long max_peer_window) {
  // latency_lab.mechanisms.nagle.may_send
  if (length >= static_cast<double>(mss_bytes)) return true;
  if (is_all_buffered && (nothing_outstanding || !nagle_on || closing)) return true;
  return half_window_rule && length >= static_cast<double>(max_peer_window) / 2;
}

void Endpoint::output(double t, Cause cause) {  // tcp.Endpoint.output (BSD tcp_output; seed 000, 2.3)
  if (hold) return;
  const bool at_entry = profile.nagle_idle_at_entry;
  const bool idle_at_entry = una >= nxt;
  const double end_ = end, endn = end_n;
  if (idle_at_entry && cause.kind == CK_APP && has_last_data_t && endn > nxt_n && t - last_data_t > rto) restart(t);
  bool first = true;
  while (true) {
    double avail_n = endn - nxt_n;
    if (avail_n <= 0) break;
    double outstanding = nxt - una;
    double win;
    if (window_packets) {  // tcp.window_counts_packets: a slot a packet, short or full; rwnd in bytes
      if (static_cast<long long>(seg_ends.size()) - seg_i >= cwnd) {
        block(R_WINDOW, 0);
        return;
      }
      win = rwnd - outstanding;
    } else {
      win = std::min(static_cast<double>(cwnd) * mss, rwnd) - outstanding;  // slow_start.usable_window_bytes
    }
    if (win <= 0) {
      block(R_WINDOW, 0);
      return;
    }
    double avail = end_ - nxt;
    double length = mss;
    if (avail < length) length = avail;
    if (win < length) length = win;
    if (length < static_cast<double>(mss_n)) {
      if (length < avail_n) {
        if (!(at_entry && length >= static_cast<double>(rwnd_n) / 2)) {
          block(R_WINDOW, length);
          return;
        }
      } else {
        bool nothing_out = at_entry ? idle_at_entry : outstanding <= 0;
        if (profile.nagle_minshall) nothing_out = sml_n <= una_n;
        bool closing_ = closing && profile.close_sends_held;
        if (!nagle_may_send(length, mss_n, true, nothing_out, nagle, closing_, at_entry, rwnd_n)) {
          block(R_NAGLE, length);
          return;
        }
      }
    }
    if (pacing) {
      if (next_pace > t) {
        eng->at_paced(next_pace, this);
        return;
      }
      if (last_paced != NIL && !(t > next_pace)) {
        Cause c;
        c.kind = CK_PACE;
        c.ref = last_paced;
        c.has_extra = true;
        c.extra = pace_interval;
        cause = c;
      }
      next_pace = t + pace_interval;
    }
    if (first) {
      if (blocked != R_NONE) released(t, cause);
      first = false;
    }
    double length_n = length;
    Packet pkt{conn->id, dir, K_DATA, length_n};
    if (length_n > 0) segments += 1;
    pkt.obj = obj_at(nxt_n);
    if (!hs_ranges.empty() && pkt.obj == OBJ_TLS) pkt.obj = obj_at(nxt_n + length_n - 1);
    nxt = nxt + length;
    nxt_n += length_n;
    if (closing && nxt_n >= endn) {
      pkt.fin = true;
      fin_sent = true;
    }
    int32_t idx = send(std::move(pkt), t, cause);
    if (length_n > 0) track(t, length_n);
    has_last_end = true;
    last_end = eng->packets[idx].t_e;
    has_last_data_t = true;
    last_data_t = t;
    if (pacing) last_paced = idx;
  }
  if (closing && !fin_sent && nxt_n >= endn) {
    fin_sent = true;
    Packet fin{conn->id, dir, K_FIN, 0.0};
    fin.fin = true;
    send(std::move(fin), t, cause);
  }
  blocked = R_NONE;
}

void Endpoint::restart(double t) {  // tcp.Endpoint._restart (seed 000, 2.4)
  double idle = t - last_data_t;
  if (idle_restart == IR_SLOW_START) {
    // rto.restart_window
    long long iw = q->p->iw;
    long long restart_w = std::min(iw, cwnd);
    if (profile.restart_halves_per_rto) {
      long long w = cwnd;
      double delta = idle - rto;
      while (delta > 0 && w > restart_w) {
        w >>= 1;
        delta -= rto;
      }
      restart_w = std::max(w, restart_w);
    }
    if (restart_w < cwnd) {
      conn->session->record_restart(this, t, idle, cwnd, restart_w);
      restart_t.push_back(t);
      cwnd = restart_w;
    }
  } else if (idle_restart == IR_PACED && cwnd > 1) {
    pacing = true;
    pace_interval = (q->d[conn->links[0]] + q->d[conn->links[1]]) * (1.0 / static_cast<double>(cwnd));
    next_pace = t;
    last_paced = NIL;
    conn->session->record_restart(this, t, idle, cwnd, cwnd);
  }
}

void Endpoint::track(double t, double length_n) {
  seg_ends.push_back(nxt_n);
  seg_sent.push_back(t);
  if (timed_i < 0) timed_i = static_cast<long long>(seg_ends.size()) - 1;
  if (length_n < static_cast<double>(mss_n)) sml_n = nxt_n;
  long long out = static_cast<long long>(seg_ends.size()) - seg_i;
  if (una_n >= max_seq_n || out > max_out) {
    max_out = out;
    max_seq_n = nxt_n;
  }
}

long long Endpoint::acked_segs(double t, double ack_n) {
  long long first = seg_i, i = seg_i;
  long long n = static_cast<long long>(seg_ends.size());
  while (i < n && seg_ends[i] <= ack_n) ++i;
  if (i == first) return 0;
  seg_i = i;
  if (!profile.rtt_times_one_segment) {
    rtt_sample(t, seg_sent[first]);
  } else if (0 <= timed_i && timed_i < i) {
    rtt_sample(t, seg_sent[timed_i]);
    timed_i = -1;
  }
  return i - first;
}

void Endpoint::rtt_sample(double t, double sent) {  // latency_lab.mechanisms.rto (RFC 6298)
  double r = t - sent;
  if (srtt < 0) {
    srtt = r;
    rttvar = r / 2;
  } else {
    double var = (1 - 0.25) * rttvar + 0.25 * std::fabs(srtt - r);
    srtt = (1 - 0.125) * srtt + 0.125 * r;
    rttvar = var;
  }
  double g = profile.rto_granularity_ms, v = 4 * rttvar, value;
  if (profile.rto_min_on_variation) {
    value = srtt + std::max(std::max(g, v), rto_min);
  } else {
    value = std::max(rto_min, srtt + std::max(g, v));
  }
  rto = std::min(value, profile.rto_max_ms);
  rto_log.emplace_back(t, rto);
}

void Endpoint::paced_output(double t) {
  Cause c;
  c.kind = CK_PACE;
  c.ref = last_paced;
  c.has_extra = true;
  c.extra = pace_interval;
  output(t, c);
}

void Endpoint::block(Reason reason, double length) {
  blocked = reason;
  blocked_len = static_cast<long long>(length);
  if (reason == R_WINDOW) {
    double full = std::min(static_cast<double>(cwnd * mss_n), static_cast<double>(rwnd_n));
    blocked_window = static_cast<long long>(full);
  }
}

void Endpoint::released(double t, const Cause& cause) {
  if (blocked == R_NONE || cause.kind != CK_RELEASE || !has_last_end) return;
  double gap = t - last_end;
  if (gap <= 1e-9) return;
  conn->session->record_idle(this, cause.reason, t, gap, cause.ref, obj_at(nxt_n));
}

int32_t Endpoint::send(Packet&& pkt, double t, const Cause& cause) {
  pkt.seq_end = nxt;
  pkt.ack = rcv;
  if (pkt.n > 0) {
    quick_ack = false;
    if (pingpong_ack && last_rcv_t >= 0 && t - last_rcv_t < dack_ms) pingpong = true;
  }
  un_bytes = 0.0;
  un_segs = 0;
  first_pkt = NIL;
  token += 1;
  return eng->transmit(std::move(pkt), t, cause, peer);
}

int32_t Endpoint::send_control(PKind kind, double t, const Cause& cause, bool fin) {
  Packet pkt{conn->id, dir, kind, 0.0};
  pkt.fin = fin;
  return send(std::move(pkt), t, cause);
}

void Endpoint::arrive(double t, int32_t pi) {  // tcp.Endpoint.arrive
  std::vector<Packet>& pk = eng->packets;
  PKind kind = pk[pi].kind;
  if (kind == K_SYN) {
    conn->syn_arrived(t, pi);
    return;
  }
  if (kind == K_SYNACK) {
    conn->synack_arrived(t, pi);
    return;
  }
  if (last_ack >= 0) {
    if (last_ack == 1) send_control(K_RST, t, arrival_cause(pi, CONN_SETUP));
    last_ack = 1;
    return;
  }
  bool acked = false;
  double ack = pk[pi].ack;
  if (ack > una) {
    acked = true;
    pacing = false;
    una = ack;
    long long packets = acked_segs(t, ack);
    if (cwnd < cwnd_cap) {
      if (profile.cwnd_counts_packets) {
        if (!profile.cwnd_limited_growth || cwnd < 2 * max_out) cwnd = std::min(cwnd + packets, cwnd_cap);
      } else if (profile.cwnd_counts_bytes) {
        // slow_start.window_after_ack_bytes
        double acked_n = ack - una_n;
        double total = acked_carry + acked_n;
        if (total >= static_cast<double>(mss_n)) {
          long long add = static_cast<long long>(py_floordiv(total, static_cast<double>(mss_n)));
          cwnd = cwnd + std::min(add, profile.cwnd_abc_limit_segments);
          acked_carry = py_mod(total, static_cast<double>(mss_n));
        } else {
          acked_carry = total;
        }
        cwnd = std::min(cwnd, cwnd_cap);
      } else {
        cwnd = cwnd + 1;
      }
    }
    una_n = ack;
  } else if (kind == K_ACK && pk[pi].cause.kind == CK_HANDSHAKE) {
    conn->handshake_ack_arrived(t, pi);
  }
  if (eng->packets[pi].n > 0) receive(t, pi, eng->packets[pi].n);
  if (eng->packets[pi].fin) {
    if (on_fin == FH_SERVER_ACK) {
      conn->session->server_fin(conn, t, pi);
    } else if (on_fin == FH_CLIENT_CLOSE) {
      conn->session->client_fin(conn, t, pi);
    }
  }
  if (acked) {
    Cause c;
    if (blocked != R_NONE) {
      c.kind = CK_RELEASE;
      c.reason = blocked;
    } else {
      c.kind = CK_ACK;
    }
    c.ref = pi;
    output(t, c);
  }
}

void Endpoint::receive(double t, int32_t pi, double payload) {  // tcp.Endpoint._receive
  bool quick = quickacks > 0 && !pingpong;
  bool first_data = quick_ack || quick || (ack_handshake && eng->packets[pi].obj == OBJ_TLS);
  quick_ack = false;
  if (quick) quickacks -= 1;
  if (pingpong_ack) last_rcv_t = t;
  rcv = eng->packets[pi].seq_end;
  rcv_n += payload;
  un_bytes += payload;
  un_segs += 1;
  if (first_pkt == NIL) first_pkt = pi;
  last_pkt = pi;
  const bool deliver_first = profile.deliver_before_ack;
  Session* s = conn->session;
  if (deliver_first && on_data != DH_NONE) s->data(this, t, pi);
  if (eng->packets[pi].fin) {
    // the FIN is acknowledged at once, with the close (see Connection)
  } else if (first_data || dack_ms <= 0 ||
             (dack_bytes ? un_bytes >= static_cast<double>(dack_segments * mss_n) : un_segs >= dack_segments)) {
    // delayed_ack.ack_now
    send_control(K_ACK, t, arrival_cause(pi, SERIALIZATION));
  } else {
    if (un_segs == 1) {
      double expiry = t + dack;  // delayed_ack.ack_time_ms
      eng->at_timer(expiry, this, token, first_pkt);
    }
  }
  if (!deliver_first && on_data != DH_NONE) s->data(this, t, pi);
}

void Endpoint::timer(double t, int32_t tok, int32_t first) {  // tcp.Endpoint._timer
  if (tok != token || un_segs == 0) return;
  int32_t last = last_pkt;
  pingpong = false;  // linux: a delayed ACK that had to wait ends pingpong mode
  eng->notes.push_back(Note{un_segs, static_cast<long long>(un_bytes), dack_segments});
  Cause c;
  c.kind = CK_ARRIVAL;
  c.ref = first;
  c.has_extra = true;
  c.extra = dack;
  c.cat = DACK_STALL;
  c.note = static_cast<int32_t>(eng->notes.size() - 1);
  int32_t pi = send_control(K_ACK, t, c);
  Packet& pkt = eng->packets[pi];
  pkt.has_held = true;
  pkt.held = t - eng->packets[last].t_a;  // delayed_ack.stall_ms
  pkt.obj = eng->packets[last].obj;
}

// --------------------------------------------------------------------------------------------- Connection
Connection::Connection(Session* s, int conn_id, int leg_) : session(s), eng(&s->eng), id(conn_id), leg(leg_) {
  links[0] = 2 * leg_;
  links[1] = 2 * leg_ + 1;
  const Params* p = s->p;
  if (leg_ >= ORIGIN_LEG) {  // another origin's own path (page.origins' rtt_ms): its own initial timeout
    rto = p->origin_rto_ms[static_cast<size_t>(leg_ - ORIGIN_LEG)];
  } else {
    rto = !p->has_proxy || leg_ == 0 ? p->rto_ms : leg_ == 1 ? p->rto_c : p->rto_s;
  }
  client = std::make_unique<Endpoint>(this, 0, s->p->iw);
  server = std::make_unique<Endpoint>(this, 1, s->p->iw);
  client->peer = server.get();
  server->peer = client.get();
}

static inline long long syn_option_bytes(long long rwnd, bool fast_open) {  // connection_setup.syn_option_bytes
  return (rwnd > 65535 ? 4 : 0) + (fast_open ? 12 : 0);
}

void Connection::open(Ref point, int mode) {  // tcp.Connection.open
  const Params* p = eng->q->p;
  if (mode == HS_WARM) {
    // open long ago and kept busy: both windows as open as the receive window lets them be, and slow start only once
    // per connection, so no restart after idle (seed 003, Proxy Servers)
    for (Endpoint* ep : {client.get(), server.get()}) {
      ep->cwnd = ep->cwnd_cap;
      ep->idle_restart = IR_KEEP;
    }
    return;
  }
  double pt_t = eng->point_t(point);
  if (mode == HS_NONE) {
    server->cwnd = p->profile.syn_ack_opens_window ? p->iw + 1 : p->iw;
    if (on_open) {
      auto fn = on_open;
      fn(pt_t, point);
    }
    return;
  }
  Endpoint* c = client.get();
  long long options = syn_option_bytes(c->rwnd_n, mode == HS_FAST_OPEN);
  double payload = 0.0;
  if ((mode == HS_TTCP || mode == HS_FAST_OPEN) && c->end_n > c->nxt_n) {
    payload = c->end_n - c->nxt_n;
    long long cap = p->mss - options;  // connection_setup.fast_open_syn_data_bytes
    if (mode == HS_FAST_OPEN && payload > static_cast<double>(cap)) payload = static_cast<double>(cap);
    c->nxt = c->nxt + payload;
    c->nxt_n = c->nxt_n + payload;
    c->has_last_data_t = true;
    c->last_data_t = pt_t;
  }
  Packet pkt{id, links[0], K_SYN, payload};
  syns += 1;
  if (!has_syn_t) {
    has_syn_t = true;
    syn_t = pt_t;
  }
  pkt.options = static_cast<int>(options);
  pkt.obj = payload != 0.0 ? c->obj_at(c->nxt_n - payload) : OBJ_NONE;
  pkt.seq_end = c->nxt;
  pkt.ack = c->rcv;
  Cause cause;
  cause.kind = CK_APP;
  cause.ref = point;
  eng->transmit(std::move(pkt), pt_t, cause, server.get());
}

void Connection::syn_arrived(double t, int32_t syn) {
  Endpoint* s = server.get();
  double n = eng->packets[syn].n;
  if (n > 0) {
    s->rcv = eng->packets[syn].seq_end;
    s->rcv_n += n;
  }
  Packet pkt{id, links[1], K_SYNACK, 0.0};
  synack_t = t;
  pkt.options = static_cast<int>(syn_option_bytes(s->rwnd_n, false));
  pkt.seq_end = s->nxt;
  pkt.ack = s->rcv;
  eng->transmit(std::move(pkt), t, arrival_cause(syn, CONN_SETUP), client.get());
  if (n > 0 && s->on_data != DH_NONE) session->data(s, t, syn);
}

void Connection::synack_arrived(double t, int32_t synack) {
  Endpoint* c = client.get();
  double ack = eng->packets[synack].ack;
  if (ack > c->una) {
    c->una = ack;
    c->una_n = ack;
  }
  if (has_syn_t) c->rtt_sample(t, syn_t);
  Cause hs;
  hs.kind = CK_HANDSHAKE;
  hs.ref = synack;
  c->send_control(K_ACK, t, hs);
  if (c->end_n > c->nxt_n) {
    c->output(t, hs);
    c->quick_ack = c->profile.ack_first_segment;
  }
  if (on_open) {
    Ref point = eng->point(t, synack, false, 0.0, CONN_SETUP);
    auto fn = on_open;
    fn(t, point);
  }
}

void Connection::handshake_ack_arrived(double t, int32_t pi) {
  (void)pi;
  if (synack_t >= 0) {
    server->rtt_sample(t, synack_t);
    synack_t = -1.0;
  }
  if (eng->q->p->profile.syn_ack_opens_window) server->cwnd += 1;
}

}  // namespace ll
