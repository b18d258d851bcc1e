// latency_lab/analysis/expected_loss.py's schedule reading and latency_lab/mechanisms/loss_recovery.penalty in C++ (loss.hpp).
#include "loss.hpp"

#include <deque>
#include <limits>
#include <map>
#include <tuple>

namespace ll {

namespace {

constexpr long long FOLLOW_CAP = 10;  // expected_loss.FOLLOW_CAP
constexpr double INF = std::numeric_limits<double>::infinity();

enum Counting : uint8_t { C_ACKS = 0, C_BYTES, C_PACKETS };

struct Growth {  // loss_recovery.Growth
  long long ack_segments;
  long long abc_limit;
  bool quic;
  Counting counting;
};

// bisect.bisect_right / bisect_left over [lo, hi)
template <typename T>
size_t bisect_right(const std::vector<T>& a, T x, size_t lo, size_t hi) {
  return static_cast<size_t>(std::upper_bound(a.begin() + lo, a.begin() + hi, x) - a.begin());
}
template <typename T>
size_t bisect_right(const std::vector<T>& a, T x) { return bisect_right(a, x, 0, a.size()); }
template <typename T>
size_t bisect_left(const std::vector<T>& a, T x) {
  return static_cast<size_t>(std::lower_bound(a.begin(), a.end(), x) - a.begin());
}

// the page a time belongs to: max(bisect_right(starts, t) - 1, 0)
long long page_at(const std::vector<double>& starts, double t) {
  long long k = static_cast<long long>(bisect_right(starts, t)) - 1;
  return k > 0 ? k : 0;
}

// loss_recovery._grow
double grow(double c, double ssthresh, long long sent, const Growth& g) {
  long long acks = g.quic ? sent : (sent + g.ack_segments - 1) / g.ack_segments;
  double per_ack = static_cast<double>(sent) / static_cast<double>(acks);
  if (c < ssthresh) {
    double add;
    if (g.quic || g.counting == C_PACKETS) {
      add = static_cast<double>(sent);
    } else if (g.counting == C_BYTES) {
      double lim = static_cast<double>(g.abc_limit);
      add = static_cast<double>(acks) * (lim < per_ack ? lim : per_ack);
    } else {
      add = static_cast<double>(acks);
    }
    double cap = ssthresh > c + 1 ? ssthresh : c + 1;
    double grown = c + add;
    return grown < cap ? grown : cap;
  }
  return c + (g.quic ? static_cast<double>(sent) / c : static_cast<double>(acks) / c);
}

// what penalty_burst reads of a burst: its segments, its largest round, its rounds, its rounds that wait for the
// delayed-ACK timer (all but the last, of fewer than ack_segments)
struct BurstStat {
  long long total = 0, biggest = 0, r0 = 0, s0 = 0;
};

BurstStat burst_stat(const long long* b, size_t len, const Growth& g) {
  BurstStat st;
  for (size_t i = 0; i < len; ++i) {
    st.total += b[i];
    if (b[i] > st.biggest) st.biggest = b[i];
  }
  st.r0 = static_cast<long long>(len);
  for (size_t i = 0; i + 1 < len; ++i)
    if (b[i] < g.ack_segments) ++st.s0;
  return st;
}

// loss_recovery.penalty's walks over one page of one flow. A persistent connection's responses are alike (runs of
// equal bursts), and every segment's loss walks the rest of them again from the window it left: a walk through a run
// of equal bursts from a window and ssthresh is the same wherever in the run it starts, so each is made once, burst by
// burst as far as asked (its rounds, stalls and window after each burst, and the burst where the window was back).
struct Walk {
  std::vector<long long> rounds, stalls;  // after each burst of the run (cumulative)
  std::vector<double> window;             // the window after each burst
  size_t back = SIZE_MAX;                 // the burst (0-based) whose window was back, if any
};

struct Walks {
  const std::vector<std::vector<long long>>& sizes;
  std::vector<long long> peak;   // peak[v]: the largest round of bursts v.. (peak[sizes.size()] = 0)
  std::vector<size_t> same_end;  // same_end[v]: the first burst after v unlike it (or empty)
  std::vector<BurstStat> stat;   // each burst's
  const Growth& g;
  // (same_end of the run, window, ssthresh) -> the walk through the run's bursts but its last (whose later bursts
  // differ, so the window's test differs)
  std::map<std::tuple<size_t, double, double>, Walk> done;

  Walks(const std::vector<std::vector<long long>>& s, const Growth& g_)
      : sizes(s), peak(s.size() + 1, 0), same_end(s.size()), stat(s.size()), g(g_) {
    for (size_t v = s.size(); v-- > 0;) {
      stat[v] = burst_stat(s[v].data(), s[v].size(), g);
      peak[v] = peak[v + 1];
      for (long long x : s[v]) peak[v] = std::max(peak[v], x);
      same_end[v] = v + 1 < s.size() && !s[v].empty() && s[v] == s[v + 1] ? same_end[v + 1] : v + 1;
    }
  }
};

// one burst of loss_recovery.penalty from window c (updated): adds its extra rounds and stalls unless the window is
// back (true), with `later` the largest round of the bursts after it
bool penalty_burst(const BurstStat& st, long long later, double& c, double ssthresh, const Growth& g,
                   long long& rounds, long long& stalls) {
  const long long total = st.total;
  long long r1 = 0, s1 = 0, sent = 0;
  while (sent < total) {
    long long ci = static_cast<long long>(c);
    long long n = std::min(ci > 1 ? ci : 1, total - sent);
    sent += n;
    r1 += 1;
    if (sent < total && n < g.ack_segments && !g.quic) s1 += 1;
    c = grow(c, ssthresh, n, g);
  }
  if (r1 <= st.r0 && s1 <= st.s0 && c >= static_cast<double>(std::max(st.biggest, later))) return true;
  rounds += std::max(r1 - st.r0, 0LL);
  stalls += std::max(s1 - st.s0, 0LL);
  return false;
}

// loss_recovery.penalty over expected_loss._rest_of(sizes, u, r)
std::pair<long long, long long> penalty(Walks& wk, size_t u, size_t r, double c, double ssthresh, const Growth& g) {
  const std::vector<std::vector<long long>>& sizes = wk.sizes;
  long long rounds = 0, stalls = 0;
  if (u < sizes.size() && r + 1 < sizes[u].size()) {
    if (penalty_burst(burst_stat(sizes[u].data() + r + 1, sizes[u].size() - r - 1, g), wk.peak[u + 1], c, ssthresh, g,
                      rounds, stalls))
      return {rounds, stalls};
  }
  size_t v = u + 1;
  bool cached = true;
  while (v < sizes.size()) {
    if (sizes[v].empty()) {
      ++v;
      continue;
    }
    size_t end = wk.same_end[v];
    size_t inside = end - 1 - v;  // bursts v .. end - 2: equal, and the same bursts after each
    if (inside > 0 && !cached) {
      // walks are shared only where the walk enters its first run of equal bursts: further on its window is one
      // that no other walk has (a page of 368 unequal responses made 542,565 shared walks of 14,756 calls, each used
      // once, and 1.0 s of CPU), so there it goes burst by burst
      const BurstStat& b = wk.stat[v];
      for (size_t i = 0; i < inside; ++i)
        if (penalty_burst(b, wk.peak[end - 1], c, ssthresh, g, rounds, stalls)) return {rounds, stalls};
    } else if (inside > 0) {
      cached = false;
      Walk& w = wk.done[std::make_tuple(end, c, ssthresh)];
      const BurstStat& b = wk.stat[v];
      while (w.rounds.size() < inside && w.back == SIZE_MAX) {
        size_t i = w.rounds.size();
        double cw = i ? w.window[i - 1] : c;
        long long wr = i ? w.rounds[i - 1] : 0, ws = i ? w.stalls[i - 1] : 0;
        if (penalty_burst(b, wk.peak[end - 1], cw, ssthresh, g, wr, ws)) {
          w.back = i;
        } else {
          w.rounds.push_back(wr);
          w.stalls.push_back(ws);
          w.window.push_back(cw);
        }
      }
      if (w.back < inside) {  // back at the run's burst w.back: the bursts before it counted
        return {rounds + (w.back ? w.rounds[w.back - 1] : 0), stalls + (w.back ? w.stalls[w.back - 1] : 0)};
      }
      rounds += w.rounds[inside - 1];
      stalls += w.stalls[inside - 1];
      c = w.window[inside - 1];
    }
    // the run's last burst, whose later bursts are the next run's
    if (penalty_burst(wk.stat[end - 1], wk.peak[end], c, ssthresh, g, rounds, stalls))
      return {rounds, stalls};
    v = end;
  }
  return {rounds, stalls};
}

// the next node back along the causes (expected_loss._follow, as path_connections follows them)
inline Ref follow(const Engine& eng, Ref node) {
  if (is_point(node)) return eng.points[point_index(node)].base;
  const Packet& p = eng.packets[node];
  return p.cause.kind != CK_NONE ? p.cause.ref : NIL;
}

// expected_loss._windows: each data segment's window, whether an RTT sample had come, when its ACK arrived
void windows(const Engine& eng, const std::vector<int32_t>& data, const std::vector<int32_t>& acks,
             std::vector<long long>& w, std::vector<char>& sampled, std::vector<double>& ack_at) {
  const auto& pk = eng.packets;
  size_t n = data.size();
  std::vector<double> ends(n);
  for (size_t i = 0; i < n; ++i) ends[i] = pk[data[i]].seq_end;
  std::vector<long long> out_at(n);
  sampled.assign(n, 0);
  double best = -1.0;
  size_t a = 0;
  for (size_t i = 0; i < n; ++i) {
    const Packet& p = pk[data[i]];
    while (a < acks.size() && pk[acks[a]].t_a <= p.t_q) {
      best = std::max(best, pk[acks[a]].ack);
      ++a;
    }
    size_t acked = bisect_right(ends, best, 0, i);
    out_at[i] = static_cast<long long>(i + 1 - acked);
    sampled[i] = best > 0;
  }
  ack_at.assign(n, INF);
  a = 0;
  double best_t = INF;
  best = -1.0;
  for (size_t i = 0; i < n; ++i) {
    double se = pk[data[i]].seq_end;
    while (best < se && a < acks.size()) {
      best = std::max(best, pk[acks[a]].ack);
      best_t = pk[acks[a]].t_a;
      ++a;
    }
    ack_at[i] = best >= se ? best_t : INF;
  }
  w.assign(n, 0);
  std::deque<size_t> dq;
  size_t r = 0;
  for (size_t i = 0; i < n; ++i) {
    while (r < n && (r == i || pk[data[r]].t_q < ack_at[i])) {
      while (!dq.empty() && out_at[dq.back()] <= out_at[r]) dq.pop_back();
      dq.push_back(r);
      ++r;
    }
    while (dq.front() < i) dq.pop_front();
    w[i] = out_at[dq.front()];
  }
}

using Bursts = std::vector<std::vector<std::vector<size_t>>>;

// expected_loss.bursts
Bursts bursts(const Engine& eng, const std::vector<int32_t>& data, const std::vector<double>& ack_at) {
  Bursts out;
  double first_ack = INF;
  for (size_t i = 0; i < data.size(); ++i) {
    double t = eng.packets[data[i]].t_q;
    if (out.empty() || t >= ack_at[i - 1]) {
      out.push_back({{i}});
      first_ack = ack_at[i];
    } else if (t >= first_ack) {
      out.back().push_back({i});
      first_ack = ack_at[i];
    } else {
      out.back().back().push_back(i);
    }
  }
  return out;
}

struct Reader {
  const Session& s;
  const Engine& eng;
  bool quic;
  Growth growth;
  std::vector<double> starts, ends;
  std::vector<char> first_object;  // by object: the first of its page
  std::vector<std::vector<int32_t>> by_flow;  // (conn, dir) -> packets, index conn * 6 + dir

  Reader(const Session& s_, bool quic_) : s(s_), eng(s_.eng), quic(quic_) {
    const Profile& pr = s.p->profile;
    Counting counting = pr.cwnd_counts_packets ? C_PACKETS : pr.cwnd_counts_bytes ? C_BYTES : C_ACKS;
    growth.ack_segments = quic ? 2 : std::max(s.p->dack_segments, 1LL);
    growth.abc_limit = counting == C_BYTES ? pr.cwnd_abc_limit_segments : 1;
    growth.quic = quic;
    growth.counting = counting;
    for (Ref st : s.page_start) starts.push_back(eng.point_t(st));
    for (int32_t e : s.page_end) ends.push_back(eng.packets[e].t_a);
    first_object.assign(s.objects.size(), 0);
    for (const auto& names : s.page_names)
      if (!names.empty() && names[0] >= 0) first_object[names[0]] = 1;
  }

  const std::vector<int32_t>& flow(int c, int d) const { return by_flow[static_cast<size_t>(c) * 6 + d]; }

  // expected_loss._connection_runs
  void connection_runs(int c, int chain, std::vector<LossRun>& runs) const {
    const Connection& conn = *s.conns[c];
    bool mux = conn.mux != nullptr;
    std::vector<double> obj_starts, obj_ends;
    for (const ObjectRecord& r : s.objects) {
      if (r.connection == c && r.has_start && r.has_end) {
        obj_starts.push_back(r.start);
        obj_ends.push_back(r.end);
      }
    }
    std::sort(obj_starts.begin(), obj_starts.end());
    std::sort(obj_ends.begin(), obj_ends.end());
    for (int d : conn.links) {
      std::vector<int32_t> fl;
      for (int32_t i : flow(c, d)) {
        const Packet& p = eng.packets[i];
        if (p.kind == K_DATA && p.n > 0) fl.push_back(i);
      }
      if (fl.empty()) continue;
      std::vector<long long> w_all;
      std::vector<char> sampled_all;
      std::vector<double> ack_all;
      windows(eng, fl, flow(c, d ^ 1), w_all, sampled_all, ack_all);
      const Endpoint& sender = conn.client->dir == d ? *conn.client : *conn.server;
      std::vector<double> rto_t, rto_v;
      for (const auto& e : sender.rto_log) {
        rto_t.push_back(e.first);
        rto_v.push_back(e.second);
      }
      double initial_rto = conn.rto;
      std::vector<double> restarts;
      if (!quic) {
        restarts = sender.restart_t;
        std::sort(restarts.begin(), restarts.end());
      }
      std::map<long long, std::vector<size_t>> pages;
      for (size_t i = 0; i < fl.size(); ++i) pages[page_at(starts, eng.packets[fl[i]].t_q)].push_back(i);
      for (const auto& [page, idx] : pages) {
        std::vector<int32_t> data;
        std::vector<long long> w;
        std::vector<char> sampled;
        std::vector<double> ack_at;
        data.reserve(idx.size());
        w.reserve(idx.size());
        sampled.reserve(idx.size());
        ack_at.reserve(idx.size());
        for (size_t i : idx) {
          data.push_back(fl[i]);
          w.push_back(w_all[i]);
          sampled.push_back(sampled_all[i]);
          ack_at.push_back(ack_all[i]);
        }
        auto tq = [&](size_t k) { return eng.packets[data[k]].t_q; };
        Bursts groups = bursts(eng, data, ack_at);
        std::vector<double> sends(data.size());
        for (size_t k = 0; k < data.size(); ++k) sends[k] = tq(k);
        std::vector<std::vector<long long>> sizes;
        sizes.reserve(groups.size());
        for (const auto& b : groups) {
          std::vector<long long> rs;
          rs.reserve(b.size());
          for (const auto& rnd : b) rs.push_back(static_cast<long long>(rnd.size()));
          sizes.push_back(rs);
        }
        for (size_t u = 1; u < groups.size(); ++u) {
          size_t lo = bisect_right(restarts, tq(groups[u - 1].back().back()));
          if (lo < restarts.size() && restarts[lo] <= tq(groups[u][0][0])) {
            sizes.resize(u);
            break;
          }
        }
        Walks walks(sizes, growth);
        std::vector<std::tuple<size_t, size_t, long long>> where(data.size());
        for (size_t u = 0; u < groups.size(); ++u) {
          size_t first = groups[u][0][0];
          for (size_t r = 0; r < groups[u].size(); ++r)
            for (size_t i : groups[u][r]) where[i] = {u, r, static_cast<long long>(i - first)};
        }
        size_t nb = sizes.size();
        std::vector<std::pair<double, double>> bounds;
        for (size_t u = 0; u < nb; ++u)
          bounds.emplace_back(tq(groups[u][0][0]), eng.packets[data[groups[u].back().back()]].t_a);
        std::vector<double> later(nb + 1, 0.0);
        for (size_t v = nb; v-- > 0;) later[v] = later[v + 1] + bounds[v].second - bounds[v].first;
        std::vector<long long> after(nb + 1, 0);
        for (size_t v = nb; v-- > 0;) {
          long long sum = 0;
          for (long long x : sizes[v]) sum += x;
          after[v] = after[v + 1] + sum;
        }
        std::vector<size_t> stretch_end(nb);
        for (size_t v = 0; v < nb; ++v) stretch_end[v] = v + 1;
        for (size_t v = nb >= 2 ? nb - 1 : 0; v-- > 0;) {
          if (eng.packets[data[groups[v + 1][0][0]]].obj == eng.packets[data[groups[v].back().back()]].obj)
            stretch_end[v] = stretch_end[v + 1];
        }
        // stretches_from[v]: the distinct stretch_end of bursts v.. (expected_loss's carry_n, a set of them): stretch_end
        // never decreases (each is v + 1 or the next one's, which is past v + 1), so equal ones are adjacent and the
        // distinct ones are counted where they change, once for all rounds
        std::vector<long long> stretches_from(nb + 1, 0);
        for (size_t v = nb; v-- > 0;)
          stretches_from[v] = stretches_from[v + 1] + (v + 1 == nb || stretch_end[v] != stretch_end[v + 1] ? 1 : 0);
        struct Pen {
          long long to_r, to_s, fr_r, fr_s, left;
          double rest_ms;
          long long carry;
          double carry_ms;
          long long carry_n;
          bool operator==(const Pen& o) const {
            return to_r == o.to_r && to_s == o.to_s && fr_r == o.fr_r && fr_s == o.fr_s && left == o.left &&
                   rest_ms == o.rest_ms && carry == o.carry && carry_ms == o.carry_ms && carry_n == o.carry_n;
          }
        };
        std::map<std::tuple<size_t, size_t, long long>, Pen> cache;
        std::map<std::pair<size_t, size_t>, Pen> base_of;
        bool has_key = false;
        size_t key_u = 0;
        long long key_w = 0, key_streams = 0, key_follow = 0;
        bool key_init = false;
        double key_slack = 0, key_rto = 0;
        Pen key_pen{};
        size_t page_first_run = runs.size();
        for (size_t k = 0; k < data.size(); ++k) {
          const Packet& pk = eng.packets[data[k]];
          auto [u, r, in_burst] = where[k];
          // a loss in the flow's first response slows from its burst's first loss; in a later one only the flow's first
          long long first_before =
              u >= nb || stretch_end[u] == stretch_end[0] ? in_burst : static_cast<long long>(k);
          // TCP: the window a loss leaves is half the data in flight when it is found (RFC 5681 (4)): the segment and
          // those sent after it before its loss could be seen, at most its window (expected_loss._connection_runs)
          long long ahead = static_cast<long long>(bisect_left(sends, ack_at[k])) - static_cast<long long>(k);
          long long flight = std::max(quic ? w[k] : std::min(w[k], ahead), 4LL);  // 4 or fewer: the least, 2
          auto ck = std::make_tuple(u, r, flight);
          auto it = cache.find(ck);
          Pen pen;
          if (it != cache.end()) {
            pen = it->second;
          } else {
            auto bk = std::make_pair(u, r);
            auto bit = base_of.find(bk);
            if (bit == base_of.end()) {  // what follows the round, whatever the window: once per round
              Pen b{};
              size_t end = u < nb ? stretch_end[u] : nb;
              b.rest_ms = u < nb ? later[u + 1] - later[end] : 0.0;
              if (u < nb && r + 1 < groups[u].size()) b.rest_ms += bounds[u].second - tq(groups[u][r + 1][0]);
              long long left = 0;
              if (u < nb)
                for (size_t j = r + 1; j < sizes[u].size(); ++j) left += sizes[u][j];
              b.left = left + after[std::min(u + 1, nb)] - after[end];
              b.carry = u < nb ? after[end] : 0;
              b.carry_n = u < nb ? stretches_from[end] : 0;
              b.carry_ms = u < nb ? later[end] : 0.0;
              bit = base_of.emplace(bk, b).first;
            }
            double half = static_cast<double>(flight) / 2;
            auto fr = penalty(walks, u, r, half, half, growth);
            auto to = quic ? fr : penalty(walks, u, r, 1.0, half, growth);
            pen = bit->second;
            pen.to_r = to.first;
            pen.to_s = to.second;
            pen.fr_r = fr.first;
            pen.fr_s = fr.second;
            cache.emplace(ck, pen);
          }
          double t = pk.t_q;
          double slack = 0.0;
          if (quic && pk.obj >= 0) {
            const ObjectRecord& rec = s.objects[pk.obj];
            if (!first_object[pk.obj] && rec.has_end) slack = std::max(ends[rec.page] - rec.end, 0.0);
          }
          long long streams = 1;
          if (mux) {
            long long open = static_cast<long long>(bisect_right(obj_starts, t)) -
                             static_cast<long long>(bisect_right(obj_ends, t));
            streams = std::max(open, 1LL);
          }
          long long follow_n = std::min(ahead - 1, FOLLOW_CAP);
          long long i_rto = static_cast<long long>(bisect_right(rto_t, t)) - 1;
          double seg_rto = quic ? 0.0 : i_rto >= 0 ? rto_v[i_rto] : initial_rto;
          bool init_pto = quic && !sampled[k];
          bool same = has_key && key_u == u && key_w == w[k] && key_init == init_pto && key_slack == slack &&
                      key_streams == streams && key_pen == pen && key_follow == follow_n && key_rto == seg_rto;
          if (same && runs.size() > page_first_run && runs.back().before + runs.back().count == static_cast<long long>(k)) {
            runs.back().count += 1;
          } else {
            LossRun run{chain,      static_cast<long long>(k), 1,        w[k],        quic,       init_pto,
                        slack,      streams,                   follow_n, first_before, pen.to_r,   pen.to_s,
                        pen.fr_r,   pen.fr_s,                  pen.left, pen.rest_ms,  page,       seg_rto,
                        pen.carry,  pen.carry_ms,              pen.carry_n};
            runs.push_back(run);
          }
          has_key = true;
          key_u = u;
          key_w = w[k];
          key_init = init_pto;
          key_slack = slack;
          key_streams = streams;
          key_pen = pen;
          key_follow = follow_n;
          key_rto = seg_rto;
        }
      }
    }
  }
};

}  // namespace

void loss_structure(const Session& s, bool quic, LossOut& out) {
  const Engine& eng = s.eng;
  Reader rd(s, quic);
  size_t nc = s.conns.size();
  rd.by_flow.assign(nc * 6, {});
  std::vector<long long> syns(nc, 0);
  std::vector<long long> page_of(nc, -1);
  // the connections on the lossy link: on a split-proxy path only the long haul's (leg 0, core.PATH)
  std::vector<char> lossy(nc, 0);
  for (size_t c = 0; c < nc; ++c) lossy[c] = s.conns[c]->leg == 0;
  for (size_t i = 0; i < eng.packets.size(); ++i) {
    const Packet& pk = eng.packets[i];
    rd.by_flow[static_cast<size_t>(pk.conn) * 6 + pk.dir].push_back(static_cast<int32_t>(i));
    if (pk.kind == K_SYN) syns[pk.conn] += 1;
    if (page_of[pk.conn] < 0) page_of[pk.conn] = page_at(rd.starts, pk.t_q);
  }
  std::vector<int> on_path;
  for (int c : path_connections(s))
    if (lossy[c]) on_path.push_back(c);
  std::vector<char> on(nc, 0);
  for (int c : on_path) on[c] = 1;
  for (int c : on_path) rd.connection_runs(c, -1, out.runs);
  // expected_loss.slack_by_connection: each connection's total float
  std::vector<std::pair<double, int32_t>> walks;
  for (const ObjectRecord& rec : s.objects) {
    if (rec.end_pkt < 0 || !rec.has_end || rec.page >= static_cast<int>(rd.ends.size())) continue;
    walks.emplace_back(std::max(rd.ends[rec.page] - rec.end, 0.0), rec.end_pkt);
  }
  std::stable_sort(walks.begin(), walks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<char> has_slack(nc, 0), seen_pk(eng.packets.size(), 0), seen_pt(eng.points.size(), 0);
  std::vector<double> slack(nc, 0.0);
  for (const auto& [margin, end_pkt] : walks) {
    Ref node = end_pkt;
    while (node != NIL) {
      char& seen = is_point(node) ? seen_pt[point_index(node)] : seen_pk[node];
      if (seen) break;
      seen = 1;
      if (!is_point(node)) {
        int c = eng.packets[node].conn;
        if (!has_slack[c] || margin < slack[c]) slack[c] = margin;
        has_slack[c] = 1;
      }
      node = follow(eng, node);
    }
  }
  for (size_t c = 0; c < nc; ++c) {
    if (on[c] || !has_slack[c] || !lossy[c]) continue;
    size_t before = out.runs.size();
    int chain = static_cast<int>(out.par_conn.size());
    rd.connection_runs(static_cast<int>(c), chain, out.runs);
    if (out.runs.size() > before || syns[c]) {
      out.par_conn.push_back(static_cast<int>(c));
      out.par_syns.push_back(syns[c]);
      out.par_slack.push_back(slack[c]);
      out.par_page.push_back(page_of[c]);
    }
  }
  if (s.protocol == P_HTTP10_PARALLEL) {  // expected_loss.slot_connections
    std::map<int, std::tuple<double, long long, bool>> own;
    for (size_t i = 0; i < s.objects.size(); ++i) {
      const ObjectRecord& rec = s.objects[i];
      int c = rec.connection;
      if (c < 0 || !lossy[c] || !rec.has_end || rec.page >= static_cast<int>(rd.ends.size())) continue;
      double margin = std::max(rd.ends[rec.page] - rec.end, 0.0);
      auto it = own.find(c);
      bool lead = rd.first_object[i] || (it != own.end() && std::get<2>(it->second));
      double m = it == own.end() ? margin : std::min(std::get<0>(it->second), margin);
      own[c] = {m, rec.page, lead};
    }
    for (const auto& [c, v] : own) {
      if (page_of[c] < 0) continue;
      int chain = -2 - static_cast<int>(out.slot_conn.size());
      rd.connection_runs(c, chain, out.runs);
      out.slot_conn.push_back(c);
      out.slot_syns.push_back(syns[c]);
      out.slot_slack.push_back(std::get<0>(v));
      out.slot_page.push_back(std::get<1>(v));
      out.slot_lead.push_back(std::get<2>(v) ? 1 : 0);
    }
  }
  out.connections = on_path;
  for (int c : on_path) out.syns += syns[c];
  out.page_syns.assign(rd.starts.size(), 0);
  for (int c : on_path)
    if (page_of[c] >= 0 && page_of[c] < static_cast<long long>(out.page_syns.size())) out.page_syns[page_of[c]] += syns[c];
}

}  // namespace ll
