// SPDX-License-Identifier: GPL-2.0-or-later
// The tail estimator (adaptive.estimator = "tail"; the estimate itself is
// tail_estimate.hpp): every new result is judged, and the level is what the
// estimated chance of improvement within the horizon gives, lower again
// when the estimate recovers. It relaxes by one level per relax_time nobody
// else waits; with someone waiting the estimate stands again at once.
#pragma once

#include "estimators/tail_estimate.hpp"
#include "estimators/yield_estimator.hpp"

namespace tune {

// What it keeps of a study: the level its last judgement gave, before
// relaxation.
struct TailMemory {
  int estimate = 0;
  void save(nlohmann::json& into) const;
  void restore(const nlohmann::json& from, const AdaptiveOptions& o, const YieldState& s);
};

class TailEstimator final : public EstimateOf<TailOptions, TailMemory> {
 public:
  TailEstimator();
  const char* label() const override { return "tail estimate"; }
  Judgement judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const override;
};

}  // namespace tune
