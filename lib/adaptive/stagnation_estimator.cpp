// SPDX-License-Identifier: GPL-2.0-or-later
#include "adaptive/stagnation_estimator.hpp"

#include <algorithm>
#include <cmath>

#include "adaptive/estimators.hpp"
#include "history/direction.hpp"

namespace tune {

StagnationEstimator::StagnationEstimator()
    : EstimatorOf({{"stagnation.trials", &StagnationOptions::trials, 1, 100000,
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

bool StagnationEstimator::relax(YieldState& s, double quiet, double /*steady*/,
                                const AdaptiveOptions& o) const {
  relax_estimate(s, memory(s).estimate, quiet, o.relax_time);
  return false;
}

void StagnationEstimator::save(const YieldState& s, nlohmann::json& into) const {
  const StagnationMemory& mem = memory(s);
  into["estimate"] = mem.estimate;
  if (mem.best_n >= 0) {  // JSON has no NaN
    into["best"] = mem.best;
    into["best_n"] = mem.best_n;
  }
}

void StagnationEstimator::restore(const nlohmann::json& from, const AdaptiveOptions& o, YieldState& s) const {
  StagnationMemory& mem = memory(s);
  mem.estimate = std::clamp(saved_or(from, "estimate", s.level), 0, o.max_level);
  // Absent from state saved before the stagnation rule, before a best, or by another rule.
  const double best = saved_or(from, "best", NAN);
  mem.best_n = from.contains("best_n") && std::isfinite(best)
                   ? std::clamp<std::int64_t>(saved_or(from, "best_n", std::int64_t{-1}), -1, s.last_n)
                   : -1;
  mem.best = mem.best_n >= 0 ? best : NAN;
}

}  // namespace tune
