// SPDX-License-Identifier: GPL-2.0-or-later
// The stagnation rule (adaptive.estimator = "stagnation"), the simple
// baseline beside Algorithm 1 and the tail estimator: a study whose best has
// not improved by more than G_0 (the first of adaptive.thresholds, relative
// to the best's magnitude) in its last W results (adaptive.stagnation.trials)
// is lowered one level, and one more per further W results without such an
// improvement; an improvement takes it back to 0. Optuna's terminator has
// the same rule (BestValueStagnationEvaluator). Small improvements add up:
// the reference is the best at the last improvement that counted, so a
// study creeping up by 0.5% a result is not taken for a stagnating one.
// The record gives the best and the count, not when the best came: a study
// first seen with N results counts from N. It relaxes as the tail estimator
// does.
#pragma once

#include <cmath>

#include "estimators/yield_estimator.hpp"

namespace tune {

struct StagnationOptions {
  int trials = 10;  // W: results without an improvement per level
};

struct StagnationMemory {
  int estimate = 0;          // the level before relaxation
  double best = NAN;         // the best at its last improvement that counted
  std::int64_t best_n = -1;  // ... and the results then (-1: none yet)
  void save(nlohmann::json& into) const;
  void restore(const nlohmann::json& from, const AdaptiveOptions& o, const YieldState& s);
};

class StagnationEstimator final : public EstimateOf<StagnationOptions, StagnationMemory> {
 public:
  StagnationEstimator();
  const char* label() const override { return "stagnation"; }
  Judgement judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const override;
};

}  // namespace tune
