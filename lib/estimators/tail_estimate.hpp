// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The tail estimator: a second way, beside the source design's Algorithm 1
// (yield_level.hpp), to turn a study's progress record into a yield level.
// It asks what Algorithm 1 does not: how likely is the study to improve
// within the trials it has ahead?
//
// Per result still to come, the chance of beating the best by `need` is
// modelled as the chance of a new best at all, 1/(n+1) (the n results so
// far and the next one in random order), times the chance that a new best
// exceeds the old one by more than `need`: the upper tail's excesses taken
// as exponential with a scale s known through the spacings of the top
// results, i*(x_i - x_{i+1}), i = 1..k-1 (independent, mean s, under such a
// tail): with S their sum and s's posterior under the prior 1/s, that
// chance is (S / (S + need))^(k-1). Exponential is the heaviest tail a
// bounded metric (accuracy, a loss above 0) can have, so the estimate errs
// towards "still improving". Results tied at the best (a metric at its
// ceiling) have spacing 0 and pull the chance down, and are evidence beside:
// on a metric that resolves differences far finer than the threshold, by
// how likely such ties are under a continuous tail (1 - exp(-i*finest/scale)
// per tied result); on a coarse one (accuracy on a few hundred examples,
// whose results tie by its resolution), by how they pile up against the
// results one step below (coarse_ties).
//
//   p_improve  chance of beating the best by threshold*|best| (the study's
//              first Algorithm 1 threshold; the gap to its target if that is
//              smaller) within min(horizon, trials left) results
//   p_target   (with a target) chance of reaching it within target_horizon
//              results (all the trials left with 0; the horizon when the
//              budget is unknown): a study that could reach its target only
//              late in its budget gives way now, and stands again when a
//              new best brings the target nearer
//   p          max of the two: a study is lowered only when it is unlikely
//              both to improve soon and to reach its target soon
//
// p >= p_min gives level 0; below, one level per halving of p under p_min.
// Only lowers: a record that claims more (a target already met, trials
// left) can at best keep level 0. No Slurm here.
#include <optional>

#include "estimators/progress_record.hpp"

namespace tune {

struct TailOptions {
  int horizon = 10;         // results ahead that count as "soon"
  double p_min = 0.05;      // lower a study whose chance is below this
  int min_results = 5;      // judge from this many results on
  int spacings = 4;         // top spacings that estimate the tail's scale (k-1)
  int target_horizon = 10;  // results ahead that p_target counts (0: all the budget left)
  int coarse_ties = 1;      // 1: ties at the best of a coarse metric count as evidence of a ceiling
};

struct TailEstimate {
  double p_improve = 1;
  double p_target = 0;  // 0 without a target
  double p = 1;
};

// The estimate for a record, or nullopt when it is not judged: fewer than
// min_results results, fewer than two values, or no trials left. A record
// whose best meets its target gets p = 1 (the study is ending).
std::optional<TailEstimate> tail_estimate(const ProgressRecord& r, const TailOptions& o, double threshold);

// What tail_estimate and the convergence stop (estimators/convergence) share.
// Whether a record can be judged at all (see tail_estimate), and whether its
// best meets its target.
bool tail_can_judge(const ProgressRecord& r, const TailOptions& o);
bool target_met(const ProgressRecord& r);
// For a judged record: the chance of beating its best by `matters` (in the
// objective's units, > 0; the gap to the target if that is smaller) within
// `improve_ahead` results, and of reaching its target within `target_ahead`.
TailEstimate tail_chances(const ProgressRecord& r, const TailOptions& o, double matters, double improve_ahead,
                          double target_ahead);

// The yield level for a chance p: 0 when p >= p_min, else
// 1 + floor(log2(p_min / p)), at most max_level.
int tail_level(double p, const TailOptions& o, int max_level);

}  // namespace tune
