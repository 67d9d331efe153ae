// SPDX-License-Identifier: GPL-2.0-or-later
#include "adaptive/tail_estimator.hpp"

#include <algorithm>
#include <cmath>

#include "adaptive/tail_estimate.hpp"
#include "adaptive/yield_level.hpp"

namespace tune {

Judgement TailEstimator::judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const {
  const auto e = tail_estimate(r, o.tail, o.thresholds.empty() ? 0 : o.thresholds.front());
  if (!e) return {};
  s.judged_n = r.trials;
  s.estimate = tail_level(e->p, o.tail, o.max_level);
  s.level = s.estimate;
  return {true, e->p};
}

bool TailEstimator::relax(YieldState& s, double quiet, double /*steady*/, const AdaptiveOptions& o) const {
  return relax_estimate(s, quiet, o.relax_time);
}

}  // namespace tune
