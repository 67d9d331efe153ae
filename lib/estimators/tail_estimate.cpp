// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/tail_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "history/direction.hpp"

namespace tune {
namespace {

// 1 - (1 - p)^h without losing a small p.
double any_of(double p, double h) {
  if (p <= 0 || h <= 0) return 0;
  if (p >= 1) return 1;
  return -std::expm1(h * std::log1p(-p));
}

}  // namespace

bool tail_can_judge(const ProgressRecord& r, const TailOptions& o) {
  return r.trials >= o.min_results && r.top.size() >= 2 && !(r.left && *r.left <= 0);
}

bool target_met(const ProgressRecord& r) {
  return r.target && !r.top.empty() && meets_target(r.minimize, r.top[0], *r.target);
}

TailEstimate tail_chances(const ProgressRecord& r, const TailOptions& o, double matters, double improve_ahead,
                          double target_ahead) {
  const std::int64_t n = r.trials;
  const double sign = r.minimize ? -1 : 1;  // larger is better below
  const double best = sign * r.top[0];
  TailEstimate e;
  std::optional<double> gap;  // to the target
  if (r.target) {
    gap = sign * *r.target - best;
    if (*gap <= 0) return e;  // met: the study is ending
  }
  // The tail's scale from the top k values (never more than half the
  // results: the rest of them is the body of the distribution, not its
  // tail): S = sum of i*(x_i - x_{i+1}), a sum of k-1 exponential spacings.
  const std::size_t k =
      std::min<std::size_t>({static_cast<std::size_t>(o.spacings) + 1, r.top.size(),
                             static_cast<std::size_t>(std::max<std::int64_t>(2, (n + 1) / 2))});
  double S = 0;
  for (std::size_t i = 1; i < k; ++i) S += static_cast<double>(i) * (sign * r.top[i - 1] - sign * r.top[i]);
  // P(excess > need) averaged over the scale's posterior (prior 1/scale):
  // (S / (S + need))^(k-1), heavier than exp(-need (k-1)/S) with the scale
  // plugged in, which lowered studies drawn from a smooth distribution
  // after a few close results by chance.
  const double spacings = static_cast<double>(k - 1);
  const auto per_result = [&](double need) {
    return S > 0 ? std::pow(S / (S + need), spacings) / static_cast<double>(n + 1) : 0.0;
  };

  const double need = gap ? std::min(matters, *gap) : matters;
  e.p_improve = any_of(per_result(need), improve_ahead);
  if (gap) e.p_target = any_of(per_result(*gap), target_ahead);
  // Results tied at the best. On a metric that resolves differences far
  // finer than an improvement that matters (its smallest gap below
  // threshold/10 of the best), a continuous tail puts two results within
  // the resolution of each other at its top with a chance of about
  // resolution/scale per tie: ties there mean a ceiling. On a coarse metric
  // (accuracy on 200 examples, in steps of 1/200) ties come with the
  // resolution, and the evidence is how they pile up: a tail that decays
  // smoothly holds, one step above the best, about rho times what the best
  // holds, rho the ratio of the results at the best to those one step below
  // it (at most 1: a tail does not grow towards its top). `tied` results at
  // the best and none above then come with a chance of (1/(1+rho))^(tied-1).
  std::size_t tied = 1;
  while (tied < r.top.size() && r.top[tied] == r.top[0]) ++tied;
  double finest = INFINITY;
  for (std::size_t i = 1; i < r.top.size(); ++i)
    if (r.top[i] != r.top[i - 1]) finest = std::min(finest, std::fabs(r.top[i] - r.top[i - 1]));
  if (S > 0 && tied >= 2) {
    double chance_of_ties = 1;
    if (finest < matters / 10) {
      const double scale = S / spacings;
      for (std::size_t i = 1; i < tied; ++i)
        chance_of_ties *= -std::expm1(-static_cast<double>(i) * finest / scale);
    } else if (o.coarse_ties) {
      std::size_t below = 0;  // results one step (the finest gap) below the best
      for (std::size_t i = tied; i < r.top.size(); ++i)
        if (std::fabs(std::fabs(r.top[0] - r.top[i]) - finest) <= finest * 1e-6) ++below;
      // The record keeps only the top values: when they are all at or one
      // step below the best, more may lie below, and rho is taken at 1.
      const bool all_seen = tied + below < r.top.size() || static_cast<std::int64_t>(tied + below) == n;
      const double rho = below > 0 && all_seen ? std::min(1.0, static_cast<double>(tied) / below) : 1.0;
      chance_of_ties = std::pow(1 / (1 + rho), static_cast<double>(tied - 1));
    }
    e.p_improve *= chance_of_ties;
    e.p_target *= chance_of_ties;
  }
  e.p = std::max(e.p_improve, e.p_target);
  return e;
}

std::optional<TailEstimate> tail_estimate(const ProgressRecord& r, const TailOptions& o, double threshold) {
  if (!tail_can_judge(r, o)) return std::nullopt;
  if (target_met(r)) return TailEstimate{};
  const double ahead = r.left ? static_cast<double>(*r.left) : static_cast<double>(o.horizon);
  const double target_ahead = o.target_horizon > 0 ? std::min<double>(ahead, o.target_horizon) : ahead;
  return tail_chances(r, o, gain_that_counts(threshold, r.top[0]), std::min<double>(o.horizon, ahead),
                      target_ahead);
}

int tail_level(double p, const TailOptions& o, int max_level) {
  if (!(p < o.p_min)) return 0;
  if (p <= 0) return max_level;
  const double halvings = std::floor(std::log2(o.p_min / p));
  return static_cast<int>(std::min<double>(max_level, 1 + halvings));
}

}  // namespace tune
