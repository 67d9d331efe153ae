// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
#include <optional>
#include <string>
#include <string_view>
// The source design's Algorithm 1, per study: once a study has n > k*m
// results, and then once per m new results (the paper's n > k*m with k
// counting the judgements), g = the smallest gap among its top m values; when
// g falls below the current threshold G_j, or stays near the mean g' of the
// earlier g, the study's yield level rises and the threshold moves to G_{j+1}.
// The level lowers the study's priority; it relaxes again when nobody else
// waits.
//
// Why once per m results and not at every result: a result that does not
// enter the top m leaves g exactly as it was, so g == g'. Judged at every
// result, a study still improving (random search enters its top m at a rate
// of about m/n per result) rose at every miss, as fast as a plateaued one.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "adaptive/progress_record.hpp"
#include "adaptive/tail_estimate.hpp"
#include "registry/registry.hpp"

namespace tune {

// Which estimator turns a study's records into its yield level (adaptive.
// estimator in sched_tune.conf): the source design's Algorithm 1, or the
// tail estimator (tail_estimate.hpp).
enum class Estimator { Algorithm1, Tail };
struct EstimatorEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  Estimator estimator;
};
// The estimators by their adaptive.estimator name, in one list. Inline: the
// configuration parser is also built on its own (tests/fuzz/config_fuzz).
inline const Registry<EstimatorEntry>& estimators() {
  static const Registry<EstimatorEntry> registry(
      "estimator", {
                       {"algorithm1",
                        {},
                        "the source design's Algorithm 1: the gap among a study's top m results",
                        Estimator::Algorithm1},
                       {"tail",
                        {},
                        "the chance that the study's next results beat its best (tail_estimate.hpp)",
                        Estimator::Tail},
                   });
  return registry;
}

struct AdaptiveOptions {
  Estimator estimator = Estimator::Algorithm1;
  TailOptions tail;  // the tail estimator's settings
  int k = 2;         // results needed: n > k*m
  int m = 5;         // sample size: the top m results
  // G_0, G_1, ...: thresholds on g relative to the best value's magnitude
  // (|f1-f2| / max(|f1|, 1e-12)), so that they do not depend on units.
  std::vector<double> thresholds{0.01, 0.005, 0.0025, 0.001};
  double tolerance = 0.05;    // g ~ g' when |g - g'| <= tolerance * g'
  double yield_factor = 0.5;  // priority x yield_factor^level
  int max_level = 8;
  double relax_time = 300;  // seconds with no other tenant waiting per level dropped
};

// g for a record: the smallest relative gap among its top m, or a negative
// value when the record has fewer than m values or n <= k*m.
double smallest_top_gap(const ProgressRecord& r, const AdaptiveOptions& o);

class YieldLevel {
 public:
  // A new record of the study. Only a record with more results than the last
  // one counts (a requeued job repeats its last Comment). Algorithm 1 judges
  // it when it has m results more than the last one judged and raises the
  // level by one; the tail estimator judges every new result and sets the
  // level its estimate gives (lower again when the estimate recovers).
  // Returns true when the level rose.
  bool observe(const ProgressRecord& r, const AdaptiveOptions& o);
  // One level down (not below 0): Algorithm 1's relaxation.
  void relax() {
    if (level_ > 0) --level_;
  }
  // The tail estimator's relaxation: its estimate, less one level per
  // relax_time nobody else has waited (`periods`); with someone waiting
  // (periods 0) the estimate stands again at once.
  void settle(int periods) { level_ = std::max(0, estimate_ - std::max(0, periods)); }
  int estimate() const { return estimate_; }

  int level() const { return level_; }
  int threshold_index() const { return j_; }
  std::int64_t trials_seen() const { return last_n_; }
  // n of the last record judged (-1: none yet).
  std::int64_t trials_judged() const { return judged_n_; }
  double mean_gap() const { return gaps_ ? gap_sum_ / gaps_ : -1; }
  // The tail estimator's last chance of improvement (-1: none yet, or
  // Algorithm 1).
  double last_chance() const { return last_p_; }
  // The priority multiplier: yield_factor^level, in (0, 1].
  double multiplier(const AdaptiveOptions& o) const;

  // For saving and restoring state.
  struct Saved {
    int level = 0, j = 0;
    std::int64_t last_n = -1;
    double gap_sum = 0;
    std::int64_t gaps = 0;
    std::int64_t judged_n = -1;
    int estimate = 0;
  };
  Saved save() const { return {level_, j_, last_n_, gap_sum_, gaps_, judged_n_, estimate_}; }
  static YieldLevel restore(const Saved& s, const AdaptiveOptions& o);

 private:
  int level_ = 0, j_ = 0;
  std::int64_t last_n_ = -1;
  double gap_sum_ = 0;
  std::int64_t gaps_ = 0;
  std::int64_t judged_n_ = -1;
  double last_p_ = -1;
  int estimate_ = 0;  // the tail estimator's level before relaxation

  bool observe_tail(const ProgressRecord& r, const AdaptiveOptions& o);
};

}  // namespace tune
