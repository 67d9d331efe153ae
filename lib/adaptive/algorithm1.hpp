// SPDX-License-Identifier: GPL-2.0-or-later
// The source design's Algorithm 1 (adaptive.estimator = "algorithm1"): once
// a study has n > k*m results, and then once per m new results (the paper's
// n > k*m with k counting the judgements), g = the smallest gap among its
// top m values; when g falls below the current threshold G_j, or stays near
// the mean g' of the earlier g, the level rises and the threshold moves to
// G_{j+1}. It relaxes a level per relax_time nobody else waits, for good.
//
// Why once per m results and not at every result: a result that does not
// enter the top m leaves g exactly as it was, so g == g'. Judged at every
// result, a study still improving (random search enters its top m at a rate
// of about m/n per result) rose at every miss, as fast as a plateaued one.
#pragma once

#include "adaptive/yield_estimator.hpp"

namespace tune {

// g for a record: the smallest relative gap among its top m, or a negative
// value when the record has fewer than m values or n <= k*m.
double smallest_top_gap(const ProgressRecord& r, const AdaptiveOptions& o);

class Algorithm1 final : public YieldEstimator {
 public:
  const char* label() const override { return "Algorithm 1"; }
  Judgement judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const override;
  bool relax(YieldState& s, double quiet, double steady, const AdaptiveOptions& o) const override;
};

}  // namespace tune
