// latency_lab/protocols/ in C++: the session (base.py), TLS and QUIC handshakes as packets (secure_setup.py, h3.py),
// streams (multiplex.py) and the seven protocols' schedules; and latency_lab/analysis/critical_path.py's walk.
#pragma once

#include "tcp.hpp"

namespace ll {

struct ObjectRecord {
  long long bytes;
  int page;
  int connection = -1;
  bool has_start = false;
  double start = 0.0;
  bool has_end = false;
  double end = 0.0;
  int32_t end_pkt = -1;
};

// an event of the schedule, as numbers: its sentence is written in Python (latency_lab.protocols.words)
enum EventKind : uint8_t { E_IDLE = 0, E_RESTART };
struct EventRec {
  EventKind kind;
  Reason reason;  // E_IDLE: what held the data
  int conn;
  int side;  // the sender: 0 the connection's opener, 1 its answerer
  int obj;
  double t;  // E_IDLE: when the data left; E_RESTART: when the sender restarted
  double gap;  // E_IDLE: the idle period; E_RESTART: the time idle
  long long blocked_len, blocked_window, rwnd_n;
  bool has_held;
  double held;
  double peer_dack_ms;
  int32_t note;  // -1: none
  double rto;  // E_RESTART: the sender's timeout
  long long before, after;  // E_RESTART: the window
};

struct Handshake {  // latency_lab.mechanisms.tls.Handshake
  std::vector<long long> flights;
  size_t ready;
  long long amplification_limit = 0;
  long long tickets = 0, ticket_bytes = 0;  // TLS 1.3 NewSessionTickets after the client's last flight
};

struct Dialogue;
struct Mux;
// RFC 9218 4.1's urgency when a request names none (latency_lab.scenario.schema.DEFAULT_URGENCY)
constexpr int DEFAULT_URGENCY = 3;
struct SplitProxy;

// what a protocol's schedule is told when an object's last byte arrives: (object, time, packet)
using DoneFn = std::function<void(int, double, int32_t)>;
// what a caller waiting for another origin's connection is told once it is ready: (connection, point)
using ReadyFn = std::function<void(Connection*, Ref)>;

struct OriginState {  // base.OriginState: an origin beside the HTML's in a session (page.origins; issue 28)
  int index;
  double dns_ms;
  bool preconnected;
  bool coalesce = false;  // h2/h3: on the HTML's connection (RFC 9113 9.1.1)
  bool early_preconnect = false;  // h2/h3: the HTML's 103 Early Hints names it with rel=preconnect
  bool has_lookup = false;
  Ref lookup_end = NIL;  // when its DNS lookup ends (once started)
  Connection* conn = nullptr;  // its persistent (or preconnected) connection
  bool has_ready = false;
  Ref ready = NIL;  // when conn became ready
  std::vector<ReadyFn> waiters;
  bool taken = false;  // the preconnected connection of a protocol that opens one per object was used
  long long opened = 0;  // connections opened to it
  std::shared_ptr<void> pool;  // persistent_parallel's Pool of its connections
};

struct Session {
  Params pp;
  Quantities q;
  const Params* p;
  Engine eng;
  int protocol;
  std::vector<std::unique_ptr<Connection>> conns;
  std::vector<ObjectRecord> objects;
  std::vector<std::vector<int>> page_names;
  std::vector<std::vector<int>> reveals;  // by object: the objects its arrival reveals, in index order (base.py)
  // HTML parsed as it streams (base.Session.named; page.object_named_at_bytes): by object, the body offsets on the wire
  // (sorted) at which objects it names are revealed, each with its pseudo name: an id from objects.size() on, whose
  // reveals are those objects (a done callback gets it as an object's name; it is no object)
  std::vector<std::vector<std::pair<long long, int>>> named_of;
  std::vector<EventRec> events;
  long long restarts = 0;
  Ref start;
  int page = 0;
  std::vector<Ref> page_start;
  std::vector<int32_t> page_end;
  long long page_left;
  Connection* keep_conn = nullptr;
  std::vector<Connection*> pool;  // persistent_parallel: its other persistent connections, while open
  std::shared_ptr<void> pool_state;  // persistent_parallel: its Pool (persistent_parallel.py)
  bool has_cwnd_cache = false;
  long long cwnd_cache = 0;
  long long tls_handshakes = 0;
  long long tls_bytes = 0;
  long long dns_lookups = 0;
  bool dns_done = false;
  std::vector<std::unique_ptr<Dialogue>> dialogues;
  std::vector<std::unique_ptr<Mux>> muxes;
  std::vector<std::shared_ptr<void>> drivers;  // the protocols' per-page state (their closures point at it)
  // split proxies (seed 003): the client's connections go to the local proxy, which relays (proxy.cpp)
  std::unique_ptr<SplitProxy> relay;
  int client_leg = 0;
  // the other origins (page.origins; issue 28): each object's origin, each origin's state (index o - 1), and the
  // connections opened to them (the HTML origin's TLS resumption does not count them)
  std::vector<int> origin_of;
  // by object: its RFC 9218 urgency and incremental flag (base.Session.priority), by which Mux::write_responses
  // orders a batch's frames
  std::vector<int> urgency_of;
  std::vector<char> incremental_of;
  std::vector<OriginState> origins;
  long long other_conns = 0;
  // 103 Early Hints (RFC 8297; base.Session.hints, .hinted): by object, whether the server answers its request (a
  // page's HTML) with a 103 first, the objects that 103 names, and whether a 103 names it; any_hinted: one does
  std::vector<char> sends_hints_of;
  std::vector<std::vector<int>> hints_of;
  std::vector<char> hinted_of;
  bool any_hinted = false;

  Session(const Params& params, int protocol_, long long allowance);
  void run();
  void driver(const std::vector<int>& names, Ref start);
  void object_done(int name, double t, int32_t pkt);
  void next_page(Ref start);
  void persistent(Ref start, std::function<void(Connection*, Ref)> on_open);
  int open_mode(int leg = -1);
  void record_restart(Endpoint* ep, double t, double idle, long long before, long long after);
  void record_idle(Endpoint* ep, Reason reason, double t, double gap, int32_t ack, int obj);
  Connection* add_connection(int leg = 0);
  void idle_close(double t, Connection* conn);
  void data(Endpoint* ep, double t, int32_t pkt);  // an endpoint's on_data
  Connection* new_connection(bool close_after, int leg = -1);  // leg: another origin's own path (-1: client_leg)
  void client_fin(Connection* conn, double t, int32_t pkt);
  void server_fin(Connection* conn, double t, int32_t pkt);
  Ref think(Ref point);
  void request(Connection* conn, std::vector<int> names, Ref point, std::function<void(int, double, int32_t)> on_done);
  void requests_in_one_write(Connection* conn, const std::vector<std::vector<int>>& reqs, Ref point,
                             std::function<void(int, double, int32_t)> on_done);
  void reg(Connection* conn, const std::vector<int>& names, Ref point, const std::function<void(int, double, int32_t)>& on_done);
  Connection* fetch_on_new_connection(std::vector<int> names, Ref point, std::function<void(int, double, int32_t)> on_done,
                                      bool close_after = true);
  // persistent_parallel.py
  void persistent_parallel_run(const std::vector<int>& names, Ref start);
  void ttcp(Connection* conn, Ref start, const std::function<void()>& write_request, int mode);
  void server_data(Connection* conn, double t, int32_t pkt);
  void server_write(double t, Connection* conn, const std::vector<int>& names, Ref point, bool close);
  void client_data(Connection* conn, double t, int32_t pkt);
  // the other origins (base.py)
  std::vector<std::pair<int, std::vector<int>>> by_origin(const std::vector<int>& names) const;
  Ref lookup(int o, Ref point);
  int origin_mode() const;
  Connection* open_origin(int o, Ref point, bool close_after, ReadyFn then);
  void origin_conn(int o, Ref point, ReadyFn then);
  void origin_ready(int o, Connection* conn, Ref point);
  void origin_fetch(const std::vector<int>& names, Ref point, DoneFn on_done);
  void preconnect_origins(Ref start, bool close_after, bool streams = false);
  void idle_close_origins(double t);
  Mux* streams(Connection* conn);
  // secure_setup.py
  std::function<void(Ref)> secure(Connection* conn, int mode, std::function<void(Ref)> then, long long index = -1);
  void open_quic(Connection* conn, Ref start, long long index, std::function<void(Ref)> then);
  Ref after_lookup(Ref point);
  // h3.py
  void h3_run(const std::vector<int>& names, Ref start);
  void configure_quic(Connection* conn);
  void h2_load(Connection* conn, const std::vector<int>& names, Ref point);
};

struct Dialogue {  // secure_setup.Dialogue
  Session* session;
  Connection* conn;
  Handshake hs;
  std::function<void(Ref)> then;
  size_t k = 0;
  std::vector<double> ends;
  long long rest = 0;  // bytes of the server's first flight held back by the anti-amplification limit
  bool tickets_sent = false;
  Dialogue(Session* s, Connection* c, Handshake h, std::function<void(Ref)> th);
  void start(Ref point) { client_flight(point); }
  void write(Endpoint* ep, long long nbytes, Ref point, bool hold = false);
  void put(double t, Endpoint* ep, long long nbytes, Ref point, bool hold);
  void client_flight(Ref point);
  double end_before(size_t k_) const { return k_ == 0 ? ends.back() : ends[k_ - 1]; }  // Python's ends[k - 1]
  void server_data(double t, int32_t pkt);
  void await_validation();
  void validated(double t, int32_t ack, long long r);
  void client_data(double t, int32_t pkt);
};

struct Mux {  // multiplex.Mux
  Session* s;
  Connection* conn;
  std::vector<double> req_ends;
  std::vector<int> req_names;
  double req_end = 0.0;
  size_t read = 0;
  double down_end = 0.0;
  long long batches = 0;
  // what the client does when a 103 Early Hints response arrives, given the HTML (Session::h2_load sets it)
  std::function<void(int, double, int32_t)> on_hints;
  std::vector<long long> settings;  // h2's SETTINGS records still to write (none on h3: QUIC's control streams)
  Mux(Session* s_, Connection* c);
  void write_settings(double t, int32_t pkt);
  void put_settings(double t, long long nbytes, Ref point);
  void write_hints(double t, int html, Ref point);
  void requests(const std::vector<int>& names, Ref point, std::function<void(int, double, int32_t)> on_done);
  void write_requests(double t, const std::vector<int>& names, const std::vector<double>& sizes, Ref point);
  void server_data(double t, int32_t pkt);
  void write_responses(double t, const std::vector<int>& names, Ref point);
};

// ------------------------------------------------------------------------------------------ latency_lab/protocols/proxy.py
struct Reply {  // proxy.Reply: one request's reply on its way from the server to the client
  std::vector<int> names;
  Connection* conn;  // the client connection that asked
  double size = 0.0, size_n = 0.0;
  std::vector<std::pair<double, int>> bounds;  // (end offset within the reply, object)
  Connection* lane = nullptr;  // the long-haul connection carrying it
  double got_n = 0.0, sent_n = 0.0;
  struct Held {
    double piece, piece_n;
  };
  std::vector<Held> buffer;  // pieces that arrived before their turn
  int name_at(double offset) const;
};

struct Lane {  // proxy._Lane: a long-haul connection's streams, requests up, reply pieces down
  Connection* conn;
  std::vector<Reply*> requests;
  size_t served = 0;
  struct Chunk {
    double end;  // the stream's end offset after it
    Reply* reply;
    double piece, piece_n;
  };
  std::vector<Chunk> chunks;
  size_t chunk_i = 0;
};

struct Upstream {  // proxy._Upstream: a server-leg connection, the replies it will carry and how far its stream came
  Connection* conn;
  std::vector<Reply*> replies;
  std::vector<std::pair<double, double>> ends;
  size_t i = 0;
  double offset = 0.0, offset_n = 0.0;
  bool open = false;
  std::vector<Reply*> pending;  // requests waiting for the connection to open
};

struct SplitProxy {  // proxy.SplitProxy: the two proxies and the warm connections between them
  Session* s;
  std::vector<std::unique_ptr<Lane>> lanes;
  std::vector<std::unique_ptr<Reply>> replies;  // every reply (owned here)
  std::vector<std::unique_ptr<Upstream>> ups;  // every server connection's (owned here)
  // by connection id: a long haul's lane, a client connection's replies in request order and the one being forwarded,
  // a client connection's server connection (null once closed), a server connection's Upstream
  std::vector<Lane*> lane_of;
  std::vector<std::vector<Reply*>> queues;
  std::vector<size_t> heads;
  std::vector<Upstream*> upstream, up_of;
  bool has_cwnd_cache = false;
  long long cwnd_cache = 0;  // fast start on the server leg

  explicit SplitProxy(Session* s_);
  void grow(size_t n);
  void attach(Connection* conn);
  Lane* least_loaded(int side);
  void data(Endpoint* ep, double t, int32_t pkt);
  void local_request(Connection* c, double t, int32_t pkt);
  void remote_request(Lane* lane, double t, int32_t pkt);
  void to_server(Reply* reply, Ref point);
  Upstream* open_upstream(Connection* c, Ref point);
  void opened(Upstream* up, Ref point);
  void idle_close(double t, Connection* c);
  void remote_reply(Upstream* up, double t, int32_t pkt);
  void local_piece(Lane* lane, double t, int32_t pkt);
  void forward(Reply* reply, double piece, double piece_n, double t, Ref point);
};

// critical_path.walk: the breakdown (ms per category) and the round trips of one page
struct Walk {
  double acc[NCAT];
  long long trips;
};
Walk walk(const Engine& eng, int32_t final_pkt, Ref stop);
// expected_loss.path_connections: the connections the causes cross, back from each page's last byte
std::vector<int> path_connections(const Session& s);

}  // namespace ll
