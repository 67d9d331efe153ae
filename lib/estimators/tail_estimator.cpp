// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/tail_estimator.hpp"

#include <algorithm>
#include <cmath>

#include "estimators/estimators.hpp"

namespace tune {

TailEstimator::TailEstimator()
    : EstimateOf(
          {{"tail.horizon", &TailOptions::horizon, 1, 10000,
            "Results ahead that count as soon, for p_improve."},
           {"tail.p_min", &TailOptions::p_min, 1e-9, 1, "A study whose chance p is below this is lowered."},
           {"tail.min_results", &TailOptions::min_results, 2, 100000,
            "Results a study needs before it is judged."},
           {"tail.spacings", &TailOptions::spacings, 1, ProgressRecord::kMaxTop - 1,
            "Spacings of the top values that estimate the tail's scale. Fewer lower a plateaued study "
            "sooner and a study still improving more often by mistake."},
           {"tail.target_horizon", &TailOptions::target_horizon, 0, 1000000,
            "Results ahead over which p_target is the chance of reaching the target (0: all the trials "
            "the budget has left)."},
           {"tail.coarse_ties", &TailOptions::coarse_ties, 0, 1,
            "1: results tied at the best of a coarse metric count as evidence of a ceiling, by how they "
            "pile up against the results one step below."}}) {}

Judgement TailEstimator::judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const {
  const auto e = tail_estimate(r, options(), o.thresholds.empty() ? 0 : o.thresholds.front());
  if (!e) return {};
  s.judged_n = r.trials;
  s.level = memory(s).estimate = tail_level(e->p, options(), o.max_level);
  return {true, e->p};
}

void TailMemory::save(nlohmann::json& into) const {
  into["estimate"] = estimate;
}

void TailMemory::restore(const nlohmann::json& from, const AdaptiveOptions& o, const YieldState& s) {
  // Absent from state saved before the tail estimator, or by another rule: its level.
  estimate = std::clamp(saved_or(from, "estimate", s.level), 0, o.max_level);
}

}  // namespace tune
