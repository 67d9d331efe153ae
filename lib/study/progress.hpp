#pragma once
// What a study tells sched/tune about itself: its key and its progress record
// (lib/adaptive/progress_record) built from the trials so far.
#include <string>
#include <vector>

#include "adaptive/progress_record.hpp"
#include "history/trial.hpp"

namespace tune {

// The study's key in the record: its name (key characters only) and a hash
// of the history's absolute path, so that two studies of one name differ and
// a requeued or resumed job keeps its key.
std::string study_key(const std::string& name, const std::string& history_path);

// The record for a study's trials: finished results so far and the best
// values first.
ProgressRecord progress_of(const std::string& key, const std::vector<Trial>& trials, bool minimize,
                           std::size_t top = 10);

}  // namespace tune
