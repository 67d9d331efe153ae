// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/stagnation_estimator.hpp"

#include <algorithm>
#include <cmath>

#include "estimators/estimators.hpp"
#include "history/direction.hpp"

namespace tune {

StagnationEstimator::StagnationEstimator()
    : EstimateOf({{"stagnation.trials", &StagnationOptions::trials, 1, 100000,
                   "W: results without a gain of G_0 that lower a study one level."}}) {}

Judgement StagnationEstimator::judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const {
  if (r.top.empty()) return {};
  StagnationMemory& mem = memory(s);
  const double best = r.top.front();
  const double g = o.thresholds.empty() ? 0 : o.thresholds.front();
  if (mem.best_n < 0 || !std::isfinite(mem.best) ||
      better(r.minimize, best, mem.best + (r.minimize ? -1 : 1) * gain_that_counts(g, mem.best))) {
    mem.best = best;
    mem.best_n = r.trials;
  }
  s.judged_n = r.trials;
  const std::int64_t stalled = r.trials - mem.best_n;
  const std::int64_t w = options().trials;
  mem.estimate = stalled < w ? 0 : static_cast<int>(std::min<std::int64_t>(o.max_level, stalled / w));
  s.level = mem.estimate;
  return {true, -1};
}

void StagnationMemory::save(nlohmann::json& into) const {
  into["estimate"] = estimate;
  if (best_n >= 0) {  // JSON has no NaN
    into["best"] = best;
    into["best_n"] = best_n;
  }
}

void StagnationMemory::restore(const nlohmann::json& from, const AdaptiveOptions& o, const YieldState& s) {
  estimate = std::clamp(saved_or(from, "estimate", s.level), 0, o.max_level);
  // Absent from state saved before the stagnation rule, before a best, or by another rule.
  const double saved_best = saved_or(from, "best", NAN);
  best_n = from.contains("best_n") && std::isfinite(saved_best)
               ? std::clamp<std::int64_t>(saved_or(from, "best_n", std::int64_t{-1}), -1, s.last_n)
               : -1;
  best = best_n >= 0 ? saved_best : NAN;
}

}  // namespace tune
