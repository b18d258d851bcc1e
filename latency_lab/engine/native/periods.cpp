// See periods.hpp. Compiled with -ffp-contract=off (setup.py): every product and sum rounds as Python's does.
#include "periods.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

namespace ll {

// Python's x ** y on floats: libm's pow at run time (never folded into a product where y is a constant)
[[gnu::noinline]] double py_pow(double x, double y) { return std::pow(x, y); }

// loss.position_timeout_probability (math.comb(m, j) for j = 0, 1, 2)
double position_timeout_probability(double p, long long m) {
  if (m < 3) return 1.0;
  const double comb[3] = {1.0, static_cast<double>(m), static_cast<double>(m * (m - 1) / 2)};
  double s = 0.0;
  for (int j = 0; j < 3; ++j)
    s += comb[j] * py_pow(1 - p, static_cast<double>(j)) * py_pow(p, static_cast<double>(m - j));
  return s;
}

// loss.repair_timeout_probability
double repair_timeout_probability(double p, long long m) {
  const double q = position_timeout_probability(p, m);
  return 1 - (1 - q) * (1 - p);
}

namespace {

const double INF = std::numeric_limits<double>::infinity();

// loss.window_timeout_probability
double window_timeout_probability(double p, double w) {
  return repair_timeout_probability(p, std::max(static_cast<long long>(w) - 1, 0LL));
}

// loss._segments_to
double segments_to(double w, double c0, double ssthresh, int b) {
  if (w <= c0) return 0.0;
  if (c0 < ssthresh && w <= ssthresh) return b * (w - c0);
  const double k_ss = c0 < ssthresh ? b * (ssthresh - c0) : 0.0;
  const double base = py_max(ssthresh, c0);
  return k_ss + b * (w * w - base * base) / 2;
}

// loss._window_after
double window_after(double k, double c0, double ssthresh, int b, double w_max) {
  const double k_ss = c0 < ssthresh ? b * (ssthresh - c0) : 0.0;
  if (k <= k_ss) return py_min(c0 + k / b, w_max);
  const double base = py_max(ssthresh, c0);
  return py_min(std::sqrt(base * base + 2 * (k - k_ss) / b), w_max);
}

// loss._rounds_for
double rounds_for(double k, double c0, double ssthresh, int b, double w_max) {
  const double gamma = 1 + 1.0 / b;
  const double k_ss = c0 < ssthresh ? b * (ssthresh - c0) : 0.0;
  if (k <= k_ss) return log_base((c0 + k / b) / c0, gamma);
  const double rounds = c0 < ssthresh ? log_base(ssthresh / c0, gamma) : 0.0;
  const double base = py_max(ssthresh, c0);
  const double k_max = segments_to(w_max, c0, ssthresh, b);
  if (k <= k_max) return rounds + b * (window_after(k, c0, ssthresh, b, w_max) - base);
  return rounds + b * (w_max - base) + (k - k_max) / w_max;
}

// loss._mean_in
double mean_in(double lo, double hi, double p) {
  const double lam = -std::log1p(-p);
  const double d = hi - lo;
  if (d == INF) return lo + py_min(1 / lam, 1e300);
  if (lam * d < 1e-6) return lo + d / 2;
  const double x = std::exp(-lam * d);
  return py_min(py_max(lo + 1 / lam - d * x / (1 - x), lo), hi);
}

// loss._key (Python's round: half to even, as nearbyint in the default rounding mode)
double key(double w, const PeriodsConstants& c) {
  if (w <= c.fine_window) return std::nearbyint(w * 2) / 2;
  return c.fine_window * std::pow(c.bin_ratio, std::nearbyint(log_base(w / c.fine_window, c.bin_ratio)));
}

struct Atom {
  double pr, r_w, z_w, used_w;
};

// a dict of (start window, ssthresh) -> Atom in insertion order, as Python's
class Atoms {
 public:
  Atom& at(double c0, double ssthresh) {
    const auto k = std::make_pair(c0, ssthresh);
    auto it = index_.find(k);
    if (it != index_.end()) return items_[it->second].second;
    index_.emplace(k, items_.size());
    items_.push_back({k, Atom{0.0, 0.0, 0.0, 0.0}});
    return items_.back().second;
  }
  const std::vector<std::pair<std::pair<double, double>, Atom>>& items() const { return items_; }

 private:
  std::map<std::pair<double, double>, size_t> index_;
  std::vector<std::pair<std::pair<double, double>, Atom>> items_;
};

}  // namespace

// loss._after_loss_tree
PeriodsOut after_loss_tree(double p, double rest, double h, int b, double w_max, const PeriodsConstants& c) {
  const double a = 1 - p;
  Atoms atoms;
  atoms.at(h, h) = Atom{1.0, 0.0, 0.0, 0.0};
  double rounds_c = 0.0, timeouts_c = 0.0, reach = 0.0;
  std::vector<double> edges;
  for (int period = 0; period < c.transient_periods; ++period) {
    Atoms nxt;
    for (const auto& [start, atom] : atoms.items()) {
      const double c0 = start.first, ssthresh = start.second;
      const double pr = atom.pr;
      const double r = atom.r_w / pr;
      const double zs = atom.z_w / pr;
      const double used = atom.used_w / pr;
      const double left = rest - used;
      edges.assign(1, 0.0);
      const double k_max = segments_to(w_max, c0, ssthresh, b);
      double j = static_cast<double>(static_cast<long long>(c0) + 1);
      while (j <= w_max && std::pow(a, edges.back()) > c.tail_mass) {
        const double k = segments_to(j, c0, ssthresh, b);
        if (k >= left) break;
        if (k > edges.back()) edges.push_back(k);
        j = j < c.fine_window ? j + 1 : j * c.bin_ratio;
      }
      if (edges.back() < k_max && k_max < left && std::pow(a, edges.back()) > c.tail_mass) edges.push_back(k_max);
      edges.push_back(left);
      for (size_t e = 0; e + 1 < edges.size(); ++e) {
        const double lo = edges[e], hi = edges[e + 1];
        const double mass = pr * (std::pow(a, lo) - (hi < INF ? std::pow(a, hi) : 0.0));
        if (mass <= 0) continue;
        const double k = mean_in(lo, hi, p);
        const double w = window_after(k, c0, ssthresh, b, w_max);
        reach = py_max(reach, used + k + w);
        const double q = window_timeout_probability(p, w);
        const double r_loss = r + rounds_for(k, c0, ssthresh, b, w_max) + 1;
        if (left - k - w <= 0) {  // the rest ends with this period
          rounds_c += mass * (r + rounds_for(left, c0, ssthresh, b, w_max));
          timeouts_c += mass * (zs + q);
          continue;
        }
        const double s = key(py_max(w / 2, c.min_ssthresh), c);
        const double shares[2] = {mass * (1 - q), mass * q};
        const double z_after[2] = {zs, zs + 1};
        const double starts[2] = {s, 1.0};
        for (int i = 0; i < 2; ++i) {
          if (shares[i] > 0) {
            Atom& old = nxt.at(starts[i], s);
            old = Atom{old.pr + shares[i], old.r_w + shares[i] * r_loss, old.z_w + shares[i] * z_after[i],
                       old.used_w + shares[i] * (used + k + w)};
          }
        }
      }
      if (left < INF) {  // no loss in the rest
        const double stays = pr * std::pow(a, left);
        rounds_c += stays * (r + rounds_for(left, c0, ssthresh, b, w_max));
        timeouts_c += stays * zs;
      }
    }
    atoms = std::move(nxt);
  }
  double used_c = 0.0, sending = 0.0;
  for (const auto& [start, atom] : atoms.items()) {
    rounds_c += atom.r_w;
    timeouts_c += atom.z_w;
    used_c += atom.used_w;
    sending += atom.pr;
  }
  return PeriodsOut{rounds_c, timeouts_c, used_c, sending, reach};
}

}  // namespace ll
