// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A study's yield level: what its estimator (the source design's Algorithm
// 1, the tail estimator, ...: estimators(), each a YieldEstimator of its own
// file) made of its progress records. The level lowers the study's
// priority; it relaxes again when nobody else waits.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "estimators/estimators.hpp"
#include "estimators/progress_record.hpp"

namespace tune {

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
  std::int64_t trials_seen() const { return s_.last_n; }
  // n of the last record judged (-1: none yet).
  std::int64_t trials_judged() const { return s_.judged_n; }
  // The estimator's last chance of improvement (-1: none yet, or an
  // estimator that estimates none).
  double last_chance() const { return last_p_; }
  // The priority multiplier: yield_factor^level, in (0, 1].
  double multiplier(const AdaptiveOptions& o) const;

  // Saved as one JSON object: the level, the results seen and judged, and
  // what the estimator keeps (its own keys). restore() brings every value
  // within the options and throws std::runtime_error on a missing level or
  // results count, or a value of the wrong type.
  nlohmann::json save(const AdaptiveOptions& o) const;
  static YieldLevel restore(const nlohmann::json& saved, const AdaptiveOptions& o);

 private:
  YieldState s_;
  double last_p_ = -1;
};

}  // namespace tune
