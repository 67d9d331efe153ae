// SPDX-License-Identifier: GPL-2.0-or-later
// What a study has found so far, kept as results come: its best trial, its
// Pareto front (several objectives), whether one trial meets every named
// target, and the values named objectives last reported for running trials.
// Study owns one and asks it; no sampler, worker or history writes here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "history/history.hpp"
#include "trial_output/report_parser.hpp"

namespace tune {

class StudyAnswer {
 public:
  // `targets`: one per named objective (--target with --objective a,b), or none.
  StudyAnswer(const History& history, std::vector<double> targets)
      : history_(history), targets_(std::move(targets)) {}

  // A running trial's report: the last value under each objective's name.
  void note_report(std::uint64_t trial, const Report& report);
  // Each named objective's last reported value for the trial; the names that
  // never came go to `missing`. Forgets the trial's reports.
  std::optional<std::vector<double>> take_values(std::uint64_t trial, std::vector<std::string>& missing);
  void forget(std::uint64_t trial) { latest_.erase(trial); }

  // An ok result, as recorded in the history.
  void note_ok(const Trial& t);
  // The best ok trial's id (one objective).
  std::optional<std::uint64_t> best() const { return best_; }
  // The Pareto front: ids in order with values in minimisation form.
  const std::vector<std::pair<std::uint64_t, std::vector<double>>>& front() const { return front_; }
  // Some ok trial meets every named target.
  bool targets_met() const { return targets_met_; }

 private:
  bool meets_targets(const Trial& t) const;

  const History& history_;
  std::vector<double> targets_;
  std::optional<std::uint64_t> best_;
  std::vector<std::pair<std::uint64_t, std::vector<double>>> front_;
  bool targets_met_ = false;
  std::map<std::uint64_t, std::map<std::string, double>> latest_;  // running trials' named values
};

}  // namespace tune
