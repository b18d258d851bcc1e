// latency_lab/engine/tcp.py in C++: an endpoint's send, ACK and timer rules and a connection's open.
#pragma once

#include "engine.hpp"

namespace ll {

// what the application side (Session) answers to an endpoint: tcp.py calls these through ``conn.session`` and
// the ``on_data`` / ``on_fin`` callbacks
// (on a split-proxy path the proxies' relay answers too, proxy.cpp: a client connection's requests at the local proxy,
// the long haul's requests at the remote proxy and reply pieces at the local proxy, a server connection's replies at
// the remote proxy)
enum DataHandler : uint8_t { DH_NONE = 0, DH_SERVER, DH_CLIENT, DH_LOCAL_REQUEST, DH_REMOTE_REQUEST, DH_LOCAL_PIECE, DH_REMOTE_REPLY };
enum FinHandler : uint8_t { FH_NONE = 0, FH_SERVER_ACK, FH_CLIENT_CLOSE };

struct Endpoint {
  Connection* conn;
  Engine* eng;
  const Quantities* q;
  int dir;
  int side;  // 0: the opener ("client"), 1: the answerer ("server")
  double mss;
  long long mss_n;
  double rwnd;
  long long rwnd_n;
  Profile profile;
  bool nagle;
  bool window_packets;  // tcp.window_counts_packets (Endpoint.window_packets)
  long long cwnd;
  long long cwnd_cap;
  double acked_carry = 0.0;
  bool quick_ack;
  long long quickacks;
  bool pingpong_ack = false;
  bool pingpong = false;
  double last_rcv_t = -1.0;
  bool dack_bytes;
  long long dack_segments;
  double dack_ms;
  double dack;
  bool ack_handshake = false;
  int idle_restart;
  double rto;
  bool has_last_data_t = false;
  double last_data_t = 0.0;
  double rto_min;
  double srtt = -1.0;
  double rttvar = 0.0;
  std::vector<double> seg_ends;
  std::vector<double> seg_sent;
  long long seg_i = 0;
  long long timed_i = -1;
  double sml_n = 0.0;
  long long max_out = 0;
  double max_seq_n = 0.0;
  bool hold = false;
  bool pacing = false;
  double pace_interval = 0.0;
  double next_pace = 0.0;
  Ref last_paced = NIL;
  // sender
  double una = 0, una_n = 0.0, nxt = 0, end = 0;
  bool closing = false;
  bool fin_sent = false;
  int last_ack = -1;  // -1 None, 0 False, 1 True
  Reason blocked = R_NONE;
  long long blocked_len = 0;
  long long blocked_window = 0;
  bool has_last_end = false;
  double last_end = 0.0;
  std::vector<std::pair<double, int>> obj_bounds;
  long long obj_i = 0;
  double end_n = 0.0, nxt_n = 0.0;
  long long segments = 0;
  // what the loss analysis reads (tcp.Endpoint.rto_log, restart_t): each RTT sample's time and the timeout it set,
  // and when the window restarted after idling
  std::vector<std::pair<double, double>> rto_log;
  std::vector<double> restart_t;
  // receiver
  double rcv = 0, rcv_n = 0.0, un_bytes = 0.0;
  long long un_segs = 0;
  Ref first_pkt = NIL, last_pkt = NIL;
  int32_t token = 0;
  std::vector<std::pair<double, double>> hs_ranges;
  DataHandler on_data = DH_NONE;
  FinHandler on_fin = FH_NONE;
  Endpoint* peer = nullptr;

  Endpoint(Connection* c, int side_, long long cwnd_);
  void set_profile(const Profile& pr) { profile = pr; }
  double app_received() const;
  void write(double t, double nbytes, int obj, Ref point);
  void close(double t, Ref point);
  int obj_at(double offset);
  void output(double t, Cause cause);
  void restart(double t);
  void track(double t, double length_n);
  long long acked_segs(double t, double ack_n);
  void rtt_sample(double t, double sent);
  void paced_output(double t);
  void block(Reason reason, double length);
  void released(double t, const Cause& cause);
  int32_t send(Packet&& pkt, double t, const Cause& cause);
  int32_t send_control(PKind kind, double t, const Cause& cause, bool fin = false);
  void arrive(double t, int32_t pi);
  void receive(double t, int32_t pi, double payload);
  void timer(double t, int32_t tok, int32_t first);
};

struct Connection {
  Session* session;
  Engine* eng;
  int id;
  int leg = 0;  // core.PATH (the path, or the long haul between split proxies), CLIENT_LEG or SERVER_LEG
  int links[2] = {0, 1};
  double rto;
  std::unique_ptr<Endpoint> client, server;
  std::function<void(double, Ref)> on_open;
  // the HTTP applications' state (latency_lab.protocols.base.Session drives it)
  std::vector<std::vector<int>> requests;
  long long served = 0;
  bool close_after = false;
  Ref last_write = NIL;
  std::vector<std::pair<double, int>> expect;
  size_t expect_i = 0;
  double expect_end = 0.0;
  std::function<void(int, double, int32_t)> on_done;
  struct Dialogue* tls = nullptr;
  struct Mux* mux = nullptr;
  int origin = 0;  // the server's origin (page.origins; issue 28): 0 the HTML's
  long long syns = 0;
  bool has_syn_t = false;
  double syn_t = 0.0;
  double synack_t = -1.0;

  Connection(Session* s, int conn_id, int leg_ = 0);
  void open(Ref point, int mode);
  void syn_arrived(double t, int32_t syn);
  void synack_arrived(double t, int32_t synack);
  void handshake_ack_arrived(double t, int32_t pi);
};

}  // namespace ll
