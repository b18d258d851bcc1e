// See loss_recovery.hpp. Compiled with -ffp-contract=off (setup.py): every product and sum rounds as Python's does.
#include "loss_recovery.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

#include "periods.hpp"

namespace ll {
namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

// loss.py's and loss_recovery.py's constants (tests/latency_lab/engine/test_native_loss_recovery.py compares them)
constexpr double SYN_TIMEOUT_MS = 1000.0;  // loss.SYN_TIMEOUT_MS
constexpr double QUIC_INITIAL_PTO_MS = 999.0;  // loss_recovery.QUIC_INITIAL_PTO_MS
constexpr long long CARRIED_FOLLOW = 10;  // loss.CARRIED_FOLLOW
constexpr double PARTIAL_ROUND = 0.5;  // loss.PARTIAL_ROUND
constexpr long long EXACT_REST = 256;  // loss.EXACT_REST
constexpr double REST_GRID_RATIO = 1.1;  // loss.REST_GRID_RATIO
constexpr long long FOLLOW_KNOWN = 16;  // follows (expected_loss.FOLLOW_CAP: at most 10) whose repair chance is kept
// loss.TRANSIENT_PERIODS, FINE_WINDOW, BIN_RATIO, TAIL_MASS, MIN_SSTHRESH (the periods' constants)
constexpr PeriodsConstants PERIODS{3, 8.0, 1.25, 1e-4, 2.0};

enum Cause { HANDSHAKE = 0, TIMEOUTS, FAST_RETRANSMIT, SLOWER_SENDING };  // loss_recovery.CAUSES
using By = std::array<double, 4>;

// sum(by.values()): 0 + each in order
double total(const By& b) { return 0.0 + b[0] + b[1] + b[2] + b[3]; }

// ------------------------------------------------------------------------------ latency_lab/mechanisms/loss.py

// loss.handshake_extra_ms
double handshake_extra_ms(double p) {
  const double q = 1 - py_pow(1 - p, 2);
  return SYN_TIMEOUT_MS * q / (1 - 2 * q);
}

// loss.loss_probability
double loss_probability(double p, long long segments) { return 1 - py_pow(1 - p, static_cast<double>(segments)); }

// loss.timeout_probability
double timeout_probability(double p, double w) {
  if (w <= 3 || p <= 0) return w <= 3 ? 1.0 : 0.0;
  const double lg = std::log1p(-p);
  const double a3 = std::exp(3 * lg);
  const double q = (1 - a3 * std::expm1((w - 3) * lg)) * -std::expm1(3 * lg) / -std::expm1(w * lg);
  return py_min(1.0, q);
}

// the f(p) of loss.timeout_ms and loss.steady_throughput: 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6
double backoff(double p) {
  return 1 + p + 2 * py_pow(p, 2) + 4 * py_pow(p, 3) + 8 * py_pow(p, 4) + 16 * py_pow(p, 5) + 32 * py_pow(p, 6);
}

// loss.steady_window
double steady_window(double p, long long b) {
  const double k = static_cast<double>(2 + b) / static_cast<double>(3 * b);
  return k + std::sqrt(8 * (1 - p) / (static_cast<double>(3 * b) * p) + k * k);
}

// loss.steady_throughput
double steady_throughput(double p, double rtt_ms, double rto_ms, long long b, double w_max) {
  const double w = steady_window(p, b);
  const double bd = static_cast<double>(b);
  const double timeouts = rto_ms * backoff(p) / (1 - p);
  if (w < w_max) {
    const double q = timeout_probability(p, w);
    return ((1 - p) / p + w + q / (1 - p)) / (rtt_ms * (bd * w / 2 + 1) + q * timeouts);
  }
  const double q = timeout_probability(p, w_max);
  const double rounds = bd * w_max / 8 + (1 - p) / (p * w_max) + 2;
  return ((1 - p) / p + w_max + q / (1 - p)) / (rtt_ms * rounds + q * timeouts);
}

// loss._key
double key(double w) {
  if (w <= PERIODS.fine_window) return std::nearbyint(w * 2) / 2;
  return PERIODS.fine_window *
         py_pow(PERIODS.bin_ratio, std::nearbyint(log_base(w / PERIODS.fine_window, PERIODS.bin_ratio)));
}

// loss._tree (the native evaluator, as loss.use_periods sets it) with loss's lru_caches (_after_loss_cached,
// _after_loss_open): the same trees again and again across runs. Per thread; forgotten when it grows large.
PeriodsOut tree(double p, double rest, double h, long long b, double w_max) {
  using Key = std::tuple<double, double, double, long long, double>;
  thread_local std::map<Key, PeriodsOut> cache;
  const Key k{p, rest, h, b, w_max};
  auto it = cache.find(k);
  if (it != cache.end()) return it->second;
  if (cache.size() >= 16384) cache.clear();
  const PeriodsOut out = after_loss_tree(p, rest, h, static_cast<int>(b), w_max, PERIODS);
  cache.emplace(k, out);
  return out;
}

// loss._periods_ms
double periods_ms(const PeriodsOut& t, long long rest, double rtt_ms, double z_ms, double rate) {
  return t.rounds * rtt_ms + t.timeouts * z_ms - t.used / rate + t.sending * static_cast<double>(rest) / rate;
}

// loss.after_loss_ms, with its z = timeout_ms(p, rto_ms) and rate = steady_throughput(p, rtt_ms, rto_ms, b, w_max)
// worked out by the caller (the same for every run of a costing)
double after_loss_ms(double p, long long rest, double w0, double rtt_ms, double z, double rate, long long b,
                     double w_max) {
  const double h = key(py_max(py_min(w0, w_max) / 2, PERIODS.min_ssthresh));
  const PeriodsOut open = tree(p, INF, h, b, w_max);
  const long long long_rest = std::max(static_cast<long long>(std::ceil(2 * open.reach)), 1LL);
  if (rest >= long_rest) return periods_ms(open, rest, rtt_ms, z, rate);
  if (rest <= EXACT_REST) return periods_ms(tree(p, static_cast<double>(rest), h, b, w_max), rest, rtt_ms, z, rate);
  const double i = std::floor(log_base(static_cast<double>(rest) / static_cast<double>(EXACT_REST), REST_GRID_RATIO));
  const long long lo = std::min(
      static_cast<long long>(std::nearbyint(static_cast<double>(EXACT_REST) * py_pow(REST_GRID_RATIO, i))), rest);
  const long long hi = std::max(
      std::min(static_cast<long long>(std::nearbyint(static_cast<double>(EXACT_REST) * py_pow(REST_GRID_RATIO, i + 1))),
               long_rest),
      rest);
  const double t_lo = periods_ms(tree(p, static_cast<double>(lo), h, b, w_max), lo, rtt_ms, z, rate);
  if (hi == lo) return t_lo;
  const double t_hi =
      periods_ms(hi >= long_rest ? open : tree(p, static_cast<double>(hi), h, b, w_max), hi, rtt_ms, z, rate);
  return t_lo + (t_hi - t_lo) * static_cast<double>(rest - lo) / static_cast<double>(hi - lo);
}

// loss.carried_ms, with its rate = steady_throughput(p, rtt_ms, rto_ms, b, w_max) and c_mid = q timeout_ms(p, rto_ms)
// + (1 - q) rtt_ms (q = repair_timeout_probability(p, CARRIED_FOLLOW)) worked out by the caller
double carried_ms(double p, long long carry, double carry_ms_, long long carry_n, double rtt_ms, double rate,
                  double c_mid) {
  if (carry <= carry_n || p <= 0) return 0.0;
  const double cd = static_cast<double>(carry);
  return py_max(cd / rate + PARTIAL_ROUND * static_cast<double>(carry_n) * rtt_ms - carry_ms_ - cd * p * c_mid, 0.0);
}

// loss.head_of_line_ms
double head_of_line_ms(double extra_ms, long long streams, bool independent) {
  return independent ? 0.0 : extra_ms * static_cast<double>(std::max(streams - 1, 0LL));
}

// ------------------------------------------------------------------------------ latency_lab/mechanisms/loss_recovery.py

using Runs = std::vector<const LossRun*>;

struct Costing {
  const CostParams& cp;
  // the same numbers asked run after run, worked out once (pure functions of the loss rate: the same doubles)
  double f = backoff(cp.p);  // timeout_ms's f(p)
  std::array<double, FOLLOW_KNOWN> repair{};  // repair_timeout_probability(p, m) for m < FOLLOW_KNOWN

  // steady_ms's and carried_ms's periods and steady state at the connection's initial RTO (cp.rto)
  double z = 0, rate = 0, c_mid = 0;

  explicit Costing(const CostParams& cp_) : cp(cp_) {
    for (long long m = 0; m < FOLLOW_KNOWN; ++m) repair[static_cast<size_t>(m)] = repair_timeout_probability(cp.p, m);
    z = timeout(cp.rto);
    rate = steady_throughput(cp.p, cp.rtt, cp.rto, cp.ack_segments, cp.w_max);
    const double q = repair_q(CARRIED_FOLLOW);
    c_mid = q * z + (1 - q) * cp.rtt;
  }

  double repair_q(long long m) const {
    return m >= 0 && m < FOLLOW_KNOWN ? repair[static_cast<size_t>(m)] : repair_timeout_probability(cp.p, m);
  }

  // loss.timeout_ms(p, rto_ms)
  double timeout(double rto_ms) const { return rto_ms * f / (1 - cp.p); }

  // loss_recovery._cost_parts: (timeout part, fast part)
  std::pair<double, double> cost_parts(const LossRun& run) const {
    const double w = static_cast<double>(run.w);
    if (run.quic) {
      const double pto = run.initial_pto ? QUIC_INITIAL_PTO_MS : 3 * cp.rtt + cp.ack_delay;
      return {pto / w, (1 - 1 / w) * cp.rtt};
    }
    const double q = repair_q(run.follow);
    const double rto = run.rto > 0 ? run.rto : cp.rto;  // loss_recovery.run_rto
    return {q * timeout(rto), (1 - q) * cp.rtt};
  }

  // loss_recovery._penalty_parts
  std::pair<double, double> penalty_parts(const LossRun& run) const {
    const double after_to = static_cast<double>(run.to_rounds) * cp.rtt + static_cast<double>(run.to_stalls) * cp.dack;
    const double after_fr = static_cast<double>(run.fr_rounds) * cp.rtt + static_cast<double>(run.fr_stalls) * cp.dack;
    if (run.quic) return {0.0, after_fr};
    const double q = repair_q(run.follow);
    return {q * after_to, (1 - q) * after_fr};
  }

  // loss_recovery.steady_ms
  double steady_ms(const LossRun& run) const {
    const auto [timeouts, fast] = cost_parts(run);
    const double after =
        after_loss_ms(cp.p, run.rest, static_cast<double>(run.w), cp.rtt, z, rate, cp.ack_segments, cp.w_max);
    return after - run.rest_ms - static_cast<double>(run.rest) * cp.p * (timeouts + fast);
  }

  // loss_recovery.carried_ms
  double carried(const LossRun& run) const {
    if (!run.carry || cp.p <= 0 || run.quic) return 0.0;
    return carried_ms(cp.p, run.carry, run.carry_ms, run.carry_n, cp.rtt, rate, c_mid);
  }

  // loss_recovery._parts: by cause, and the head of line
  std::pair<By, double> parts(long long syns, const Runs& runs) const {
    const double p = cp.p;
    By by{0.0, 0.0, 0.0, 0.0};
    by[HANDSHAKE] = static_cast<double>(syns) * handshake_extra_ms(p);
    double hol = 0.0;
    for (const LossRun* rp : runs) {
      const LossRun& run = *rp;
      const double weight = static_cast<double>(run.count) * p;  // loss.expected_losses
      const auto [timeouts, fast] = cost_parts(run);
      const double cost = timeouts + fast;
      if (cost <= 0) continue;
      const double page = py_max(cost - run.slack, 0.0);
      by[TIMEOUTS] += weight * timeouts * page / cost;
      by[FAST_RETRANSMIT] += weight * fast * page / cost;
      const double first = py_pow(1 - p, static_cast<double>(run.burst_before)) * loss_probability(p, run.count);
      const auto [to, fr] = penalty_parts(run);
      double slower = 0.0 + to + fr;
      if ((run.rest || run.carry) && p > 0 && !run.quic)
        slower = py_max(slower, (run.rest ? steady_ms(run) : 0.0) + carried(run));
      by[SLOWER_SENDING] += first * slower;
      hol += weight * head_of_line_ms(cost, run.streams, cp.h3);
    }
    return {by, hol};
  }

  // loss_recovery._timeout_chance
  double timeout_chance(const LossRun& run) const {
    return run.quic ? cp.p / static_cast<double>(run.w) : cp.p * repair_q(run.follow);
  }

  // loss_recovery.chances: (long, short)
  std::pair<double, double> chances(long long syns, const Runs& runs) const {
    const double p = cp.p;
    double none = py_pow(1 - loss_probability(p, 2), static_cast<double>(syns));
    long long segments = 0;
    for (const LossRun* run : runs) {
      none *= py_pow(1 - timeout_chance(*run), static_cast<double>(run->count));
      segments += run->count;
    }
    return {1 - none, loss_probability(p, segments)};
  }
};

struct AtomV {
  double x, pr;
};
using Atoms = std::array<AtomV, 3>;

// loss_recovery.chain_atoms
Atoms chain_atoms(double mu_long, double pi_long, double mu_short, double pi_short, double slack) {
  const double d_long = pi_long != 0 ? mu_long / pi_long : 0.0;
  const double d_short = pi_short != 0 ? mu_short / pi_short : 0.0;
  return {AtomV{d_long + d_short - slack, pi_long * pi_short}, AtomV{d_long - slack, pi_long * (1 - pi_short)},
          AtomV{d_short - slack, (1 - pi_long) * pi_short}};
}

// loss_recovery.max_terms: chains of (atoms, m)
std::vector<double> max_terms(const std::vector<std::pair<Atoms, long long>>& chains) {
  struct O {
    double x;
    size_t k, a;
    double pr;
  };
  std::vector<O> order;
  order.reserve(chains.size() * 3);
  for (size_t k = 0; k < chains.size(); ++k)
    for (size_t a = 0; a < 3; ++a) order.push_back(O{chains[k].first[a].x, k, a, chains[k].first[a].pr});
  std::sort(order.begin(), order.end(), [](const O& u, const O& v) {
    if (-u.x != -v.x) return -u.x < -v.x;
    if (u.k != v.k) return u.k < v.k;
    return u.a < v.a;
  });
  std::vector<double> passed(chains.size(), 0.0), out(chains.size(), 0.0);
  double prod = 1.0;
  long long zeros = 0;
  for (const O& o : order) {
    if (o.x <= 0) break;
    const double m = static_cast<double>(chains[o.k].second);
    const double left = 1 - passed[o.k];
    double others;
    if (left == 0)
      others = zeros == 1 ? prod : 0.0;
    else
      others = zeros ? 0.0 : prod / py_pow(left, m);
    out[o.k] += o.x * (py_pow(left, m) - py_pow(left - o.pr, m)) * others;
    if (left == 0)
      zeros -= 1;
    else
      prod /= py_pow(left, m);
    passed[o.k] += o.pr;
    if (1 - passed[o.k] == 0)
      zeros += 1;
    else
      prod *= py_pow(1 - passed[o.k], m);
  }
  return out;
}

// Run's equality (a dataclass's: every field), for loss_recovery._page_groups's identical chains
bool same_run(const LossRun& a, const LossRun& b) {
  return a.before == b.before && a.count == b.count && a.w == b.w && a.quic == b.quic &&
         a.initial_pto == b.initial_pto && a.slack == b.slack && a.streams == b.streams && a.follow == b.follow &&
         a.burst_before == b.burst_before && a.to_rounds == b.to_rounds && a.to_stalls == b.to_stalls &&
         a.fr_rounds == b.fr_rounds && a.fr_stalls == b.fr_stalls && a.rest == b.rest && a.rest_ms == b.rest_ms &&
         a.page == b.page && a.rto == b.rto && a.carry == b.carry && a.carry_ms == b.carry_ms &&
         a.carry_n == b.carry_n;
}

bool same_runs(const Runs& a, const Runs& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!same_run(*a[i], *b[i])) return false;
  return true;
}

struct Chain {  // loss_recovery.Chain: SYN exchanges, runs, slack (ms)
  long long syns;
  Runs runs;
  double slack;
};

double mu_long(const By& b) { return 0.0 + b[HANDSHAKE] + b[TIMEOUTS]; }  // sum over LONG_CAUSES
double mu_short(const By& b) { return 0.0 + b[FAST_RETRANSMIT] + b[SLOWER_SENDING]; }  // sum over SHORT_CAUSES

}  // namespace

LossCosted loss_expected(const LossOut& lo, const CostParams& cp) {
  const Costing co(cp);
  const double p = cp.p;
  // from_native: the runs of the page's path (chain -1), of each other connection (chain k) and each slot's (-2 - k)
  Runs path;
  std::vector<Runs> own(lo.par_conn.size()), slot_runs(lo.slot_conn.size());
  for (const LossRun& run : lo.runs) {
    if (run.chain == -1)
      path.push_back(&run);
    else if (run.chain >= 0)
      own[static_cast<size_t>(run.chain)].push_back(&run);
    else
      slot_runs[static_cast<size_t>(-2 - run.chain)].push_back(&run);
  }
  LossCosted out{};
  for (const LossRun* run : path) out.segments += run->count;

  // loss_recovery.expected
  auto [by, hol] = co.parts(lo.syns, path);
  if (!lo.slot_conn.empty() && p > 0) {  // loss_recovery.slot_shares
    by = By{0.0, 0.0, 0.0, 0.0};
    const long long k = std::max(lo.slot_conn.empty() ? 0LL : cp.parallel, 1LL);
    const double kd = static_cast<double>(k);
    long long pages = -1;  // slot_pages
    for (long long page : lo.slot_page) pages = std::max(pages, page);
    pages += 1;
    for (long long g = 0; g < pages; ++g) {
      std::vector<size_t> leads, jobs;
      for (size_t c = 0; c < lo.slot_conn.size(); ++c)
        if (lo.slot_page[c] == g) (lo.slot_lead[c] ? leads : jobs).push_back(c);
      for (size_t c : leads) {
        const By b = co.parts(lo.slot_syns[c], slot_runs[c]).first;
        for (int cause = 0; cause < 4; ++cause) by[cause] += b[cause];
      }
      std::vector<By> parts;
      for (size_t c : jobs) parts.push_back(co.parts(lo.slot_syns[c], slot_runs[c]).first);
      struct Row {
        double mu_long, pi_long, mu_short, pi_short, own, x;
      };
      std::vector<Row> rows;
      for (size_t j = 0; j < jobs.size(); ++j) {
        const size_t c = jobs[j];
        const By& b = parts[j];
        for (int cause = 0; cause < 4; ++cause) by[cause] += b[cause] / kd;
        const auto [long_, short_] = co.chances(lo.slot_syns[c], slot_runs[c]);
        const double ml = mu_long(b), ms = mu_short(b);
        rows.push_back(Row{ml, long_, ms, short_, lo.slot_slack[c], ml + ms});
      }
      // loss_recovery.slot_chains(rows, k, 1 - 1/k), and the live ones
      const double scale = 1 - 1 / kd;
      std::vector<Atoms> atoms(rows.size());
      double later = 0.0;
      for (size_t j = rows.size(); j-- > 0;) {
        const Row& r = rows[j];
        atoms[j] = chain_atoms(scale * r.mu_long, r.pi_long, scale * r.mu_short, r.pi_short, r.own + later / kd);
        later = later + r.x;
      }
      std::vector<size_t> live;
      std::vector<std::pair<Atoms, long long>> chains;
      for (size_t j = 0; j < rows.size(); ++j) {
        if (atoms[j][0].x > 0 || atoms[j][1].x > 0 || atoms[j][2].x > 0) {
          live.push_back(j);
          chains.emplace_back(atoms[j], 1);
        }
      }
      if (live.empty()) continue;
      const std::vector<double> terms = max_terms(chains);
      for (size_t i = 0; i < live.size(); ++i) {
        const double t = terms[i];
        const By& b = parts[live[i]];
        const double tot = total(b);
        if (t > 0 && tot > 0)
          for (int cause = 0; cause < 4; ++cause) by[cause] += t * b[cause] / tot;
      }
    }
  } else if (!lo.par_conn.empty() && p > 0) {
    by = By{0.0, 0.0, 0.0, 0.0};
    // loss_recovery._page_groups
    std::vector<long long> page_syns = lo.page_syns;
    if (page_syns.empty()) page_syns.push_back(lo.syns);
    for (size_t g = 0; g < page_syns.size(); ++g) {
      std::vector<std::pair<Chain, long long>> group;
      Chain first{page_syns[g], {}, 0.0};
      for (const LossRun* run : path)
        if (run->page == static_cast<long long>(g)) first.runs.push_back(run);
      group.emplace_back(std::move(first), 1);
      const size_t n_path = 1;
      for (size_t o = 0; o < lo.par_conn.size(); ++o) {
        if (lo.par_page[o] != static_cast<long long>(g)) continue;
        bool found = false;
        for (size_t i = n_path; i < group.size(); ++i) {
          Chain& c = group[i].first;
          if (c.syns == lo.par_syns[o] && c.slack == lo.par_slack[o] && same_runs(c.runs, own[o])) {
            group[i].second += 1;
            found = true;
            break;
          }
        }
        if (!found) group.emplace_back(Chain{lo.par_syns[o], own[o], lo.par_slack[o]}, 1);
      }
      std::vector<By> parts;
      for (const auto& [chain, m] : group) parts.push_back(co.parts(chain.syns, chain.runs).first);
      if (group.size() == 1) {
        for (int cause = 0; cause < 4; ++cause) by[cause] = by[cause] + parts[0][cause];
        continue;
      }
      std::vector<std::pair<Atoms, long long>> chains;
      for (size_t i = 0; i < group.size(); ++i) {
        const Chain& c = group[i].first;
        const auto [long_, short_] = co.chances(c.syns, c.runs);
        chains.emplace_back(chain_atoms(mu_long(parts[i]), long_, mu_short(parts[i]), short_, c.slack), group[i].second);
      }
      const std::vector<double> terms = max_terms(chains);
      for (size_t i = 0; i < group.size(); ++i) {
        const double t = terms[i];
        if (t > 0)
          for (int cause = 0; cause < 4; ++cause) by[cause] += t * parts[i][cause] / total(parts[i]);
      }
    }
  }
  out.handshake = by[HANDSHAKE];
  out.timeouts = by[TIMEOUTS];
  out.fast_retransmit = by[FAST_RETRANSMIT];
  out.slower_sending = by[SLOWER_SENDING];
  out.extra = total(by);
  out.head_of_line = hol;
  return out;
}

LossRecoveryConstants loss_recovery_constants() {
  return LossRecoveryConstants{SYN_TIMEOUT_MS,
                               QUIC_INITIAL_PTO_MS,
                               PARTIAL_ROUND,
                               static_cast<double>(EXACT_REST),
                               REST_GRID_RATIO,
                               CARRIED_FOLLOW,
                               PERIODS.transient_periods,
                               PERIODS.fine_window,
                               PERIODS.bin_ratio,
                               PERIODS.tail_mass,
                               PERIODS.min_ssthresh};
}

}  // namespace ll
