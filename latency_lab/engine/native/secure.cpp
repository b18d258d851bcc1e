// latency_lab/protocols/secure_setup.py and h3.py in C++: TLS and QUIC handshakes as flights of data (see engine.hpp).
#include "session.hpp"

namespace ll {

// ---------------------------------------------------------------------------------------------- secure_setup
static Handshake tls_handshake(int version, bool resumed, bool early_data, long long hello, long long flight,
                               bool false_start) {
  // latency_lab.mechanisms.tls.handshake
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

std::function<void(Ref)> Session::secure(Connection* conn, int mode, std::function<void(Ref)> then, long long index) {
  if (p->tls == TLS_NONE || mode == HS_NONE) return then;
  // index: the connections to the same server before this one; by default those to the HTML's origin
  if (index < 0) index = static_cast<long long>(conns.size()) - 1 - other_conns;
  bool resumed = tls_resumed(p->tls_resumption, static_cast<size_t>(index));
  Handshake hs = tls_handshake(p->tls, resumed, p->tls_early_data, p->tls_client_hello, p->tls_server_flight,
                               p->tls_false_start);
  if (p->tls == TLS_13) {
    hs.tickets = p->tls_tickets;
    hs.ticket_bytes = p->tls_ticket_bytes;
  }
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
  } else if (hs.tickets > 0 && !tickets_sent && k_ == hs.flights.size() && conn->server->rcv_n >= end_before(k_)) {
    // TLS 1.3: the client's last flight has arrived; the server's tickets, each written on its own
    tickets_sent = true;
    for (long long i = 0; i < hs.tickets; ++i)
      write(conn->server.get(), hs.ticket_bytes, session->eng.point(t, pkt, false, 0.0, TLS_SETUP));
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


void Session::configure_quic(Connection* conn) {  // h3.configure
  long long payload = p->quic_datagram - 30;  // quic.stream_payload_bytes
  long long d = p->quic_datagram;
  long long iw_bytes = std::min(10 * d, std::max(14720LL, 2 * d));  // quic.initial_window_bytes
  for (Endpoint* ep : {conn->client.get(), conn->server.get()}) {
    ep->set_profile(p->quic_profile);
    ep->mss = static_cast<double>(payload);
    ep->mss_n = payload;
    ep->nagle = false;
    ep->window_packets = false;  // RFC 9002: bytes in flight
    ep->cwnd = iw_bytes / d;
    ep->cwnd_cap = p->rwnd / payload + 2;
    ep->dack_bytes = false;
    ep->dack_segments = 2;  // quic.ACK_ELICITING_THRESHOLD
    ep->dack_ms = p->quic_ack_delay;
    ep->dack = p->quic_ack_delay;
    ep->idle_restart = IR_KEEP;
    ep->quick_ack = false;
    ep->quickacks = 0;
    ep->pingpong_ack = false;
    ep->ack_handshake = true;
  }
}

void Session::h3_run(const std::vector<int>& names, Ref st) {
  Connection* conn = keep_conn;
  if (conn != nullptr) {
    h2_load(conn, names, st);
    preconnect_origins(st, false, true);
    return;
  }
  st = after_lookup(st);
  conn = new_connection(false);
  keep_conn = conn;
  open_quic(conn, st, static_cast<long long>(conns.size()) - 1 - other_conns,
            [this, conn, names](Ref point) { h2_load(conn, names, point); });
  preconnect_origins(st, false, true);
}

void Session::open_quic(Connection* conn, Ref st, long long index, std::function<void(Ref)> then) {
  // h3.open_quic: QUIC's handshake on conn at st, then then(point)
  configure_quic(conn);
  bool resumed = tls_resumed(p->tls_resumption, static_cast<size_t>(index));
  long long hello = p->quic_datagram - 30;
  long long limit = 3 * hello;  // quic.amplification_allowance_bytes: 3 (D - 30), RFC 9000 8.1
  Handshake hs;  // quic.handshake
  if (resumed && p->tls_early_data) {
    hs = Handshake{{hello, 230, 58}, 0, limit};
  } else {
    hs = Handshake{{hello, resumed ? 230 : p->tls_server_flight, 58}, 2, limit};
  }
  tls_handshakes += 1;
  dialogues.push_back(std::make_unique<Dialogue>(this, conn, hs, std::move(then)));
  dialogues.back()->start(st);
}

}  // namespace ll
