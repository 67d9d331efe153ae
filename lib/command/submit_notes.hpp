// SPDX-License-Identifier: GPL-2.0-or-later
// What tune submit tells the user about the job it is about to submit: the
// time limit it will get when --time is not given (the partition's, read
// from Slurm by the caller) and what a study without a limit loses. Plain
// text from the options; no Slurm here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "command/job_script.hpp"

namespace tune {

struct PartitionTimes {
  std::string name;
  std::optional<long> default_minutes;  // nothing: none set (the maximum applies)
  std::optional<long> max_minutes;      // nothing: unlimited
};

// Notes for stderr, each a line without its "tune submit: " prefix. `p` is
// the partition the job goes to (nothing: Slurm did not say).
std::vector<std::string> time_notes(const SubmitOptions& o, const std::optional<PartitionTimes>& p);

// "90 minutes", "2-00:00:00" as Slurm would print it, for the notes.
std::string minutes_text(long minutes);

}  // namespace tune
