// model/protocols/ in C++ (base.py, secure_setup.py, multiplex.py, h3.py and the drivers) and
// model/analysis/critical_path.walk, statement for statement (see engine.hpp).
#include "session.hpp"

namespace ll {

using DoneFn = std::function<void(int, double, int32_t)>;

Session::Session(const Params& params, int protocol_, long long allowance)
    : pp(params), q(&pp), p(&pp), eng(&q, allowance), protocol(protocol_) {
  int id = 0;
  for (long long k = 0; k < p->pages; ++k) {
    std::vector<int> names;
    objects.push_back(ObjectRecord{p->html, static_cast<int>(k)});
    names.push_back(id++);
    for (long long size : p->objects) {
      objects.push_back(ObjectRecord{size, static_cast<int>(k)});
      names.push_back(id++);
    }
    page_names.push_back(std::move(names));
  }
  start = eng.point(0.0, NIL, false, 0.0, REQUEST);
  page_start.push_back(start);
  page_left = static_cast<long long>(page_names[0].size());
}

void Session::run() {
  driver(page_names[0], start);
  eng.run();
}

void Session::object_done(int name, double t, int32_t pkt) {
  if (objects[name].page != page) return;
  page_left -= 1;
  if (page_left) return;
  page_end.push_back(pkt);
  if (page + 1 >= p->pages) return;
  if (keep_conn != nullptr && p->has_idle_timeout && p->user_think > p->idle_timeout) {
    Connection* conn = keep_conn;
    eng.at(t + p->idle_timeout, [this, conn](double t_) {
      // _idle_close: the server's idle timeout closes the persistent connection (seed 002, section 4)
      conn->server->close(t_, eng.point(t_, NIL, false, 0.0, CONN_SETUP));
    });
    keep_conn = nullptr;
  }
  Ref st = eng.point(t + p->user_think, pkt, false, 0.0, REQUEST);
  eng.at(eng.point_t(st), [this, st](double) { next_page(st); });
}

void Session::next_page(Ref st) {
  page += 1;
  page_start.push_back(st);
  page_left = static_cast<long long>(page_names[page].size());
  driver(page_names[page], st);
}

void Session::persistent(Ref st, std::function<void(Connection*, Ref)> on_open) {
  Connection* conn = keep_conn;
  if (conn != nullptr) {
    on_open(conn, st);
    return;
  }
  int mode = open_mode();
  st = after_lookup(st);
  conn = new_connection(false);
  keep_conn = conn;
  auto ready = secure(conn, mode, [on_open, conn](Ref point) { on_open(conn, point); });
  if (mode == HS_TTCP || mode == HS_FAST_OPEN) {
    ttcp(conn, st, [ready, st]() { ready(st); }, mode);
    return;
  }
  conn->on_open = [ready](double, Ref point) { ready(point); };
  conn->open(st, mode);
}

int Session::open_mode() {
  int mode = p->handshake;
  if (mode == HS_TTCP && conns.empty()) return HS_THREE_WAY;  // every connection is on the client's leg
  return mode;
}

void Session::record_restart(Endpoint* ep, double t, double idle, long long before, long long after) {
  restarts += 1;
  EventRec e{};
  e.kind = E_RESTART;
  e.conn = ep->conn->id;
  e.side = ep->side;
  e.t = t;
  e.gap = idle;
  e.rto = ep->rto;
  e.before = before;
  e.after = after;
  e.note = -1;
  e.obj = ep->obj_at(ep->nxt_n);
  events.push_back(e);
}

void Session::record_idle(Endpoint* ep, Reason reason, double t, double gap, int32_t ack, int obj) {
  const Packet& a = eng.packets[ack];
  EventRec e{};
  e.kind = E_IDLE;
  e.reason = reason;
  e.conn = ep->conn->id;
  e.side = ep->side;
  e.obj = obj;
  e.t = t;
  e.gap = gap;
  e.blocked_len = ep->blocked_len;
  e.blocked_window = ep->blocked_window;
  e.rwnd_n = ep->rwnd_n;
  e.has_held = a.has_held;
  e.held = a.held;
  e.peer_dack_ms = ep->peer->dack_ms;
  e.note = a.cause.kind == CK_ARRIVAL ? a.cause.note : -1;
  events.push_back(e);
}

Connection* Session::add_connection() {
  conns.push_back(std::make_unique<Connection>(this, static_cast<int>(conns.size())));
  return conns.back().get();
}

Connection* Session::new_connection(bool close_after) {
  Connection* conn = add_connection();
  conn->close_after = close_after;
  if (p->idle_restart == IR_FAST_START && has_cwnd_cache) {
    conn->server->cwnd = std::max(conn->server->cwnd, cwnd_cache);  // TCP fast start (seed 001, 5.2)
  }
  conn->server->on_data = DH_SERVER;
  conn->client->on_data = DH_CLIENT;
  conn->client->on_fin = FH_CLIENT_CLOSE;
  conn->server->on_fin = FH_SERVER_ACK;
  return conn;
}

static inline Cause arrival(Ref base, Cat cat) {
  Cause c;
  c.kind = CK_ARRIVAL;
  c.ref = base;
  c.cat = cat;
  return c;
}

void Session::client_fin(Connection* conn, double t, int32_t pkt) {
  Cause cause = arrival(pkt, CONN_SETUP);
  if (eng.packets[pkt].n > 0 && p->profile.fin_on_data_acked_alone) conn->client->send_control(K_ACK, t, cause);
  conn->client->send_control(K_FIN, t, cause, true);
  if (conn->client->profile.last_ack_any_ack) conn->client->last_ack = 0;
}

void Session::server_fin(Connection* conn, double t, int32_t pkt) {
  conn->server->send_control(K_ACK, t, arrival(pkt, CONN_SETUP));
}

Ref Session::think(Ref point) {
  if (p->client_think <= 0) return point;
  return eng.point(eng.point_t(point) + p->client_think, point, true, p->client_think, REQUEST);
}

void Session::request(Connection* conn, std::vector<int> names, Ref point, DoneFn on_done) {
  reg(conn, names, point, on_done);
  int first = names[0];
  double nbytes = static_cast<double>(p->request);
  eng.at(eng.point_t(point), [conn, nbytes, first, point](double t) { conn->client->write(t, nbytes, first, point); });
}

void Session::requests_in_one_write(Connection* conn, const std::vector<std::vector<int>>& reqs, Ref point, DoneFn on_done) {
  for (const auto& names : reqs) reg(conn, names, point, on_done);
  int first = reqs[0][0];
  double nbytes = static_cast<double>(p->request * static_cast<long long>(reqs.size()));
  eng.at(eng.point_t(point), [conn, nbytes, first, point](double t) { conn->client->write(t, nbytes, first, point); });
}

void Session::reg(Connection* conn, const std::vector<int>& names, Ref point, const DoneFn& on_done) {
  conn->on_done = on_done;
  conn->requests.push_back(names);
  for (int name : names) {
    ObjectRecord& rec = objects[name];
    rec.connection = conn->id;
    if (!rec.has_start) {
      rec.has_start = true;
      rec.start = eng.point_t(point);
    }
    conn->expect_end += static_cast<double>(rec.bytes + p->header);
    conn->expect.emplace_back(conn->expect_end, name);
  }
}

Connection* Session::fetch_on_new_connection(std::vector<int> names, Ref point, DoneFn on_done) {
  int mode = open_mode();
  for (int name : names) {
    if (!objects[name].has_start) {
      objects[name].has_start = true;
      objects[name].start = eng.point_t(point);
    }
  }
  point = after_lookup(point);
  Connection* conn = new_connection(true);
  auto ready = secure(conn, mode, [this, conn, names, on_done](Ref pt) { request(conn, names, think(pt), on_done); });
  if (mode == HS_TTCP || mode == HS_FAST_OPEN) {
    ttcp(conn, point, [ready, point]() { ready(point); }, mode);
    return conn;
  }
  conn->on_open = [ready](double, Ref pt) { ready(pt); };
  conn->open(point, mode);
  return conn;
}

void Session::ttcp(Connection* conn, Ref st, const std::function<void()>& write_request, int mode) {
  conn->client->hold = true;
  write_request();
  Ref point = think(st);
  eng.at(eng.point_t(point), [conn, point, mode](double) {
    conn->client->hold = false;
    conn->open(point, mode);
  });
}

// --------------------------------------------------------------------------------------------------- server
void Session::server_data(Connection* conn, double t, int32_t pkt) {
  if (conn->tls != nullptr) conn->tls->server_data(t, pkt);
  if (conn->mux != nullptr) {
    conn->mux->server_data(t, pkt);
    return;
  }
  long long done = static_cast<long long>(py_floordiv(conn->server->app_received(), static_cast<double>(p->request)));
  while (conn->served < done) {
    long long idx = conn->served;
    conn->served += 1;
    double extra = p->server_think;
    if (idx == 0 && p->conn_overhead > 0) extra = extra + p->conn_overhead;
    Ref last = conn->last_write;
    Ref base = pkt;
    double begin = eng.packets[pkt].t_a;
    if (last != NIL && eng.point_t(last) > begin) {
      base = last;
      begin = eng.point_t(last);
    }
    double w = begin + extra;
    Ref point = eng.point(w, base, extra > 0, extra, SERVER);
    conn->last_write = point;
    const std::vector<int>& names = conn->requests.at(static_cast<size_t>(idx));
    bool last_response = conn->close_after && idx == static_cast<long long>(conn->requests.size()) - 1;
    eng.at(w, [this, conn, names, point, last_response](double t_) { server_write(t_, conn, names, point, last_response); });
  }
}

static void chunks(std::vector<double>& out, double total, long long chunk) {  // base._chunks
  out.clear();
  if (total <= 0) return;
  if (chunk <= 0 || total <= static_cast<double>(chunk)) {
    out.push_back(total);
    return;
  }
  long long n_full = static_cast<long long>(py_floordiv(total - 1, static_cast<double>(chunk)));
  double c = static_cast<double>(chunk);
  for (long long i = 0; i < n_full; ++i) out.push_back(c);
  out.push_back(total - c * static_cast<double>(n_full));
}

void Session::server_write(double t, Connection* conn, const std::vector<int>& names, Ref point, bool close) {
  Endpoint* srv = conn->server.get();
  long long chunk = p->write;
  if (chunk > 0) {
    long long n = 0;
    for (int name : names) n += (objects[name].bytes + p->header) / chunk;
    eng.ensure(n);
  }
  std::vector<double> parts;
  for (int name : names) {
    double body = static_cast<double>(objects[name].bytes);
    if (p->header_flush && !(conn->close_after && p->flush_persistent_only)) {
      if (p->header > 0) srv->write(t, static_cast<double>(p->header), name, point);
      chunks(parts, body, chunk);
    } else {
      chunks(parts, static_cast<double>(p->header) + body, chunk);
    }
    for (double part : parts) srv->write(t, part, name, point);
  }
  if (close) srv->close(t, point);
}

// --------------------------------------------------------------------------------------------------- client
void Session::client_data(Connection* conn, double t, int32_t pkt) {
  if (conn->tls != nullptr) conn->tls->client_data(t, pkt);
  double rcv = conn->client->app_received();
  while (conn->expect_i < conn->expect.size() && rcv >= conn->expect[conn->expect_i].first) {
    int name = conn->expect[conn->expect_i].second;
    conn->expect_i += 1;
    ObjectRecord& rec = objects[name];
    rec.has_end = true;
    rec.end = t;
    rec.end_pkt = pkt;
    has_cwnd_cache = true;
    cwnd_cache = conn->server->cwnd;
    DoneFn fn = conn->on_done;
    fn(name, t, pkt);
    object_done(name, t, pkt);
  }
}

// ---------------------------------------------------------------------------------------------- secure_setup
static Handshake tls_handshake(int version, bool resumed, bool early_data, long long hello, long long flight,
                               bool false_start) {
  // model.mechanisms.tls.handshake
  if (version == TLS_13) {
    if (resumed && early_data) return Handshake{{hello, 230, 90}, 0};
    if (resumed) return Handshake{{hello, 230, 64}, 2};
    return Handshake{{hello, flight, 64}, 2};
  }
  if (resumed) return Handshake{{hello, 141, 51}, 2};
  if (false_start) return Handshake{{hello, flight, 126, 51}, 2};  // RFC 7918: the request with the client's Finished
  return Handshake{{hello, flight, 126, 51}, 4};
}

static inline bool tls_resumed(int resumption, size_t earlier) {  // tls.resumed
  return resumption == RES_ALL || (resumption == RES_AFTER_FIRST && earlier > 0);
}

std::function<void(Ref)> Session::secure(Connection* conn, int mode, std::function<void(Ref)> then) {
  if (p->tls == TLS_NONE || mode == HS_NONE) return then;
  bool resumed = tls_resumed(p->tls_resumption, conns.size() - 1);
  Handshake hs = tls_handshake(p->tls, resumed, p->tls_early_data, p->tls_client_hello, p->tls_server_flight,
                               p->tls_false_start);
  tls_handshakes += 1;
  return [this, conn, hs, then](Ref point) {
    dialogues.push_back(std::make_unique<Dialogue>(this, conn, hs, then));
    dialogues.back()->start(point);
  };
}

Ref Session::after_lookup(Ref point) {
  if (!conns.empty() || dns_done || p->dns_ms <= 0) return point;
  dns_done = true;
  dns_lookups += 1;
  return eng.point(eng.point_t(point) + p->dns_ms, point, true, p->dns_ms, DNS);
}

Dialogue::Dialogue(Session* s, Connection* c, Handshake h, std::function<void(Ref)> th)
    : session(s), conn(c), hs(std::move(h)), then(std::move(th)) {
  c->tls = this;
}

void Dialogue::write(Endpoint* ep, long long nbytes, Ref point, bool hold) {
  if (ep->profile.deliver_before_ack) {
    session->eng.at(session->eng.point_t(point), [this, ep, nbytes, point, hold](double t) { put(t, ep, nbytes, point, hold); });
  } else {
    put(session->eng.point_t(point), ep, nbytes, point, hold);
  }
}

void Dialogue::put(double t, Endpoint* ep, long long nbytes, Ref point, bool hold) {
  double begin = ep->end_n;
  bool held = ep->hold;
  ep->hold = held || hold;
  ep->write(t, static_cast<double>(nbytes), OBJ_TLS, point);
  ep->hold = held;
  ep->hs_ranges.emplace_back(begin, ep->end_n);
  session->tls_bytes += nbytes;
  ends.push_back(ep->end_n + static_cast<double>(rest));  // a flight split by the amplification limit ends with its rest
}

void Dialogue::client_flight(Ref point) {
  size_t k_ = k;
  k = k_ + 1;
  Endpoint* client = conn->client.get();
  if (k_ == hs.ready) {
    write(client, hs.flights[k_], point, true);
    auto fn = then;
    fn(point);
  } else {
    write(client, hs.flights[k_], point);
  }
}

void Dialogue::server_data(double t, int32_t pkt) {
  size_t k_ = k;
  if (k_ < hs.flights.size() && k_ % 2 == 1 && conn->server->rcv_n >= end_before(k_)) {
    k = k_ + 1;
    long long nbytes = hs.flights[k_];
    long long limit = hs.amplification_limit;
    if (k_ == 1 && 0 < limit && limit < nbytes) {  // RFC 9000 8.1: the rest waits for the client's next packet
      rest = nbytes - limit;
      nbytes = limit;
    }
    write(conn->server.get(), nbytes, session->eng.point(t, pkt, false, 0.0, TLS_SETUP));
  }
}

void Dialogue::await_validation() {  // secure_setup.Dialogue._await_validation
  Engine& eng = session->eng;
  int32_t ai = static_cast<int32_t>(eng.packets.size()) - 1;
  Packet& ack = eng.packets[ai];
  if (ack.conn != conn->id || ack.dir != conn->client->dir || ack.n > 0) return;
  long long r = rest;
  rest = 0;
  ack.obj = OBJ_TLS;
  eng.at(ack.t_a, [this, ai, r](double t) { validated(t, ai, r); });
}

void Dialogue::validated(double t, int32_t ack, long long r) {  // secure_setup.Dialogue._validated
  Endpoint* server = conn->server.get();
  double begin = server->end_n;
  Ref point = session->eng.point(t, ack, false, 0.0, TLS_SETUP);
  server->write(t, static_cast<double>(r), OBJ_TLS, point);
  server->hs_ranges.emplace_back(begin, server->end_n);
  session->tls_bytes += r;
}

void Dialogue::client_data(double t, int32_t pkt) {
  if (rest > 0) await_validation();
  size_t k_ = k;
  if (k_ % 2 == 1 || k_ > hs.flights.size() || conn->client->rcv_n < end_before(k_)) return;
  Ref point = session->eng.point(t, pkt, false, 0.0, TLS_SETUP);
  if (k_ < hs.flights.size()) {
    client_flight(point);
  } else if (k_ == hs.ready) {
    k = k_ + 1;
    auto fn = then;
    fn(point);
  }
}

// ------------------------------------------------------------------------------------------------ multiplex
Mux::Mux(Session* s_, Connection* c) : s(s_), conn(c) { c->mux = this; }

void Mux::requests(const std::vector<int>& names, Ref point, DoneFn on_done) {
  conn->on_done = std::move(on_done);
  std::vector<double> sizes;
  double pt_t = s->eng.point_t(point);
  for (int name : names) {
    ObjectRecord& rec = s->objects[name];
    rec.connection = conn->id;
    if (!rec.has_start) {
      rec.has_start = true;
      rec.start = pt_t;
    }
    double size = static_cast<double>(req_names.empty() ? s->p->request : s->p->mux_request);
    sizes.push_back(size);
    req_end += size;
    req_ends.push_back(req_end);
    req_names.push_back(name);
  }
  s->eng.at(pt_t, [this, names, sizes, point](double t) { write_requests(t, names, sizes, point); });
}

void Mux::write_requests(double t, const std::vector<int>& names, const std::vector<double>& sizes, Ref point) {
  Endpoint* client = conn->client.get();
  bool held = client->hold;
  client->hold = true;
  for (size_t i = 0; i < names.size(); ++i) client->write(t, sizes[i], names[i], point);
  client->hold = held;
  Cause c;
  c.kind = CK_APP;
  c.ref = point;
  client->output(t, c);
}

void Mux::server_data(double t, int32_t pkt) {
  double got = conn->server->app_received();
  std::vector<int> batch;
  while (read < req_ends.size() && got >= req_ends[read]) {
    batch.push_back(req_names[read]);
    read += 1;
  }
  if (batch.empty()) return;
  const Params* p = s->p;
  double extra = p->server_think;
  if (batches == 0 && p->conn_overhead > 0) extra = extra + p->conn_overhead;
  batches += 1;
  Ref last = conn->last_write;
  Ref base = pkt;
  double begin = s->eng.packets[pkt].t_a;
  if (last != NIL && s->eng.point_t(last) > begin) {
    base = last;
    begin = s->eng.point_t(last);
  }
  double w = begin + extra;
  Ref point = s->eng.point(w, base, extra > 0, extra, SERVER);
  conn->last_write = point;
  s->eng.at(w, [this, batch, point](double t_) { write_responses(t_, batch, point); });
}

void Mux::write_responses(double t, const std::vector<int>& names, Ref point) {
  const Params* p = s->p;
  Endpoint* srv = conn->server.get();
  size_t n = names.size();
  std::vector<double> totals(n), left(n), sent(n, 0.0);
  for (size_t i = 0; i < n; ++i) totals[i] = left[i] = static_cast<double>(p->header) + static_cast<double>(s->objects[names[i]].bytes);
  bool held = srv->hold;
  srv->hold = true;
  const double frame = static_cast<double>(p->frame);
  // multiplex.round_robin: each turn every unfinished stream writes one frame
  bool any = true;
  while (any) {
    any = false;
    for (size_t i = 0; i < n; ++i) {
      double x = left[i];
      if (x > 0) {
        double chunk = x < frame ? x : frame;
        left[i] = x - chunk;
        bool last = sent[i] + chunk >= totals[i];
        double part = last ? (sent[i] != 0.0 ? totals[i] - sent[i] : totals[i]) : chunk;
        sent[i] += chunk;
        srv->write(t, part, names[i], point);
        down_end += chunk;
        if (last) conn->expect.emplace_back(down_end, names[i]);
      }
    }
    for (size_t i = 0; i < n && !any; ++i) any = left[i] > 0;
  }
  srv->hold = held;
  Cause c;
  c.kind = CK_APP;
  c.ref = point;
  srv->output(t, c);
}

// -------------------------------------------------------------------------------------------------- h2, h3
void Session::h2_load(Connection* conn, const std::vector<int>& names, Ref point) {
  Mux* mux = conn->mux;
  if (mux == nullptr) {
    muxes.push_back(std::make_unique<Mux>(this, conn));
    mux = muxes.back().get();
  }
  auto st = std::make_shared<DoneFn>();
  drivers.push_back(st);
  std::weak_ptr<DoneFn> self = st;
  *st = [this, mux, names, self](int name, double t, int32_t pkt) {
    if (name == names[0] && names.size() > 1) {
      std::vector<int> rest(names.begin() + 1, names.end());
      mux->requests(rest, think(eng.point(t, pkt, false, 0.0, REQUEST)), *self.lock());
    }
  };
  mux->requests({names[0]}, think(point), *st);
}

void Session::configure_quic(Connection* conn) {  // h3.configure
  long long payload = p->quic_datagram - 30;  // quic.stream_payload_bytes
  long long d = p->quic_datagram;
  long long iw_bytes = std::min(10 * d, std::max(14720LL, 2 * d));  // quic.initial_window_bytes
  for (Endpoint* ep : {conn->client.get(), conn->server.get()}) {
    ep->set_profile(p->quic_profile);
    ep->mss = static_cast<double>(payload);
    ep->mss_n = payload;
    ep->nagle = false;
    ep->cwnd = iw_bytes / d;
    ep->cwnd_cap = p->rwnd / payload + 2;
    ep->dack_bytes = false;
    ep->dack_segments = 2;  // quic.ACK_ELICITING_THRESHOLD
    ep->dack_ms = p->quic_ack_delay;
    ep->dack = p->quic_ack_delay;
    ep->idle_restart = IR_KEEP;
    ep->quick_ack = false;
    ep->quickacks = 0;
    ep->ack_handshake = true;
  }
}

void Session::h3_run(const std::vector<int>& names, Ref st) {
  Connection* conn = keep_conn;
  if (conn != nullptr) {
    h2_load(conn, names, st);
    return;
  }
  st = after_lookup(st);
  conn = new_connection(false);
  keep_conn = conn;
  configure_quic(conn);
  bool resumed = tls_resumed(p->tls_resumption, conns.size() - 1);
  long long hello = p->quic_datagram - 30;
  long long limit = 3 * hello;  // quic.amplification_allowance_bytes: 3 (D - 30), RFC 9000 8.1
  Handshake hs;  // quic.handshake
  if (resumed && p->tls_early_data) {
    hs = Handshake{{hello, 230, 58}, 0, limit};
  } else {
    hs = Handshake{{hello, resumed ? 230 : p->tls_server_flight, 58}, 2, limit};
  }
  tls_handshakes += 1;
  dialogues.push_back(std::make_unique<Dialogue>(this, conn, hs, [this, conn, names](Ref point) { h2_load(conn, names, point); }));
  dialogues.back()->start(st);
}

// ------------------------------------------------------------------------------------------------- drivers
void Session::driver(const std::vector<int>& names, Ref st) {
  switch (protocol) {
    case P_HTTP10: {  // http10.run
      auto done = std::make_shared<DoneFn>();
      drivers.push_back(done);
      std::weak_ptr<DoneFn> self = done;
      *done = [this, names, self](int name, double t, int32_t pkt) {
        size_t i = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin()) + 1;
        if (i < names.size()) fetch_on_new_connection({names[i]}, eng.point(t, pkt, false, 0.0, REQUEST), *self.lock());
      };
      fetch_on_new_connection({names[0]}, st, *done);
      break;
    }
    case P_HTTP10_PARALLEL: {  // http10_parallel.run
      auto pending = std::make_shared<std::vector<int>>(names.begin() + 1, names.end());
      auto done = std::make_shared<DoneFn>();
      drivers.push_back(done);
      drivers.push_back(pending);
      std::weak_ptr<DoneFn> self = done;
      std::vector<int>* pend = pending.get();
      *done = [this, names, self, pend](int name, double t, int32_t pkt) {
        Ref point = eng.point(t, pkt, false, 0.0, REQUEST);
        auto launch = [this, pend, &self](Ref pt) {
          int next = pend->front();
          pend->erase(pend->begin());
          fetch_on_new_connection({next}, pt, *self.lock());
        };
        if (name == names[0]) {
          long long n = std::min(p->parallel, static_cast<long long>(pend->size()));
          for (long long i = 0; i < n; ++i) launch(point);
        } else if (!pend->empty()) {
          launch(point);
        }
      };
      fetch_on_new_connection({names[0]}, st, *done);
      break;
    }
    case P_PERSISTENT: {  // persistent.run
      persistent(st, [this, names](Connection* conn, Ref point) {
        auto done = std::make_shared<DoneFn>();
        drivers.push_back(done);
        std::weak_ptr<DoneFn> self = done;
        *done = [this, names, conn, self](int name, double t, int32_t pkt) {
          size_t i = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin()) + 1;
          if (i < names.size()) request(conn, {names[i]}, think(eng.point(t, pkt, false, 0.0, REQUEST)), *self.lock());
        };
        request(conn, {names[0]}, think(point), *done);
      });
      break;
    }
    case P_PIPELINED: {  // pipelined.run
      persistent(st, [this, names](Connection* conn, Ref point) {
        auto done = std::make_shared<DoneFn>();
        drivers.push_back(done);
        std::weak_ptr<DoneFn> self = done;
        *done = [this, names, conn, self](int name, double t, int32_t pkt) {
          if (name != names[0]) return;
          Ref after = think(eng.point(t, pkt, false, 0.0, REQUEST));
          DoneFn me = *self.lock();
          if (p->pipeline_one_write && names.size() > 2) {
            std::vector<std::vector<int>> reqs;
            for (size_t i = 1; i < names.size(); ++i) reqs.push_back({names[i]});
            requests_in_one_write(conn, reqs, after, me);
            return;
          }
          for (size_t i = 1; i < names.size(); ++i) request(conn, {names[i]}, after, me);
        };
        request(conn, {names[0]}, think(point), *done);
      });
      break;
    }
    case P_GETALL:  // getall.run
      persistent(st, [this, names](Connection* conn, Ref point) {
        request(conn, names, think(point), [](int, double, int32_t) {});
      });
      break;
    case P_H2:  // h2.run
      persistent(st, [this, names](Connection* conn, Ref point) { h2_load(conn, names, point); });
      break;
    case P_H3:
      h3_run(names, st);
      break;
  }
}

// ------------------------------------------------------------------------------------------- critical path
static inline Cat category_of(const Packet& pkt) {
  PKind kind = pkt.kind;
  if (kind == K_SYN || kind == K_SYNACK || kind == K_FIN || kind == K_RST || (kind == K_ACK && pkt.cause.kind == CK_HANDSHAKE))
    return CONN_SETUP;
  if (pkt.obj == OBJ_TLS) return TLS_SETUP;
  return (pkt.dir & 1) ? TRANSMISSION : REQUEST;
}

Walk walk(const Engine& eng, int32_t final_pkt, Ref stop) {
  Walk w{};
  for (double& x : w.acc) x = 0.0;
  w.trips = 0;
  Ref node = final_pkt;
  bool arriving = true, queued = false;
  int role = -1;  // a Cat while following an ACK back
  Cat last = TRANSMISSION;
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
        w.acc[last] = w.acc[last] - (stop_t - at);
        break;
      }
    }
    if (is_point(node)) {
      const Point& pt = eng.pt(node);
      if (pt.has_extra) {
        w.acc[pt.cat] = w.acc[pt.cat] + pt.extra;
        last = pt.cat;
      }
      node = pt.base;
      arriving = true;
      role = -1;
      continue;
    }
    const Packet& p = eng.packets[node];
    if (arriving) {
      Cat cat = category_of(p);
      if (role < 0) {
        w.acc[cat] = w.acc[cat] + (p.t_a - p.t_s);
      } else if (p.kind == K_DATA && p.n > 0) {
        w.acc[cat] = w.acc[cat] + p.tx;
        w.acc[role] = w.acc[role] + (p.t_a - p.t_e);
        role = -1;
      } else {
        w.acc[role] = w.acc[role] + (p.t_a - p.t_s);
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
      last = cat;
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
        last = SS_IDLE;
        node = cause.ref;
        queued = true;
        break;
      case CK_ARRIVAL: {
        if (cause.has_extra) {
          Cat cat = cause.cat;
          if (role == NAGLE_STALL) cat = NAGLE_STALL;
          w.acc[cat] = w.acc[cat] + cause.extra;
          last = cat;
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
