// SPDX-License-Identifier: GPL-2.0-or-later
#include "adaptive/stagnation_estimator.hpp"

#include <algorithm>
#include <cmath>

#include "adaptive/yield_level.hpp"
#include "history/direction.hpp"

namespace tune {

Judgement StagnationEstimator::judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const {
  if (r.top.empty()) return {};
  const double best = r.top.front();
  const double g = o.thresholds.empty() ? 0 : o.thresholds.front();
  if (s.best_n < 0 || !std::isfinite(s.best) ||
      better(r.minimize, best, s.best + (r.minimize ? -1 : 1) * gain_that_counts(g, s.best))) {
    s.best = best;
    s.best_n = r.trials;
  }
  s.judged_n = r.trials;
  const std::int64_t stalled = r.trials - s.best_n;
  const std::int64_t w = o.stagnation.trials;
  s.estimate = stalled < w ? 0 : static_cast<int>(std::min<std::int64_t>(o.max_level, stalled / w));
  s.level = s.estimate;
  return {true, -1};
}

bool StagnationEstimator::relax(YieldState& s, double quiet, double /*steady*/,
                                const AdaptiveOptions& o) const {
  return relax_estimate(s, quiet, o.relax_time);
}

}  // namespace tune
