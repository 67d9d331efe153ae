// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a study tells sched/tune about itself: its key and its progress record
// (lib/estimators/progress_record) built from the trials so far.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "estimators/progress_record.hpp"
#include "history/trial.hpp"

namespace tune {

// The study's key in the record: its name (key characters only) and a hash
// of the history's absolute path, so that two studies of one name differ and
// a requeued or resumed job keeps its key.
std::string study_key(const std::string& name, const std::string& history_path);

// What the study aims at: its --target and its --trials budget (each
// optional), carried in the record as tgt and left.
struct StudyGoal {
  std::optional<double> target;
  std::optional<std::uint64_t> budget;
};

// The record for a study's trials: finished results so far and the best
// values first; with a goal, its target and the trials the budget has left
// (every trial with a final outcome, ok or not, used one up).
ProgressRecord progress_of(const std::string& key, const std::vector<Trial>& trials, bool minimize,
                           const StudyGoal& goal = {}, std::size_t top = 10);

}  // namespace tune
