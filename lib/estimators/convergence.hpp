// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A study that ends itself once it has converged (tune run --converged
// MARGIN): once the trials its budget has left are unlikely to beat its best
// by MARGIN, or to reach its --target, more trials would spend their GPU
// hours for nothing. The chance is the tail estimator's (tail_estimate.hpp),
// read from the same progress record sched/tune reads; where sched/tune
// asks about the next few results, this asks about the whole budget left,
// and the improvement that matters is the user's MARGIN, in the objective's
// units. No Slurm here.
#include <cstdint>
#include <optional>
#include <string>

#include "estimators/progress_record.hpp"
#include "estimators/tail_estimate.hpp"

namespace tune {

struct ConvergenceRule {
  double margin = 0;     // --converged: an improvement that matters, in the objective's units (> 0)
  double chance = 0.05;  // --converged-chance: end when the chance is below this (0 < chance < 1)
};

// Throws std::invalid_argument naming the flag when a value is out of range.
void check_convergence_rule(const ConvergenceRule& rule);

struct ConvergenceCheck {
  double p_improve = 1;  // of beating the best by the margin within the trials left
  double p_target = 0;   // of reaching the target within them (0 without one)
  double p = 1;          // the larger
  std::int64_t left = 0;
};

// The chances for a record with a budget (`left`), or nullopt when it is
// not judged yet (fewer results than the tail estimator needs, no budget,
// none left) or its target is met (it ends for that).
std::optional<ConvergenceCheck> convergence_check(const ProgressRecord& r, const ConvergenceRule& rule,
                                                  const TailOptions& o = {});
bool converged(const ConvergenceCheck& c, const ConvergenceRule& rule);

// "converged: the 40 trials left have a 2.1% chance of beating the best
// (0.912) by 0.005 (--converged)": how the study says it ended.
std::string convergence_line(const ProgressRecord& r, const ConvergenceCheck& c, const ConvergenceRule& rule);

}  // namespace tune
