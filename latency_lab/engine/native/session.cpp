// latency_lab/protocols/base.py in C++: the session, its connections, the HTTP applications (see engine.hpp).
#include <map>
#include <tuple>

#include "session.hpp"

namespace ll {


Session::Session(const Params& params, int protocol_, long long allowance)
    : pp(params), q(&pp), p(&pp), eng(&q, allowance), protocol(protocol_) {
  int id = 0;
  // the objects named before their parent's end (page.object_named_at_bytes): (parent, offset, child), in order
  std::vector<std::tuple<int, long long, int>> streamed;
  for (long long k = 0; k < p->pages; ++k) {
    std::vector<int> names;
    objects.push_back(ObjectRecord{p->html, static_cast<int>(k)});
    names.push_back(id++);
    for (long long size : p->objects) {
      objects.push_back(ObjectRecord{size, static_cast<int>(k)});
      names.push_back(id++);
    }
    reveals.resize(objects.size());
    size_t n = p->objects.size();
    for (size_t i = 1; i <= n; ++i) {
      size_t parent = p->object_parents.empty() ? 0 : static_cast<size_t>(p->object_parents[i - 1]);
      long long at = p->object_named_at.empty() ? -1 : p->object_named_at[i - 1];
      long long parent_bytes = parent == 0 ? p->html : p->objects[parent - 1];
      if (at >= 0 && at < parent_bytes) {
        streamed.emplace_back(names[parent], at, names[i]);
      } else {
        reveals[static_cast<size_t>(names[parent])].push_back(names[i]);
      }
    }
    for (size_t i = 0; i <= n; ++i) {  // each object's origin (page.object_origins; issue 28)
      origin_of.push_back(i == 0 || p->object_origins.empty() ? 0 : static_cast<int>(p->object_origins[i - 1]));
    }
    // each object's RFC 9218 priority (base.Session.priority): none given, all of one urgency and incremental
    const bool given = !p->object_urgency.empty();
    for (size_t i = 0; i <= n; ++i) {
      bool own = given && i > 0;
      urgency_of.push_back(own ? static_cast<int>(p->object_urgency[i - 1]) : DEFAULT_URGENCY);
      incremental_of.push_back(own ? static_cast<char>(p->object_incremental[i - 1] != 0) : static_cast<char>(!given));
    }
    page_names.push_back(std::move(names));
  }
  named_of.assign(objects.size(), {});
  for (const auto& [parent, at, child] : streamed) {  // base.Session's pseudo names, one per (parent, offset)
    std::vector<std::pair<long long, int>>& marks = named_of[static_cast<size_t>(parent)];
    int pseudo = -1;
    for (const auto& mark : marks)
      if (mark.first == at) pseudo = mark.second;
    if (pseudo < 0) {
      pseudo = static_cast<int>(reveals.size());
      reveals.emplace_back();
      marks.emplace_back(at, pseudo);
    }
    reveals[static_cast<size_t>(pseudo)].push_back(child);
  }
  for (auto& marks : named_of) std::sort(marks.begin(), marks.end());
  for (size_t k = 0; k < p->origin_dns_ms.size(); ++k) {
    OriginState st;
    st.index = static_cast<int>(k) + 1;
    st.dns_ms = p->origin_dns_ms[k];
    st.preconnected = p->origin_preconnected[k] != 0;
    st.coalesce = k < p->origin_coalesce.size() && p->origin_coalesce[k] != 0;
    origins.push_back(std::move(st));
  }
  // 103 Early Hints (base.Session.hints): with a hint given, each page's HTML is answered with a 103 first
  bool early = false;
  for (size_t k = 0; k < origins.size(); ++k) {
    origins[k].early_preconnect = k < p->origin_early_preconnect.size() && p->origin_early_preconnect[k] != 0;
    early = early || origins[k].early_preconnect;
  }
  sends_hints_of.assign(objects.size(), 0);
  hints_of.assign(objects.size(), {});
  hinted_of.assign(objects.size(), 0);
  if (!p->object_early_hint.empty() || early) {
    for (const std::vector<int>& names : page_names) {
      sends_hints_of[static_cast<size_t>(names[0])] = 1;
      for (size_t i = 1; i < names.size(); ++i) {
        if (p->object_early_hint.empty() || p->object_early_hint[i - 1] == 0) continue;
        hints_of[static_cast<size_t>(names[0])].push_back(names[i]);
        hinted_of[static_cast<size_t>(names[i])] = 1;
        any_hinted = true;
      }
    }
  }
  start = eng.point(0.0, NIL, false, 0.0, REQUEST);
  page_start.push_back(start);
  page_left = static_cast<long long>(page_names[0].size());
  if (p->has_proxy) {  // split proxies (seed 003): the client's connections go to the local proxy, which relays
    relay = std::make_unique<SplitProxy>(this);
    client_leg = 1;  // core.CLIENT_LEG
  }
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
    eng.at(t + p->idle_timeout, [this, conn](double t_) { idle_close(t_, conn); });
    keep_conn = nullptr;
    for (Connection* other : pool) {  // persistent_parallel's other connections idle as long
      eng.at(t + p->idle_timeout, [this, other](double t_) { idle_close(t_, other); });
    }
    pool.clear();
  }
  if (!origins.empty() && p->has_idle_timeout && p->user_think > p->idle_timeout) idle_close_origins(t);
  Ref st = eng.point(t + p->user_think, pkt, false, 0.0, REQUEST);
  eng.at(eng.point_t(st), [this, st](double) { next_page(st); });
}

void Session::idle_close(double t, Connection* conn) {
  // _idle_close: the server's idle timeout closes the persistent connection (seed 002, section 4)
  conn->server->close(t, eng.point(t, NIL, false, 0.0, CONN_SETUP));
  if (relay) relay->idle_close(t, conn);
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

int Session::open_mode(int leg) {
  // T/TCP needs an earlier connection between the same hosts (its TAO cache)
  int mode = p->handshake;
  if (leg < 0) leg = client_leg;
  if (mode == HS_TTCP) {
    for (const auto& c : conns)
      if (c->leg == leg && c->origin == 0) return mode;
    return HS_THREE_WAY;
  }
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

Connection* Session::add_connection(int leg) {
  conns.push_back(std::make_unique<Connection>(this, static_cast<int>(conns.size()), leg));
  return conns.back().get();
}

void Session::data(Endpoint* ep, double t, int32_t pkt) {
  switch (ep->on_data) {
    case DH_SERVER:
      server_data(ep->conn, t, pkt);
      break;
    case DH_CLIENT:
      client_data(ep->conn, t, pkt);
      break;
    case DH_NONE:
      break;
    default:
      relay->data(ep, t, pkt);
  }
}

Connection* Session::new_connection(bool close_after, int leg) {
  Connection* conn = add_connection(leg < 0 ? client_leg : leg);
  conn->close_after = close_after;
  if (p->idle_restart == IR_FAST_START && has_cwnd_cache) {
    conn->server->cwnd = std::max(conn->server->cwnd, cwnd_cache);  // TCP fast start (seed 001, 5.2)
  }
  conn->server->on_data = DH_SERVER;
  conn->client->on_data = DH_CLIENT;
  conn->client->on_fin = FH_CLIENT_CLOSE;
  conn->server->on_fin = FH_SERVER_ACK;
  if (relay) relay->attach(conn);
  return conn;
}

void Session::client_fin(Connection* conn, double t, int32_t pkt) {
  Cause cause = arrival_cause(pkt, CONN_SETUP);
  if (eng.packets[pkt].n > 0 && p->profile.fin_on_data_acked_alone) conn->client->send_control(K_ACK, t, cause);
  conn->client->send_control(K_FIN, t, cause, true);
  if (conn->client->profile.last_ack_any_ack) conn->client->last_ack = 0;
}

void Session::server_fin(Connection* conn, double t, int32_t pkt) {
  conn->server->send_control(K_ACK, t, arrival_cause(pkt, CONN_SETUP));
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
    const double body = conn->expect_end + static_cast<double>(p->header);  // objects it names as it streams
    for (const auto& [at, pseudo] : named_of[static_cast<size_t>(name)])
      conn->expect.emplace_back(body + static_cast<double>(at), pseudo);
    conn->expect_end += static_cast<double>(rec.bytes + p->header);
    conn->expect.emplace_back(conn->expect_end, name);
  }
}

Connection* Session::fetch_on_new_connection(std::vector<int> names, Ref point, DoneFn on_done, bool close_after) {
  int mode = open_mode();
  for (int name : names) {
    if (!objects[name].has_start) {
      objects[name].has_start = true;
      objects[name].start = eng.point_t(point);
    }
  }
  point = after_lookup(point);
  Connection* conn = new_connection(close_after);
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

// ------------------------------------------------------------------------------------ other origins (issue 28)
std::vector<std::pair<int, std::vector<int>>> Session::by_origin(const std::vector<int>& names) const {
  std::map<int, std::vector<int>> groups;
  for (int name : names) groups[origin_of[static_cast<size_t>(name)]].push_back(name);
  return std::vector<std::pair<int, std::vector<int>>>(groups.begin(), groups.end());
}

Ref Session::lookup(int o, Ref point) {
  OriginState& st = origins[static_cast<size_t>(o - 1)];
  if (st.dns_ms <= 0) return point;
  if (!st.has_lookup) {
    dns_lookups += 1;
    st.has_lookup = true;
    st.lookup_end = eng.point(eng.point_t(point) + st.dns_ms, point, true, st.dns_ms, DNS);
    return st.lookup_end;
  }
  return eng.point_t(st.lookup_end) > eng.point_t(point) ? st.lookup_end : point;
}

int Session::origin_mode() const {
  int mode = p->handshake;
  return (mode == HS_TTCP || mode == HS_FAST_OPEN) ? HS_THREE_WAY : mode;
}

Connection* Session::open_origin(int o, Ref point, bool close_after, ReadyFn then) {
  OriginState& st = origins[static_cast<size_t>(o - 1)];
  Ref looked = lookup(o, point);
  // core.origin_leg: on the origin's own path if it has one
  bool own = !p->origin_path.empty() && p->origin_path[static_cast<size_t>(o - 1)];
  Connection* conn = new_connection(close_after, own ? ORIGIN_LEG + o - 1 : -1);
  conn->origin = o;
  other_conns += 1;
  long long index = st.opened;
  st.opened += 1;
  auto start = [this, conn, looked, index, then](double) {
    if (protocol == P_H3) {
      open_quic(conn, looked, index, [then, conn](Ref pt) { then(conn, pt); });
      return;
    }
    int mode = origin_mode();
    auto ready = secure(conn, mode, [then, conn](Ref pt) { then(conn, pt); }, index);
    conn->on_open = [ready](double, Ref pt) { ready(pt); };
    conn->open(looked, mode);
  };
  if (looked == point) {
    start(0.0);
  } else {  // base.open_origin: its first packet joins the link when the lookup ends, behind those queued before
    eng.at(eng.point_t(looked), start);
  }
  return conn;
}

void Session::origin_conn(int o, Ref point, ReadyFn then) {
  OriginState& st = origins[static_cast<size_t>(o - 1)];
  if (st.conn != nullptr && st.has_ready) {
    then(st.conn, point);
    return;
  }
  st.waiters.push_back(std::move(then));
  if (st.conn == nullptr) {
    st.conn = open_origin(o, point, false, [this, o](Connection* c, Ref pt) { origin_ready(o, c, pt); });
  }
}

void Session::origin_ready(int o, Connection* conn, Ref point) {
  OriginState& st = origins[static_cast<size_t>(o - 1)];
  st.conn = conn;
  st.has_ready = true;
  st.ready = point;
  std::vector<ReadyFn> waiters;
  waiters.swap(st.waiters);
  for (auto& then : waiters) then(conn, point);
}

void Session::origin_fetch(const std::vector<int>& names, Ref point, DoneFn on_done) {
  int o = origin_of[static_cast<size_t>(names[0])];
  OriginState& st = origins[static_cast<size_t>(o - 1)];
  for (int name : names) {
    if (!objects[name].has_start) {
      objects[name].has_start = true;
      objects[name].start = eng.point_t(point);
    }
  }
  ReadyFn ask = [this, names, on_done](Connection* c, Ref pt) { request(c, names, think(pt), on_done); };
  if (st.conn != nullptr && !st.taken) {
    st.taken = true;
    origin_conn(o, point, ask);
    return;
  }
  open_origin(o, point, true, ask);
}

void Session::preconnect_origins(Ref st_, bool close_after, bool streams) {
  for (OriginState& st : origins) {
    if (st.preconnected && streams && st.coalesce) {  // h2/h3, coalesced with the HTML's: only its lookup
      lookup(st.index, st_);
      continue;
    }
    if (st.preconnected && (st.conn == nullptr || st.taken)) {
      st.conn = nullptr;
      st.has_ready = false;
      st.ready = NIL;
      st.waiters.clear();
      st.taken = false;
      int o = st.index;
      Connection* conn = open_origin(o, st_, close_after, [this, o](Connection* c, Ref pt) { origin_ready(o, c, pt); });
      origins[static_cast<size_t>(o - 1)].conn = conn;
    }
  }
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
    if (name < 0) {  // a 103 Early Hints response has arrived (Mux::write_hints expects it as -1 - the HTML)
      auto on_hints = conn->mux->on_hints;
      on_hints(-1 - name, t, pkt);
      continue;
    }
    if (static_cast<size_t>(name) >= objects.size()) {  // a byte of a parent that names objects: reveal them
      DoneFn fn = conn->on_done;
      fn(name, t, pkt);
      continue;
    }
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

// ------------------------------------------------------------------------------------- persistent_parallel
// persistent_parallel.py: up to parallel persistent connections, each object on the first free one
struct Pool;
static Pool* pool_of(Session* s, int o);

struct Pool {
  Session* s;
  int origin = 0;  // 0 the HTML's; k the k-th of page.origins (whose connections are all in conns)
  std::vector<Connection*> free;
  std::vector<int> pending;
  std::vector<Connection*> conns;  // another origin's connections (the HTML's are keep_conn and s->pool)
  DoneFn done_fn;  // calls done (its closure holds the pool weakly)

  void take(Connection* conn, Ref point) {  // conn asks for the next waiting object
    int next = pending.front();
    pending.erase(pending.begin());
    s->request(conn, {next}, s->think(point), done_fn);
  }

  void done(int name, double t, int32_t pkt) {
    // a byte that names objects (page.object_named_at_bytes): its connection is busy, it only reveals
    const bool object = static_cast<size_t>(name) < s->objects.size();
    Connection* conn = object ? s->conns[static_cast<size_t>(s->objects[name].connection)].get() : nullptr;
    Ref point = s->eng.point(t, pkt, false, 0.0, REQUEST);
    // the objects are known once their parent (the HTML, or page.object_parents') has arrived
    const std::vector<int>& found = s->reveals[static_cast<size_t>(name)];
    size_t mine = 0;
    for (int other : found) {
      if (s->origins.empty() || s->origin_of[static_cast<size_t>(other)] == origin) {
        pending.push_back(other);
        mine += 1;
      }
    }
    if (object && !pending.empty()) {
      take(conn, point);
    } else if (object) {
      free.push_back(conn);
    }
    if (mine > 0) dispatch(point);
    if (mine < found.size()) {  // objects of other origins (page.origins): each origin's pool takes its own
      for (auto& group : s->by_origin(found)) {
        if (group.first == origin) continue;
        Pool* other = pool_of(s, group.first);
        other->pending.insert(other->pending.end(), group.second.begin(), group.second.end());
        other->dispatch(point);
      }
    }
  }

  void dispatch(Ref point) {
    while (!pending.empty() && !free.empty()) {
      Connection* conn = free.front();
      free.erase(free.begin());
      take(conn, point);
    }
    if (origin == 0) {
      while (!pending.empty() && 1 + static_cast<long long>(s->pool.size()) < s->p->parallel) {
        int next = pending.front();
        pending.erase(pending.begin());
        s->pool.push_back(s->fetch_on_new_connection({next}, point, done_fn, false));
      }
      return;
    }
    while (!pending.empty() && static_cast<long long>(conns.size()) < s->p->parallel) {  // after its DNS lookup
      int next = pending.front();
      pending.erase(pending.begin());
      ObjectRecord& rec = s->objects[static_cast<size_t>(next)];
      if (!rec.has_start) {
        rec.has_start = true;
        rec.start = s->eng.point_t(point);
      }
      Session* ss = s;
      DoneFn fn = done_fn;
      conns.push_back(s->open_origin(origin, point, false, [ss, next, fn](Connection* c, Ref pt) {
        ss->request(c, {next}, ss->think(pt), fn);
      }));
    }
  }

  void ready(Connection* conn, Ref point) {
    if (!pending.empty()) {
      take(conn, point);
    } else {
      free.push_back(conn);
    }
  }

  void preconnect(Ref point) {
    int mode = s->open_mode();
    if (mode == HS_TTCP || mode == HS_FAST_OPEN) mode = HS_THREE_WAY;
    while (1 + static_cast<long long>(s->pool.size()) < s->p->parallel) {
      Connection* conn = s->new_connection(false);
      s->pool.push_back(conn);
      auto ready_fn = s->secure(conn, mode, [this, conn](Ref pt) { ready(conn, pt); });
      conn->on_open = [ready_fn](double, Ref pt) { ready_fn(pt); };
      conn->open(point, mode);
    }
  }
};

static std::shared_ptr<Pool> make_pool(Session* s, int origin) {
  auto fresh = std::make_shared<Pool>();
  fresh->s = s;
  fresh->origin = origin;
  std::weak_ptr<Pool> weak = fresh;
  fresh->done_fn = [weak](int name, double t, int32_t pkt) { weak.lock()->done(name, t, pkt); };
  s->drivers.push_back(fresh);
  return fresh;
}

static Pool* pool_of(Session* s, int o) {
  // persistent_parallel.pool_of: origin o's pool (the HTML's for 0), made on its first use or after the idle timeout
  if (o == 0) return static_cast<Pool*>(s->pool_state.get());
  OriginState& st = s->origins[static_cast<size_t>(o - 1)];
  if (st.pool == nullptr) st.pool = make_pool(s, o);
  return static_cast<Pool*>(st.pool.get());
}

void Session::idle_close_origins(double t) {
  // _object_done: the other origins' persistent connections idle as long as the HTML's
  for (OriginState& st : origins) {
    if (st.conn != nullptr && !st.conn->close_after) {
      Connection* conn = st.conn;
      eng.at(t + p->idle_timeout, [this, conn](double t_) { idle_close(t_, conn); });
      st.conn = nullptr;
      st.has_ready = false;
      st.ready = NIL;
      st.waiters.clear();
    }
    if (st.pool != nullptr) {
      for (Connection* conn : static_cast<Pool*>(st.pool.get())->conns) {
        eng.at(t + p->idle_timeout, [this, conn](double t_) { idle_close(t_, conn); });
      }
      st.pool = nullptr;
    }
  }
}

void Session::persistent_parallel_run(const std::vector<int>& names, Ref st) {
  Pool* pool = static_cast<Pool*>(pool_state.get());
  if (pool == nullptr || keep_conn == nullptr) {  // the first page, or the idle timeout closed the connections
    auto fresh = make_pool(this, 0);
    pool_state = fresh;
    pool = fresh.get();
    this->pool.clear();
  } else {  // the next page: the HTML goes on the HTML's connection, the others wait idle
    std::vector<Connection*> rest;
    for (Connection* conn : pool->free) {
      if (conn != keep_conn) rest.push_back(conn);
    }
    pool->free = rest;
  }
  pool->pending.clear();
  bool pre = p->preconnect && this->pool.empty() && p->parallel > 1;
  st = after_lookup(st);
  persistent(st, [this, pool, names](Connection* conn, Ref point) {
    request(conn, {names[0]}, think(point), pool->done_fn);
  });
  if (pre) pool->preconnect(st);
  for (OriginState& os : origins) {  // the other origins: their pools wait idle for this page's objects
    if (os.pool != nullptr) static_cast<Pool*>(os.pool.get())->pending.clear();
    if (os.preconnected && (os.pool == nullptr || static_cast<Pool*>(os.pool.get())->conns.empty())) {
      Pool* other = pool_of(this, os.index);
      Connection* conn = open_origin(os.index, st, false, [other](Connection* c, Ref pt) { other->ready(c, pt); });
      other->conns.push_back(conn);
    }
  }
}

}  // namespace ll
