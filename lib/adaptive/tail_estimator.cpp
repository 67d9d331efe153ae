// SPDX-License-Identifier: GPL-2.0-or-later
#include "adaptive/tail_estimator.hpp"

#include <algorithm>
#include <cmath>

#include "adaptive/estimators.hpp"

namespace tune {

TailEstimator::TailEstimator()
    : EstimatorOf(
          {{"tail.horizon", &TailOptions::horizon, 1, 10000,
            "Results ahead that count as soon, for p_improve."},
           {"tail.p_min", &TailOptions::p_min, 1e-9, 1, "A study whose chance p is below this is lowered."},
           {"tail.min_results", &TailOptions::min_results, 2, 100000,
            "Results a study needs before it is judged."},
           {"tail.spacings", &TailOptions::spacings, 1, ProgressRecord::kMaxTop - 1,
            "Spacings of the top values that estimate the tail's scale. Fewer lower a plateaued study "
            "sooner and a study still improving more often by mistake."}}) {}

Judgement TailEstimator::judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const {
  const auto e = tail_estimate(r, options(), o.thresholds.empty() ? 0 : o.thresholds.front());
  if (!e) return {};
  s.judged_n = r.trials;
  s.level = memory(s).estimate = tail_level(e->p, options(), o.max_level);
  return {true, e->p};
}

bool TailEstimator::relax(YieldState& s, double quiet, double /*steady*/, const AdaptiveOptions& o) const {
  relax_estimate(s, memory(s).estimate, quiet, o.relax_time);
  return false;
}

void TailEstimator::save(const YieldState& s, nlohmann::json& into) const {
  into["estimate"] = memory(s).estimate;
}

void TailEstimator::restore(const nlohmann::json& from, const AdaptiveOptions& o, YieldState& s) const {
  // Absent from state saved before the tail estimator, or by another rule: its level.
  memory(s).estimate = std::clamp(saved_or(from, "estimate", s.level), 0, o.max_level);
}

}  // namespace tune
