// SPDX-License-Identifier: GPL-2.0-or-later
// What `tune status` shows of a study, from its history (and, for a study
// of trial jobs, the jobs file its AppCore keeps): the study, its trials by
// state, what the storage kept from running, imported and enqueued trials,
// the trial jobs and the limit that holds them, and its answer (the best
// trials, or the Pareto front of several objectives). A pure function: the
// driver reads the files and prints it.
#pragma once

#include <optional>
#include <string>

#include "history/history.hpp"
#include "trial_jobs/jobs_file.hpp"

namespace tune {

// `top`: how many best trials (at least 20 of a front); `now`: seconds since
// the epoch, for the jobs file's age.
std::string status_text(const HistorySnapshot& h, int top, const std::optional<JobsFile>& jobs, double now);

}  // namespace tune
