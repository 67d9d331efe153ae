// SPDX-License-Identifier: GPL-2.0-or-later
// An objective's direction, in one place: which of two values is better,
// and when a value meets a target (as good as it or better). The study, its
// progress record, the report and the simulator all judge by these.
#pragma once

#include <algorithm>
#include <cmath>

namespace tune {

// Whether `a` is strictly better than `b` for an objective minimised (or not).
constexpr bool better(bool minimize, double a, double b) {
  return minimize ? a < b : a > b;
}

// The smallest change of `best` that counts as an improvement: `threshold`
// relative to its magnitude, so that it does not depend on units.
inline double gain_that_counts(double threshold, double best) {
  return std::max(threshold, 0.0) * std::max(std::fabs(best), 1e-12);
}

// Whether `value` meets `target`: equal to it, or better.
constexpr bool meets_target(bool minimize, double value, double target) {
  return minimize ? value <= target : value >= target;
}

}  // namespace tune
