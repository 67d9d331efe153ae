// SPDX-License-Identifier: GPL-2.0-or-later
// One base for the rules that turn a study's progress records into its
// yield level (adaptive.estimator in sched_tune.conf): each rule a class of
// its own (algorithm1.hpp, tail_estimator.hpp, stagnation_estimator.hpp), registered by name in
// estimators() (yield_level.hpp). A rule keeps no state of its own: what it
// knows of a study is the study's YieldState, which the plugins save and
// restore.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "adaptive/progress_record.hpp"

namespace tune {

struct AdaptiveOptions;

// A study's yield level and what its rule keeps between records.
struct YieldState {
  int level = 0;
  int j = 0;                   // Algorithm 1: the index of the current threshold G_j
  std::int64_t last_n = -1;    // results in the last record seen
  double gap_sum = 0;          // Algorithm 1: the sum of the gaps g judged so far
  std::int64_t gaps = 0;       // ... and how many
  std::int64_t judged_n = -1;  // results in the last record judged (-1: none yet)
  int estimate = 0;            // tail, stagnation: the level before relaxation
  double best = NAN;           // stagnation: the best at its last improvement that counted
  std::int64_t best_n = -1;    // ... and the results then (-1: none yet)
};

// What judging a record found: whether it was judged, and the chance of
// improvement it estimated (-1: a rule that estimates none).
struct Judgement {
  bool judged = false;
  double chance = -1;
};

class YieldEstimator {
 public:
  virtual ~YieldEstimator() = default;
  // How slurmctld's log names a change this rule judged ("Algorithm 1").
  virtual const char* label() const = 0;
  // A record with more results than any before it (s.last_n already moved
  // to it): judges it when the rule's time has come, setting s.level.
  virtual Judgement judge(const ProgressRecord& r, const AdaptiveOptions& o, YieldState& s) const = 0;
  // Relaxation while nobody else waits: `quiet` seconds since another
  // tenant last waited, `steady` since the level last changed. Returns true
  // when it stepped the level down itself (the tracker then restarts
  // `steady`).
  virtual bool relax(YieldState& s, double quiet, double steady, const AdaptiveOptions& o) const = 0;
  // The rules that keep an estimate (tail, stagnation) relax the same way:
  // the estimate less one level per relax_time nobody else waited, and the
  // estimate again as soon as someone does.
  static bool relax_estimate(YieldState& s, double quiet, double relax_time) {
    const int periods = static_cast<int>(std::floor(quiet / relax_time));
    s.level = std::max(0, s.estimate - std::max(0, periods));
    return false;
  }
  // Whether a level that changed in an update that judged a record is the
  // judgement's (false: relaxation took it elsewhere in the same update).
  virtual bool judgement_stands(const YieldState& /*s*/) const { return true; }
};

}  // namespace tune
