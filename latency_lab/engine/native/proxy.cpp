// latency_lab/protocols/proxy.py in C++: split proxies (seed 003), the local proxy's and the remote proxy's relay over warm
// long-haul connections (see engine.hpp; session.hpp declares the structures). Each function names the Python one it
// follows, statement for statement.
#include "session.hpp"

namespace ll {

int Reply::name_at(double offset) const {  // Reply.name_at: the object whose bytes are at ``offset``
  for (const auto& b : bounds)
    if (offset < b.first) return b.second;
  return bounds.back().second;
}

SplitProxy::SplitProxy(Session* s_) : s(s_) {
  for (long long k = 0; k < s->p->proxy_connections; ++k) {
    Connection* conn = s->add_connection(0);  // core.PATH: the long haul
    conn->open(s->start, HS_WARM);
    auto lane = std::make_unique<Lane>();
    lane->conn = conn;
    conn->server->on_data = DH_REMOTE_REQUEST;
    conn->client->on_data = DH_LOCAL_PIECE;
    grow(s->conns.size());
    lane_of[static_cast<size_t>(conn->id)] = lane.get();
    lanes.push_back(std::move(lane));
  }
}

void SplitProxy::grow(size_t n) {
  if (lane_of.size() >= n) return;
  lane_of.resize(n, nullptr);
  queues.resize(n);
  heads.resize(n, 0);
  upstream.resize(n, nullptr);
  up_of.resize(n, nullptr);
}

// ------------------------------------------------------------------------------------------------- requests
void SplitProxy::attach(Connection* conn) {  // SplitProxy.attach: a new client connection, answered by the local proxy
  conn->server->on_data = DH_LOCAL_REQUEST;
  grow(s->conns.size());
  queues[static_cast<size_t>(conn->id)].clear();
  heads[static_cast<size_t>(conn->id)] = 0;
}

Lane* SplitProxy::least_loaded(int side) {  // SplitProxy._least_loaded (seed 003)
  Lane* best = lanes[0].get();
  bool has_best = false;
  double best_load = 0.0;
  for (const auto& lane : lanes) {
    const Endpoint* ep = side == 0 ? lane->conn->client.get() : lane->conn->server.get();
    double load = ep->end_n - ep->una_n;
    if (!has_best || load < best_load) {
      best = lane.get();
      best_load = load;
      has_best = true;
    }
  }
  return best;
}

void SplitProxy::data(Endpoint* ep, double t, int32_t pkt) {
  Connection* c = ep->conn;
  switch (ep->on_data) {
    case DH_LOCAL_REQUEST:
      local_request(c, t, pkt);
      break;
    case DH_REMOTE_REQUEST:
      remote_request(lane_of[static_cast<size_t>(c->id)], t, pkt);
      break;
    case DH_LOCAL_PIECE:
      local_piece(lane_of[static_cast<size_t>(c->id)], t, pkt);
      break;
    case DH_REMOTE_REPLY:
      remote_reply(up_of[static_cast<size_t>(c->id)], t, pkt);
      break;
    default:
      break;
  }
}

void SplitProxy::local_request(Connection* c, double t, int32_t pkt) {  // SplitProxy._local_request
  const Params* p = s->p;
  long long done = static_cast<long long>(py_floordiv(c->server->rcv_n, static_cast<double>(p->request)));
  while (c->served < done) {
    std::vector<int> names = c->requests.at(static_cast<size_t>(c->served));
    c->served += 1;
    auto owned = std::make_unique<Reply>();
    Reply* reply = owned.get();
    replies.push_back(std::move(owned));
    reply->names = names;
    reply->conn = c;
    double size_n = 0.0;
    for (int name : names) {
      long long nbytes = s->objects[static_cast<size_t>(name)].bytes;
      reply->size = reply->size + static_cast<double>(p->header) + static_cast<double>(nbytes);
      size_n += static_cast<double>(p->header + nbytes);
      reply->bounds.emplace_back(size_n, name);
    }
    reply->size_n = size_n;
    queues[static_cast<size_t>(c->id)].push_back(reply);
    Lane* lane = least_loaded(0);
    lane->requests.push_back(reply);
    lane->conn->client->write(t, static_cast<double>(p->request), names[0], s->eng.point(t, pkt, false, 0.0, REQUEST));
  }
}

void SplitProxy::remote_request(Lane* lane, double t, int32_t pkt) {  // SplitProxy._remote_request
  long long done =
      static_cast<long long>(py_floordiv(lane->conn->server->rcv_n, static_cast<double>(s->p->request)));
  while (static_cast<long long>(lane->served) < done) {
    Reply* reply = lane->requests.at(lane->served);
    lane->served += 1;
    to_server(reply, s->eng.point(t, pkt, false, 0.0, REQUEST));
  }
}

void SplitProxy::to_server(Reply* reply, Ref point) {  // SplitProxy._to_server
  Connection* c = reply->conn;
  Upstream* up = upstream[static_cast<size_t>(c->id)];
  if (up == nullptr) up = open_upstream(c, point);
  up->replies.push_back(reply);
  std::pair<double, double> last = up->ends.empty() ? std::make_pair(0.0, 0.0) : up->ends.back();
  up->ends.emplace_back(last.first + reply->size, last.second + reply->size_n);
  up->conn->requests.push_back(reply->names);
  if (up->open) {
    up->conn->client->write(s->eng.point_t(point), static_cast<double>(s->p->request), reply->names[0], point);
  } else {
    up->pending.push_back(reply);
  }
}

Upstream* SplitProxy::open_upstream(Connection* c, Ref point) {  // SplitProxy._open_upstream
  int mode = s->open_mode(2);  // core.SERVER_LEG
  Connection* sc = s->add_connection(2);
  sc->close_after = c->close_after;
  if (s->p->idle_restart == IR_FAST_START && has_cwnd_cache) sc->server->cwnd = std::max(sc->server->cwnd, cwnd_cache);
  sc->server->on_data = DH_SERVER;
  sc->server->on_fin = FH_SERVER_ACK;
  sc->client->on_fin = FH_CLIENT_CLOSE;
  auto owned = std::make_unique<Upstream>();
  Upstream* up = owned.get();
  ups.push_back(std::move(owned));
  up->conn = sc;
  sc->client->on_data = DH_REMOTE_REPLY;
  grow(s->conns.size());
  up_of[static_cast<size_t>(sc->id)] = up;
  upstream[static_cast<size_t>(c->id)] = up;
  if (mode == HS_TTCP) {
    // T/TCP: the first request rides on the SYN (written just after this returns)
    s->eng.at(s->eng.point_t(point), [up, point](double) {
      up->conn->client->hold = false;
      up->conn->open(point, HS_TTCP);
    });
    up->open = true;
    sc->client->hold = true;
    return up;
  }
  sc->on_open = [this, up](double, Ref pt) { opened(up, pt); };
  sc->open(point, mode);
  return up;
}

void SplitProxy::opened(Upstream* up, Ref point) {  // SplitProxy._opened
  up->open = true;
  double t = s->eng.point_t(point);
  for (Reply* reply : up->pending) up->conn->client->write(t, static_cast<double>(s->p->request), reply->names[0], point);
  up->pending.clear();
}

void SplitProxy::idle_close(double t, Connection* c) {  // SplitProxy.idle_close
  if (static_cast<size_t>(c->id) >= upstream.size()) return;
  Upstream* up = upstream[static_cast<size_t>(c->id)];
  upstream[static_cast<size_t>(c->id)] = nullptr;
  if (up != nullptr) up->conn->server->close(t, s->eng.point(t, NIL, false, 0.0, CONN_SETUP));
}

// -------------------------------------------------------------------------------------------------- replies
void SplitProxy::remote_reply(Upstream* up, double t, int32_t pkt) {  // SplitProxy._remote_reply
  const Endpoint* ep = up->conn->client.get();
  double rcv = ep->rcv, rcv_n = ep->rcv_n;
  Ref point = s->eng.point(t, pkt, false, 0.0, SERIALIZATION);
  const double mux = static_cast<double>(s->p->proxy_mux);
  while (up->offset_n < rcv_n && up->i < up->replies.size()) {
    Reply* reply = up->replies[up->i];
    auto [end, end_n] = up->ends[up->i];
    bool whole = end_n <= rcv_n;
    double stop = whole ? end : rcv, stop_n = whole ? end_n : rcv_n;
    double piece = stop - up->offset, piece_n = stop_n - up->offset_n;
    if (reply->lane == nullptr) reply->lane = least_loaded(1)->conn;
    Lane* lane = lane_of[static_cast<size_t>(reply->lane->id)];
    int name = reply->name_at(reply->got_n);
    reply->got_n += piece_n;
    Endpoint* sender = reply->lane->server.get();
    sender->write(t, piece + mux, name, point);
    lane->chunks.push_back(Lane::Chunk{sender->end_n, reply, piece, piece_n});
    up->offset = stop;
    up->offset_n = stop_n;
    if (whole) {
      up->i += 1;
      has_cwnd_cache = true;
      cwnd_cache = up->conn->server->cwnd;
    }
  }
}

void SplitProxy::local_piece(Lane* lane, double t, int32_t pkt) {  // SplitProxy._local_piece
  double rcv_n = lane->conn->client->rcv_n;
  Ref point = s->eng.point(t, pkt, false, 0.0, SERIALIZATION);
  while (lane->chunk_i < lane->chunks.size() && lane->chunks[lane->chunk_i].end <= rcv_n) {
    Lane::Chunk chunk = lane->chunks[lane->chunk_i];
    lane->chunk_i += 1;
    Reply* reply = chunk.reply;
    size_t c = static_cast<size_t>(reply->conn->id);
    if (queues[c].at(heads[c]) == reply) {
      forward(reply, chunk.piece, chunk.piece_n, t, point);
    } else {
      reply->buffer.push_back(Reply::Held{chunk.piece, chunk.piece_n});
    }
  }
}

void SplitProxy::forward(Reply* reply, double piece, double piece_n, double t, Ref point) {  // SplitProxy._forward
  Connection* c = reply->conn;
  size_t id = static_cast<size_t>(c->id);
  c->server->write(t, piece, reply->name_at(reply->sent_n), point);
  reply->sent_n += piece_n;
  if (reply->sent_n < reply->size_n) return;
  heads[id] += 1;
  size_t head = heads[id];
  if (head < queues[id].size()) {
    Reply* waiting = queues[id][head];
    std::vector<Reply::Held> held;
    held.swap(waiting->buffer);
    for (const Reply::Held& part : held) forward(waiting, part.piece, part.piece_n, t, point);
  } else if (c->close_after && head == c->requests.size()) {
    c->server->close(t, point);
  }
}

}  // namespace ll
