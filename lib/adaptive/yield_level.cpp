// SPDX-License-Identifier: GPL-2.0-or-later
#include "adaptive/yield_level.hpp"

#include <algorithm>
#include <cmath>

namespace tune {

double smallest_top_gap(const ProgressRecord& r, const AdaptiveOptions& o) {
  const auto m = static_cast<std::size_t>(o.m);
  if (m < 2 || r.top.size() < m || r.trials <= static_cast<std::int64_t>(o.k) * o.m) return -1;
  double g = INFINITY;
  for (std::size_t i = 1; i < m; ++i) g = std::min(g, std::fabs(r.top[i] - r.top[i - 1]));
  return g / std::max(std::fabs(r.top[0]), 1e-12);
}

bool YieldLevel::observe_tail(const ProgressRecord& r, const AdaptiveOptions& o) {
  const auto e = tail_estimate(r, o.tail, o.thresholds.empty() ? 0 : o.thresholds.front());
  if (!e) return false;
  judged_n_ = r.trials;
  last_p_ = e->p;
  const int before = level_;
  estimate_ = tail_level(e->p, o.tail, o.max_level);
  level_ = estimate_;
  return level_ > before;
}

bool YieldLevel::observe(const ProgressRecord& r, const AdaptiveOptions& o) {
  if (r.trials <= last_n_) return false;
  last_n_ = r.trials;
  if (o.estimator == Estimator::Tail) return observe_tail(r, o);
  if (judged_n_ >= 0 && r.trials < judged_n_ + o.m) return false;
  const double g = smallest_top_gap(r, o);
  if (g < 0) return false;
  judged_n_ = r.trials;
  const double G =
      o.thresholds.empty() ? 0 : o.thresholds[std::min<std::size_t>(j_, o.thresholds.size() - 1)];
  const bool near_mean = gaps_ > 0 && std::fabs(g - mean_gap()) <= o.tolerance * mean_gap();
  gap_sum_ += g;
  ++gaps_;
  if (!(g < G || near_mean)) return false;
  const bool rose = level_ < o.max_level;
  if (rose) ++level_;
  if (j_ + 1 < static_cast<int>(o.thresholds.size())) ++j_;
  return rose;
}

double YieldLevel::multiplier(const AdaptiveOptions& o) const {
  return std::pow(o.yield_factor, level_);
}

YieldLevel YieldLevel::restore(const Saved& s, const AdaptiveOptions& o) {
  YieldLevel y;
  y.level_ = std::clamp(s.level, 0, o.max_level);
  y.j_ = std::clamp(s.j, 0, std::max(0, static_cast<int>(o.thresholds.size()) - 1));
  y.last_n_ = std::max<std::int64_t>(-1, s.last_n);
  y.judged_n_ = std::clamp<std::int64_t>(s.judged_n, -1, y.last_n_);
  y.estimate_ = std::clamp(s.estimate, 0, o.max_level);
  y.gap_sum_ = std::isfinite(s.gap_sum) && s.gap_sum >= 0 ? s.gap_sum : 0;
  y.gaps_ = y.gap_sum_ > 0 || s.gaps > 0 ? std::max<std::int64_t>(0, s.gaps) : 0;
  if (y.gaps_ == 0) y.gap_sum_ = 0;
  return y;
}

}  // namespace tune
