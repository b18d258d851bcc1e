// latency_lab/protocols/multiplex.py and the seven protocols' schedules (latency_lab/protocols/*.py) in C++ (see engine.hpp).
#include <algorithm>
#include <utility>

#include "session.hpp"

namespace ll {

// ------------------------------------------------------------------------------------------------ multiplex
Mux::Mux(Session* s_, Connection* c) : s(s_), conn(c) {
  c->mux = this;
  if (s->protocol != P_H3) {  // h2's SETTINGS records, each written when given (multiplex.Mux.settings)
    for (long long n : {s->p->mux_server_settings, s->p->mux_settings_ack})
      if (n > 0) settings.push_back(n);
  }
}

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
  if (!settings.empty() && got > 0) write_settings(t, pkt);  // the client's preface has arrived: h2's SETTINGS, once
  std::vector<int> batch;
  while (read < req_ends.size() && got >= req_ends[read]) {
    batch.push_back(req_names[read]);
    read += 1;
  }
  if (batch.empty()) return;
  const Params* p = s->p;
  if (s->sends_hints_of[static_cast<size_t>(batch[0])]) {  // a page's HTML, with hints: the 103 first, at once
    double t_a = s->eng.packets[pkt].t_a;
    Ref hp = s->eng.point(t_a, pkt, false, 0.0, SERVER);
    int html = batch[0];
    s->eng.at(t_a, [this, html, hp](double t_) { write_hints(t_, html, hp); });
  }
  double extra = p->server_think;
  if (batches == 0 && p->conn_overhead > 0) extra = extra + p->conn_overhead;
  batches += 1;
  Ref last = conn->last_write;
  Ref base = pkt;
  double begin = s->eng.packets[pkt].t_a;
  bool hinted = s->any_hinted;
  for (int name : batch) hinted = hinted && s->hinted_of[static_cast<size_t>(name)] != 0;
  if (hinted) {  // requests a 103 named: handled beside the HTML's, written after the bytes written before
    if (last != NIL && s->eng.point_t(last) > begin + extra) {
      base = last;
      begin = s->eng.point_t(last);
      extra = 0.0;
    }
  } else if (last != NIL && s->eng.point_t(last) > begin) {
    base = last;
    begin = s->eng.point_t(last);
  }
  double w = begin + extra;
  Ref point = s->eng.point(w, base, extra > 0, extra, SERVER);
  conn->last_write = point;
  s->eng.at(w, [this, batch, point](double t_) { write_responses(t_, batch, point); });
}

// multiplex.Mux._write_settings: the SETTINGS record and the SETTINGS ACK, each a write of its own, as the tickets
void Mux::write_settings(double t, int32_t pkt) {
  Endpoint* srv = conn->server.get();
  Ref point = s->eng.point(t, pkt, false, 0.0, SERVER);
  std::vector<long long> records;
  records.swap(settings);
  for (long long nbytes : records) {
    if (srv->profile.deliver_before_ack) {
      s->eng.at(t, [this, nbytes, point](double t_) { put_settings(t_, nbytes, point); });
    } else {
      put_settings(t, nbytes, point);
    }
  }
}

void Mux::put_settings(double t, long long nbytes, Ref point) {
  Endpoint* srv = conn->server.get();
  double begin = srv->end_n;
  srv->write(t, static_cast<double>(nbytes), OBJ_SETTINGS, point);
  srv->hs_ranges.emplace_back(begin, srv->end_n);  // not the application's bytes (Endpoint::app_received)
}

// multiplex.Mux._write_hints: the 103 Early Hints response for the HTML, a write of its own
void Mux::write_hints(double t, int html, Ref point) {
  double size = static_cast<double>(s->p->early_hints_bytes);
  conn->server->write(t, size, html, point);
  down_end += size;
  conn->expect.emplace_back(down_end, -1 - html);
}

// multiplex.round_robin: each turn every unfinished stream of ``streams`` writes one frame of what it has ``left``
static void round_robin(const std::vector<size_t>& streams, std::vector<double>& left, double frame,
                        std::vector<std::pair<size_t, double>>& out) {
  bool any = true;
  while (any) {
    any = false;
    for (size_t i : streams) {
      double x = left[i];
      if (x > 0) {
        double chunk = x < frame ? x : frame;
        left[i] = x - chunk;
        out.emplace_back(i, chunk);
      }
    }
    for (size_t i : streams) {
      if (left[i] > 0) {
        any = true;
        break;
      }
    }
  }
}

void Mux::write_responses(double t, const std::vector<int>& names, Ref point) {
  const Params* p = s->p;
  Endpoint* srv = conn->server.get();
  size_t n = names.size();
  std::vector<double> totals(n), left(n), sent(n, 0.0);
  const bool alone = p->mux_headers_alone;
  for (size_t i = 0; i < n; ++i)
    totals[i] = left[i] = (alone ? 0.0 : static_cast<double>(p->header)) + static_cast<double>(s->objects[names[i]].bytes);
  bool held = srv->hold;
  srv->hold = true;
  if (alone) {  // the HEADERS frames first, in a write of their own (multiplex.headers_alone)
    for (size_t i = 0; i < n; ++i) {
      srv->write(t, static_cast<double>(p->header), names[i], point);
      down_end += static_cast<double>(p->header);
      if (s->objects[names[i]].bytes <= 0) conn->expect.emplace_back(down_end, names[i]);
    }
    srv->hold = held;
    Cause c0;
    c0.kind = CK_APP;
    c0.ref = point;
    srv->output(t, c0);
    srv->hold = true;
  }
  // multiplex.frame_order: the frames in the order the server writes them, by the streams' RFC 9218 priorities
  std::vector<std::pair<size_t, double>> frames;
  std::vector<int> urgencies;
  for (int name : names) urgencies.push_back(s->urgency_of[static_cast<size_t>(name)]);
  std::sort(urgencies.begin(), urgencies.end());
  urgencies.erase(std::unique(urgencies.begin(), urgencies.end()), urgencies.end());
  const double frame = static_cast<double>(p->frame);
  std::vector<size_t> turns;
  for (int urgency : urgencies) {
    turns.clear();
    for (size_t i = 0; i < n; ++i) {
      size_t name = static_cast<size_t>(names[i]);
      if (s->urgency_of[name] != urgency) continue;
      if (s->incremental_of[name]) {
        turns.push_back(i);
      } else {  // whole, in request order
        std::vector<size_t> one{i};
        round_robin(one, left, frame, frames);
      }
    }
    round_robin(turns, left, frame, frames);
  }
  // the bytes of each stream that name objects as it streams (page.object_named_at_bytes), from its start
  const long long head = alone ? 0 : p->header;
  std::vector<size_t> mark(n, 0);
  for (const auto& [i, chunk] : frames) {
    bool last = sent[i] + chunk >= totals[i];
    double part = last ? (sent[i] != 0.0 ? totals[i] - sent[i] : totals[i]) : chunk;
    const std::vector<std::pair<long long, int>>& marks = s->named_of[static_cast<size_t>(names[i])];
    while (mark[i] < marks.size() && static_cast<double>(head + marks[mark[i]].first) <= sent[i] + chunk) {
      const double target = static_cast<double>(head + marks[mark[i]].first);
      conn->expect.emplace_back(down_end + target - sent[i], marks[mark[i]].second);
      mark[i] += 1;
    }
    sent[i] += chunk;
    srv->write(t, part, names[i], point);
    down_end += chunk;
    if (last) conn->expect.emplace_back(down_end, names[i]);
  }
  srv->hold = held;
  Cause c;
  c.kind = CK_APP;
  c.ref = point;
  srv->output(t, c);
}

// -------------------------------------------------------------------------------------------------- h2, h3
Mux* Session::streams(Connection* conn) {
  if (conn->mux == nullptr) muxes.push_back(std::make_unique<Mux>(this, conn));
  return conn->mux;
}

void Session::h2_load(Connection* conn, const std::vector<int>& names, Ref point) {
  Mux* mux = streams(conn);
  auto st = std::make_shared<DoneFn>();
  auto ask = std::make_shared<std::function<void(const std::vector<int>&, Ref)>>();  // h2.load's discover
  drivers.push_back(st);
  drivers.push_back(ask);
  std::weak_ptr<DoneFn> self = st;
  std::function<void(const std::vector<int>&, Ref)>* discover = ask.get();
  *ask = [this, mux, self](const std::vector<int>& found, Ref after) {
    DoneFn me = *self.lock();
    if (origins.empty()) {
      mux->requests(found, think(after), me);
      return;
    }
    for (auto& group : by_origin(found)) {
      if (group.first == 0) {
        mux->requests(group.second, think(after), me);
      } else if (origins[static_cast<size_t>(group.first - 1)].coalesce) {  // the HTML's connection, after the lookup
        Ref ready = lookup(group.first, after);
        if (eng.point_t(ready) > eng.point_t(after)) {
          std::vector<int> g = group.second;
          eng.at(eng.point_t(ready), [this, mux, g, ready, me](double) { mux->requests(g, think(ready), me); });
        } else {
          mux->requests(group.second, think(after), me);
        }
      } else {  // another origin's (page.origins): streams on its own connection, once that is ready
        std::vector<int> g = group.second;
        origin_conn(group.first, after, [this, g, me](Connection* c, Ref pt) { streams(c)->requests(g, think(pt), me); });
      }
    }
  };
  *st = [this, discover](int name, double t, int32_t pkt) {
    const std::vector<int>& revealed = reveals[static_cast<size_t>(name)];
    if (!any_hinted) {
      if (revealed.empty()) return;
      (*discover)(revealed, eng.point(t, pkt, false, 0.0, REQUEST));
      return;
    }
    std::vector<int> found;  // those a 103 Early Hints named were asked for when it arrived
    for (int other : revealed)
      if (!hinted_of[static_cast<size_t>(other)]) found.push_back(other);
    if (found.empty()) return;
    (*discover)(found, eng.point(t, pkt, false, 0.0, REQUEST));
  };
  // h2.load's hints: the objects a 103 names are asked for at once, the origins it names start their connections
  mux->on_hints = [this, discover](int html, double t, int32_t pkt) {
    Ref after = eng.point(t, pkt, false, 0.0, REQUEST);
    const std::vector<int> hinted = hints_of[static_cast<size_t>(html)];
    if (!hinted.empty()) (*discover)(hinted, after);
    for (OriginState& o : origins) {
      if (o.early_preconnect && o.coalesce) {
        lookup(o.index, after);
      } else if (o.early_preconnect && o.conn == nullptr) {
        int k = o.index;
        Connection* c = open_origin(k, after, false, [this, k](Connection* c2, Ref pt) { origin_ready(k, c2, pt); });
        origins[static_cast<size_t>(k - 1)].conn = c;
      }
    }
  };
  mux->requests({names[0]}, think(point), *st);
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
        if (i >= names.size()) return;
        Ref point = eng.point(t, pkt, false, 0.0, REQUEST);
        if (origin_of[static_cast<size_t>(names[i])] != 0) {  // another origin's: its lookup, or its preconnection
          origin_fetch({names[i]}, point, *self.lock());
        } else {
          fetch_on_new_connection({names[i]}, point, *self.lock());
        }
      };
      fetch_on_new_connection({names[0]}, st, *done);
      preconnect_origins(st, true);
      break;
    }
    case P_HTTP10_PARALLEL: {  // http10_parallel.run
      // discovered objects no connection has asked for yet (discovery order), and the object connections open
      auto pending = std::make_shared<std::vector<int>>();
      auto busy = std::make_shared<std::vector<long long>>(1 + origins.size(), 0);  // by origin
      auto done = std::make_shared<DoneFn>();
      drivers.push_back(done);
      drivers.push_back(pending);
      drivers.push_back(busy);
      std::weak_ptr<DoneFn> self = done;
      std::vector<int>* pend = pending.get();
      std::vector<long long>* live = busy.get();
      *done = [this, names, self, pend, live](int name, double t, int32_t pkt) {
        Ref point = eng.point(t, pkt, false, 0.0, REQUEST);
        const std::vector<int>& found = reveals[static_cast<size_t>(name)];
        pend->insert(pend->end(), found.begin(), found.end());
        if (name != names[0] && static_cast<size_t>(name) < objects.size()) (*live)[static_cast<size_t>(origin_of[static_cast<size_t>(name)])] -= 1;
        size_t i = 0;
        while (i < pend->size()) {  // the first waiting object of each origin with a free slot, in discovery order
          int next = (*pend)[i];
          size_t o = static_cast<size_t>(origin_of[static_cast<size_t>(next)]);
          if ((*live)[o] >= p->parallel) {
            i += 1;
            continue;
          }
          (*live)[o] += 1;
          pend->erase(pend->begin() + static_cast<std::ptrdiff_t>(i));
          if (o != 0) {
            origin_fetch({next}, point, *self.lock());
          } else {
            fetch_on_new_connection({next}, point, *self.lock());
          }
        }
      };
      fetch_on_new_connection({names[0]}, st, *done);
      preconnect_origins(st, true);
      break;
    }
    case P_PERSISTENT: {  // persistent.run
      persistent(st, [this, names](Connection* conn, Ref point) {
        auto done = std::make_shared<DoneFn>();
        drivers.push_back(done);
        std::weak_ptr<DoneFn> self = done;
        *done = [this, names, conn, self](int name, double t, int32_t pkt) {
          size_t i = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin()) + 1;
          if (i >= names.size()) return;
          Ref after = eng.point(t, pkt, false, 0.0, REQUEST);
          int o = origin_of[static_cast<size_t>(names[i])];
          DoneFn me = *self.lock();
          if (o != 0) {  // another origin's object: on that origin's persistent connection, once it is ready
            int next = names[i];
            origin_conn(o, after, [this, next, me](Connection* c, Ref pt) { request(c, {next}, think(pt), me); });
          } else {
            request(conn, {names[i]}, think(after), me);
          }
        };
        request(conn, {names[0]}, think(point), *done);
      });
      preconnect_origins(st, false);
      break;
    }
    case P_PIPELINED: {  // pipelined.run
      persistent(st, [this, names](Connection* conn, Ref point) {
        auto done = std::make_shared<DoneFn>();
        drivers.push_back(done);
        std::weak_ptr<DoneFn> self = done;
        *done = [this, conn, self](int name, double t, int32_t pkt) {
          const std::vector<int> found = reveals[static_cast<size_t>(name)];
          if (found.empty()) return;
          DoneFn me = *self.lock();
          auto write = [this, me](Connection* c, const std::vector<int>& group, Ref after) {
            if (p->pipeline_one_write && group.size() > 1) {
              std::vector<std::vector<int>> reqs;
              for (int other : group) reqs.push_back({other});
              requests_in_one_write(c, reqs, after, me);
              return;
            }
            for (int other : group) request(c, {other}, after, me);
          };
          Ref point = eng.point(t, pkt, false, 0.0, REQUEST);
          for (auto& group : by_origin(found)) {
            if (group.first == 0) {
              write(conn, group.second, think(point));
            } else {  // another origin's: pipelined on its own connection once that is ready
              std::vector<int> g = group.second;
              origin_conn(group.first, point, [this, write, g](Connection* c, Ref pt) { write(c, g, think(pt)); });
            }
          }
        };
        request(conn, {names[0]}, think(point), *done);
      });
      preconnect_origins(st, false);
      break;
    }
    case P_GETALL: {  // getall.run
      if (origins.empty()) {
        persistent(st, [this, names](Connection* conn, Ref point) {
          request(conn, names, think(point), [](int, double, int32_t) {});
        });
        break;
      }
      auto groups = by_origin(names);
      int html = names[0];
      DoneFn done = [this, groups, html](int name, double t, int32_t pkt) {
        if (name != html) return;
        Ref point = eng.point(t, pkt, false, 0.0, REQUEST);  // the HTML has arrived: the other origins' objects are known
        for (size_t k = 1; k < groups.size(); ++k) {
          std::vector<int> g = groups[k].second;
          origin_conn(groups[k].first, point, [this, g](Connection* c, Ref pt) {
            request(c, g, think(pt), [](int, double, int32_t) {});
          });
        }
      };
      std::vector<int> own = groups[0].second;
      persistent(st, [this, own, done](Connection* conn, Ref point) { request(conn, own, think(point), done); });
      preconnect_origins(st, false);
      break;
    }
    case P_H2:  // h2.run
      persistent(st, [this, names](Connection* conn, Ref point) { h2_load(conn, names, point); });
      preconnect_origins(st, false, true);
      break;
    case P_H3:
      h3_run(names, st);
      break;
    case P_PERSISTENT_PARALLEL:
      persistent_parallel_run(names, st);
      break;
  }
}

}  // namespace ll
