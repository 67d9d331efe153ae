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

#include "estimators/yield_estimator.hpp"

namespace tune {

struct Algorithm1Options {
  int k = 2;                // results needed: n > k*m
  int m = 5;                // sample size: the top m results
  double tolerance = 0.05;  // g ~ g' when |g - g'| <= tolerance * g'
};

// What it keeps of a study.
struct Algorithm1Memory {
  int j = 0;              // the index of the current threshold G_j
  double gap_sum = 0;     // the sum of the gaps g judged so far
  std::int64_t gaps = 0;  // ... and how many
  void save(nlohmann::json& into) const;
  void restore(const nlohmann::json& from, const AdaptiveOptions& o, const YieldState& s);
};

// g for a record: the smallest relative gap among its top m, or a negative
// value when the record has fewer than m values or n <= k*m.
double smallest_top_gap(const ProgressRecord& r, const Algorithm1Options& o);

class Algorithm1 final : public EstimatorOf<Algorithm1Options, Algorithm1Memory> {
 public:
  Algorithm1();
  const char* label() const override { return "Algorithm 1"; }
  Judgement judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const override;
  bool relax(YieldState& s, double quiet, double steady, const AdaptiveOptions& o) const override;
};

}  // namespace tune
