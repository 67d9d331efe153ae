// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A study's yield level: what its estimator (the source design's Algorithm
// 1, the tail estimator, ...: estimators() below, each a YieldEstimator of
// its own file) made of its progress records. The level lowers the study's
// priority; it relaxes again when nobody else waits.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "adaptive/algorithm1.hpp"
#include "adaptive/progress_record.hpp"
#include "adaptive/stagnation_estimator.hpp"
#include "adaptive/tail_estimate.hpp"
#include "adaptive/tail_estimator.hpp"
#include "adaptive/yield_estimator.hpp"
#include "registry/registry.hpp"

namespace tune {

struct EstimatorEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  const YieldEstimator* rule;
};
// The estimators by their adaptive.estimator name, in one list. Inline: the
// configuration parser is also built on its own (tests/fuzz/config_fuzz).
inline const Registry<EstimatorEntry>& estimators() {
  static const Algorithm1 algorithm1;
  static const TailEstimator tail;
  static const StagnationEstimator stagnation;
  static const Registry<EstimatorEntry> registry(
      "estimator",
      {
          {"algorithm1",
           {},
           "the source design's Algorithm 1: the gap among a study's top m results",
           &algorithm1},
          {"tail", {}, "the chance that the study's next results beat its best (tail_estimate.hpp)", &tail},
          {"stagnation",
           {},
           "no improvement of the study's best in its last stagnation.trials results",
           &stagnation},
      });
  return registry;
}

struct AdaptiveOptions {
  std::string estimator = "tail";  // a name estimators() knows (the tail estimator: measured best)
  TailOptions tail;                // the tail estimator's settings
  struct {
    int trials = 10;  // W: results without an improvement per level
  } stagnation;       // the stagnation rule's settings
  int k = 2;          // results needed: n > k*m
  int m = 5;          // sample size: the top m results
  // G_0, G_1, ...: thresholds on g relative to the best value's magnitude
  // (|f1-f2| / max(|f1|, 1e-12)), so that they do not depend on units.
  std::vector<double> thresholds{0.01, 0.005, 0.0025, 0.001};
  double tolerance = 0.05;    // g ~ g' when |g - g'| <= tolerance * g'
  double yield_factor = 0.5;  // priority x yield_factor^level
  int max_level = 8;
  double relax_time = 300;  // seconds with no other tenant waiting per level dropped
};

class YieldLevel {
 public:
  // A new record of the study. Only a record with more results than the last
  // one counts (a requeued job repeats its last Comment); the options'
  // estimator judges it. Returns true when the level rose.
  bool observe(const ProgressRecord& r, const AdaptiveOptions& o);
  // Relaxation as the estimator has it (YieldEstimator::relax); true when it
  // stepped the level down itself.
  bool relax(double quiet, double steady, const AdaptiveOptions& o);
  // One level down (not below 0).
  void relax() {
    if (s_.level > 0) --s_.level;
  }
  // Whether the level a judgement made still stands after relaxation.
  bool judgement_stands(const AdaptiveOptions& o) const;

  int level() const { return s_.level; }
  int estimate() const { return s_.estimate; }
  int threshold_index() const { return s_.j; }
  std::int64_t trials_seen() const { return s_.last_n; }
  // n of the last record judged (-1: none yet).
  std::int64_t trials_judged() const { return s_.judged_n; }
  double mean_gap() const { return s_.gaps ? s_.gap_sum / s_.gaps : -1; }
  // The estimator's last chance of improvement (-1: none yet, or an
  // estimator that estimates none).
  double last_chance() const { return last_p_; }
  // The priority multiplier: yield_factor^level, in (0, 1].
  double multiplier(const AdaptiveOptions& o) const;

  // For saving and restoring state.
  using Saved = YieldState;
  Saved save() const { return s_; }
  static YieldLevel restore(const Saved& s, const AdaptiveOptions& o);

 private:
  YieldState s_;
  double last_p_ = -1;
};

}  // namespace tune
