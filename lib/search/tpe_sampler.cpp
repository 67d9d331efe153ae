// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/tpe_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "search/draws.hpp"
#include "search/random_sampler.hpp"

namespace tune {
namespace {

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// Optuna's default weights: equal up to 25 observations, then a linear ramp
// from 1/n up to 1 for all but the newest 25 (observations in trial order).
std::vector<double> ramp_weights(std::size_t n) {
  std::vector<double> w(n, 1.0);
  if (n > 25)
    for (std::size_t i = 0; i < n - 25; ++i)
      w[i] = 1.0 / static_cast<double>(n) + (1.0 - 1.0 / static_cast<double>(n)) * static_cast<double>(i) /
                                                static_cast<double>(std::max<std::size_t>(1, n - 26));
  return w;
}

// The weights of a mixture of n observations' kernels and the prior (last,
// weighing as a new observation), summing to 1.
std::vector<double> mixture_weights(std::size_t n) {
  auto w = ramp_weights(n);
  w.push_back(1.0);
  double total = 0;
  for (double v : w) total += v;
  for (double& v : w) v /= total;
  return w;
}

}  // namespace

TpeSampler::Parzen::Parzen(const std::vector<double>& obs) {
  // As Optuna 3.1's _ParzenEstimator with its defaults (prior weight 1,
  // magic clip, endpoints not considered): the prior is one more centre,
  // 0.5, whose width is the whole interval.
  const std::size_t n = obs.size();
  mu = obs;
  mu.push_back(0.5);
  weight = mixture_weights(n);
  const std::size_t m = mu.size();
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return mu[a] < mu[b]; });
  std::vector<double> sorted{0.0};  // the interval's ends around the sorted centres
  for (auto i : order) sorted.push_back(mu[i]);
  sorted.push_back(1.0);
  std::vector<double> width(m);
  for (std::size_t k = 0; k < m; ++k)
    width[k] = std::max(sorted[k + 1] - sorted[k], sorted[k + 2] - sorted[k + 1]);
  if (m >= 2) {  // the outermost centres look inwards only
    width[0] = sorted[2] - sorted[1];
    width[m - 1] = sorted[m] - sorted[m - 1];
  }
  const double min_sigma = 1.0 / std::min(100.0, 1.0 + static_cast<double>(m));
  sigma.assign(m, 0.0);
  for (std::size_t k = 0; k < m; ++k) sigma[order[k]] = std::clamp(width[k], min_sigma, 1.0);
  sigma[n] = 1.0;  // the prior
}

double TpeSampler::Parzen::log_score(double x) const {
  double p = 0;
  for (std::size_t i = 0; i < mu.size(); ++i) {
    const double z = (x - mu[i]) / sigma[i];
    const double mass = normal_cdf((1 - mu[i]) / sigma[i]) - normal_cdf(-mu[i] / sigma[i]);
    p += weight[i] * std::exp(-0.5 * z * z) / (std::sqrt(2 * std::numbers::pi) * std::max(mass, 1e-300));
  }
  return std::log(std::max(p, 1e-300));
}

double TpeSampler::Parzen::sample(std::mt19937_64& rng) const {
  double r = unit_draw(rng), acc = 0;
  std::size_t k = mu.size() - 1;
  for (std::size_t i = 0; i < mu.size(); ++i)
    if ((acc += weight[i]) > r) {
      k = i;
      break;
    }
  // Inverse-CDF draw from the Gaussian truncated to [0, 1].
  const double lo = normal_cdf(-mu[k] / sigma[k]), hi = normal_cdf((1 - mu[k]) / sigma[k]);
  const double q = std::clamp(lo + unit_draw(rng) * (hi - lo), 1e-300, 1 - 1e-16);
  // Solve normal_cdf(z) = q by bisection then Newton (no inverse erf in <cmath>).
  double a = -40, b = 40;
  for (int it = 0; it < 200 && b - a > 1e-12; ++it) {
    const double mid = 0.5 * (a + b);
    (normal_cdf(mid) < q ? a : b) = mid;
  }
  return std::clamp(mu[k] + sigma[k] * 0.5 * (a + b), 0.0, 1.0);
}

TpeSampler::TpeSampler(const SearchSpace& space, std::uint64_t seed, bool minimize, std::uint64_t startup)
    : space_(space), seed_(seed), minimize_(minimize), startup_(startup) {}

std::size_t TpeSampler::good_count(std::size_t n) {
  return std::min<std::size_t>((n + 9) / 10, 25);
}

std::vector<double> TpeSampler::coordinates(const Assignment& a) const {
  // An inactive parameter (conditional space) is NaN: its estimators learn
  // only from the trials where it existed, as Optuna's do.
  std::vector<double> u;
  for (std::size_t i = 0; i < space_.parameters().size(); ++i)
    u.push_back(is_absent(a[i]) ? std::nan("") : space_.parameters()[i].encode(a[i]));
  return u;
}

void TpeSampler::observe(const Observation& done) {
  Point p;
  p.u = coordinates(done.params);
  if (done.pruned) {
    p.y = std::numeric_limits<double>::infinity(), p.pruned = true;
  } else if (done.objective && std::isfinite(*done.objective)) {
    p.y = minimize_ ? *done.objective : -*done.objective, p.pruned = false;
  } else {
    return;  // a failed trial teaches nothing reliable
  }
  points_.push_back(std::move(p));
}

std::optional<Assignment> TpeSampler::propose(std::uint64_t trial, std::span<const Assignment> pending) {
  auto rng = trial_rng(seed_, trial, 0x79e5u);
  const auto& ps = space_.parameters();
  Assignment out;
  // Random until `startup` results are known (a warm-started study may know them before its first proposal).
  if (points_.size() < startup_) return uniform_assignment(space_, rng);
  // A constant liar (Optuna's TPESampler(constant_liar=True)): a running
  // trial counts as a result worse than any, as a pruned one does, so the
  // trials proposed while it runs go elsewhere instead of where it already is.
  // With it 8 runners lose far less to one runner than without it
  // (docs/results/search-quality.md).
  std::vector<Point> points = points_;
  for (const auto& a : pending)
    points.push_back({coordinates(a), std::numeric_limits<double>::infinity(), true});
  // Split by rank (ties and pruned trials in trial order, last).
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return points[a].y < points[b].y; });
  const std::size_t good = good_count(points.size());
  std::vector<bool> is_good(points.size(), false);
  for (std::size_t k = 0; k < good; ++k) is_good[order[k]] = true;
  for (std::size_t j = 0; j < ps.size(); ++j) {
    const auto& p = ps[j];
    if (p.kind == ParamKind::Choice) {
      // As Optuna's categorical estimator: each observation is a row with
      // 1/(n+1) on every category and 1 more on its own, rows normalised and
      // mixed with the same weights as the numbers, a uniform row as prior.
      const std::size_t k = p.choices.size();
      const auto table = [&](bool from_good) {
        std::vector<std::size_t> cats;
        for (std::size_t i = 0; i < points.size(); ++i)
          if (is_good[i] == from_good && !std::isnan(points[i].u[j])) {
            const std::string chosen = std::get<std::string>(p.decode(points[i].u[j]));
            cats.push_back(static_cast<std::size_t>(std::find(p.choices.begin(), p.choices.end(), chosen) -
                                                    p.choices.begin()));
          }
        const std::size_t n = cats.size();
        const auto w = mixture_weights(n);
        const double base = 1.0 / static_cast<double>(n + 1), row = base * static_cast<double>(k) + 1;
        std::vector<double> prob(k, w[n] / static_cast<double>(k));
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t c = 0; c < k; ++c) prob[c] += w[i] * (base + (c == cats[i] ? 1 : 0)) / row;
        return prob;
      };
      const auto l = table(true), g = table(false);
      std::size_t best = 0;
      double best_score = -std::numeric_limits<double>::infinity();
      for (int c = 0; c < kCandidates; ++c) {
        double r = unit_draw(rng), acc = 0;
        std::size_t pick = k - 1;
        for (std::size_t i = 0; i < k; ++i)
          if ((acc += l[i]) > r) {
            pick = i;
            break;
          }
        const double score = std::log(l[pick]) - std::log(g[pick]);
        if (score > best_score) best_score = score, best = pick;
      }
      out.emplace_back(p.choices[best]);
    } else {
      std::vector<double> below, above;
      for (std::size_t i = 0; i < points.size(); ++i)
        if (!std::isnan(points[i].u[j])) (is_good[i] ? below : above).push_back(points[i].u[j]);
      const Parzen l(below), g(above);
      double best_u = 0.5, best_score = -std::numeric_limits<double>::infinity();
      for (int c = 0; c < kCandidates; ++c) {
        const double u = l.sample(rng);
        const double score = l.log_score(u) - g.log_score(u);
        if (score > best_score) best_score = score, best_u = u;
      }
      out.push_back(p.decode(best_u));
    }
  }
  return space_.prune_inactive(std::move(out));
}

}  // namespace tune
