// SPDX-License-Identifier: GPL-2.0-or-later
#include "adaptive/algorithm1.hpp"

#include <algorithm>
#include <cmath>

#include "adaptive/yield_level.hpp"

namespace tune {

double smallest_top_gap(const ProgressRecord& r, const AdaptiveOptions& o) {
  const auto m = static_cast<std::size_t>(o.m);
  if (m < 2 || r.top.size() < m || r.trials <= static_cast<std::int64_t>(o.k) * o.m) return -1;
  double g = INFINITY;
  for (std::size_t i = 1; i < m; ++i) g = std::min(g, std::fabs(r.top[i] - r.top[i - 1]));
  return g / std::max(std::fabs(r.top[0]), 1e-12);
}

Judgement Algorithm1::judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const {
  if (s.judged_n >= 0 && r.trials < s.judged_n + o.m) return {};
  const double g = smallest_top_gap(r, o);
  if (g < 0) return {};
  s.judged_n = r.trials;
  const double G =
      o.thresholds.empty() ? 0 : o.thresholds[std::min<std::size_t>(s.j, o.thresholds.size() - 1)];
  const double mean = s.gaps ? s.gap_sum / s.gaps : -1;
  const bool near_mean = s.gaps > 0 && std::fabs(g - mean) <= o.tolerance * mean;
  s.gap_sum += g;
  ++s.gaps;
  if (!(g < G || near_mean)) return {true, -1};
  if (s.level < o.max_level) ++s.level;
  if (s.j + 1 < static_cast<int>(o.thresholds.size())) ++s.j;
  return {true, -1};
}

bool Algorithm1::relax(YieldState& s, double quiet, double steady, const AdaptiveOptions& o) const {
  if (s.level == 0 || std::min(quiet, steady) < o.relax_time) return false;
  --s.level;
  return true;
}

}  // namespace tune
