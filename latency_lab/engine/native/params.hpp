// The numbers of a resolved scenario as the native engine reads them: latency_lab.scenario.params.Params (with its split
// proxies' ProxyParams, if any), with its TCP profile's behaviours (latency_lab.scenario.profiles.TcpProfile), in model units
// (ms, bytes, ms per wire byte). Filled from Python by latency_lab/engine/native/_native.pyx.
#pragma once

#include <string>
#include <vector>

namespace ll {

struct Profile {  // latency_lab.scenario.profiles.TcpProfile, the fields the engine reads
  bool syn_ack_opens_window = false;
  bool ack_counts_bytes = false;
  bool nagle_idle_at_entry = false;
  bool close_sends_held = true;
  bool cwnd_counts_bytes = false;
  bool ack_first_segment = false;
  bool fin_on_data_acked_alone = false;
  bool deliver_before_ack = false;
  bool last_ack_any_ack = false;
  long long cwnd_abc_limit_segments = 1;
  long long quickack_segments = 0;
  bool pingpong_ack = false;
  bool cwnd_counts_packets = false;
  bool nagle_minshall = false;
  bool rtt_times_one_segment = false;
  double rto_granularity_ms = 1.0;
  bool rto_min_on_variation = false;
  double rto_max_ms = 60000.0;
  bool restart_halves_per_rto = false;
  bool cwnd_limited_growth = false;
};

enum HandshakeMode { HS_THREE_WAY = 0, HS_NONE, HS_TTCP, HS_FAST_OPEN, HS_WARM };
enum IdleRestart { IR_SLOW_START = 0, IR_KEEP, IR_FAST_START, IR_PACED };
enum TlsVersion { TLS_NONE = 0, TLS_12, TLS_13 };
enum Resumption { RES_NONE = 0, RES_AFTER_FIRST, RES_ALL };
enum Protocol { P_HTTP10 = 0, P_HTTP10_PARALLEL, P_PERSISTENT, P_PIPELINED, P_GETALL, P_H2, P_H3, P_PERSISTENT_PARALLEL };

struct Params {
  double d_up, d_down, k_up, k_down;
  long long overhead;
  Profile profile;
  Profile quic_profile;  // latency_lab.mechanisms.quic.QUIC_PROFILE
  long long mss, iw, rwnd;
  double dack_ms;
  long long dack_segments;
  bool nagle;
  int handshake;
  int idle_restart;
  double rto_ms;
  long long request, header;
  bool header_flush, flush_persistent_only;
  long long write;
  double server_think, client_think, conn_overhead;
  long long parallel;
  long long html;
  std::vector<long long> objects;
  std::vector<long long> object_parents;  // each embedded object's parent (0 the HTML); empty: every one the HTML's
  // the origins beside the HTML's (page.origins; issue 28): each one's DNS lookup (ms) and preconnect hint, and each
  // embedded object's origin (0 the HTML's, k the k-th; empty: every one the HTML's)
  std::vector<double> origin_dns_ms;
  std::vector<long long> origin_preconnected;
  std::vector<long long> origin_coalesce;  // h2/h3: on the HTML's connection (RFC 9113 9.1.1)
  std::vector<long long> object_origins;
  // each embedded object's RFC 9218 priority (page.object_urgency, page.object_incremental; issue 28): both empty when
  // none is given (a batch's streams then take turns)
  std::vector<long long> object_urgency;
  std::vector<long long> object_incremental;
  // 103 Early Hints (RFC 8297; issue 28): each embedded object's flag (empty: none is hinted), each other origin's
  // early_hint_preconnect, and the 103's size; h2 and h3 only, and only when a flag is set
  std::vector<long long> object_early_hint;
  std::vector<long long> origin_early_preconnect;
  long long early_hints_bytes = 200;
  // HTML parsed as it streams (page.object_named_at_bytes; issue 28): each embedded object's offset in its parent's
  // body on the wire after which it is named (the parent's size or more: at its end); empty: every one at the end
  std::vector<long long> object_named_at;
  // each other origin's own path (page.origins' rtt_ms, bandwidth_bps; issue 28): whether it has one, its one-way
  // delays, ms per wire byte each way and initial retransmission timeout; all empty when no origin has one
  std::vector<long long> origin_path;
  std::vector<double> origin_d_up, origin_d_down, origin_k_up, origin_k_down, origin_rto_ms;
  long long pages;
  double user_think;
  bool has_idle_timeout;
  double idle_timeout;
  double dns_ms;
  int tls;
  int tls_resumption;
  bool tls_early_data;
  bool tls_false_start;
  long long tls_client_hello, tls_server_flight;
  long long tls_tickets = 0, tls_ticket_bytes = 79;
  long long frame, mux_request, quic_datagram;
  bool mux_headers_alone = false;
  long long mux_server_settings = 0, mux_settings_ack = 0;  // h2's SETTINGS records (bytes; 0: not written)
  bool window_packets = false;  // tcp.window_counts_packets: the congestion window counts packets in flight
  double quic_ack_delay;
  double rto_min_ms;
  bool pipeline_one_write;
  bool preconnect = false;  // http.preconnect (persistent_parallel)
  // split proxies (seed 003; latency_lab.scenario.params.ProxyParams): absent on a direct path
  bool has_proxy = false;
  double d_c = 0.0, k_c = 0.0, d_s = 0.0, k_s = 0.0;  // the client leg's and the server leg's delay and ms per byte
  long long rwnd_x = 0, rwnd_c = 0, rwnd_s = 0;  // each leg's receive window, the scenario's rwnd where not given
  long long proxy_connections = 0;  // long-haul connections
  long long proxy_mux = 0;  // bytes of multiplexing header per relayed reply segment
  double rto_c = 0.0, rto_s = 0.0;  // the legs' initial retransmission timeouts (ms)
};

// core.ORIGIN_LEG: the first leg of the other origins' own paths (origin k's is ORIGIN_LEG + k - 1)
constexpr int ORIGIN_LEG = 3;

// core.Quantities: the scenario's primitive quantities (floats): each link's delay and ms per byte (two a leg: the
// path, or a split-proxy path's long haul, then its client leg and its server leg, then the other origins' own
// paths, if any) and each leg's receive window
struct Quantities {
  const Params* p;
  std::vector<double> d;
  std::vector<double> k;
  long long o;
  std::vector<long long> rwnd_n;
  explicit Quantities(const Params* p_) : p(p_), d(6), k(6), rwnd_n(3) {
    d[0] = p_->d_up; d[1] = p_->d_down; d[2] = d[3] = p_->d_c; d[4] = d[5] = p_->d_s;
    k[0] = p_->k_up; k[1] = p_->k_down; k[2] = k[3] = p_->k_c; k[4] = k[5] = p_->k_s;
    for (size_t i = 0; i < p_->origin_path.size(); ++i) {
      d.push_back(p_->origin_d_up[i]);
      d.push_back(p_->origin_d_down[i]);
      k.push_back(p_->origin_k_up[i]);
      k.push_back(p_->origin_k_down[i]);
      rwnd_n.push_back(p_->rwnd);
    }
    o = p_->overhead;
    rwnd_n[0] = rwnd_n[1] = rwnd_n[2] = p_->rwnd;
    if (p_->has_proxy) {
      rwnd_n[0] = p_->rwnd_x;
      rwnd_n[1] = p_->rwnd_c;
      rwnd_n[2] = p_->rwnd_s;
    }
  }
};

}  // namespace ll
