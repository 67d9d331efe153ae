// SPDX-License-Identifier: GPL-2.0-or-later
// What the AppCore decides when it opens a study, from the run's flags and
// the study (new, or read from its history): the limits of this run, how
// long a trial, its grace and the drain may take, where the trials' files
// go, which program runs, and what it says once the study is open. Pure
// functions: driver/appcore opens the files and builds the study from them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "command/objective_flags.hpp"
#include "command/study_flags.hpp"
#include "history/history.hpp"
#include "study/study.hpp"

namespace tune {

// This run's limits: the trial budget (--trials, else the study's own),
// --time-limit, the targets, --max-failures, --storage-wait and
// --converged. Throws std::invalid_argument naming a bad duration, or a
// --converged without a budget or with several objectives.
StudyLimits study_limits(const StudyFlags& flags, const std::string& time_limit, const StudyInfo& study,
                         const ObjectiveFlags& objectives);

struct RunTimes {
  double trial_limit = 0;  // --trial-time-limit; 0: none
  double grace = 10, drain = 60;
};
RunTimes run_times(const StudyFlags& flags);

// --trial-dir, or the history's path with .trials for its extension:
// absolute (once, not per trial), normalised, without a trailing '/'.
std::string trial_dir_of(const std::string& trial_dir, const std::string& history);

// The program's words: the flags' (after -- or --program), else the
// command the study recorded. Throws std::invalid_argument when there is none.
std::vector<std::string> program_words(const StudyFlags& flags, const std::string& recorded);

// What the AppCore says once the study is open.
struct OpenedStudy {
  const StudyInfo& info;
  std::string history;
  bool fresh = false;                    // created by this run
  bool resumed = false;                  // --resume
  std::optional<std::string> recovered;  // the recovery's warning ("" for none) after an unclean stop
  std::size_t imported_skipped = 0;
  std::string imported_why;
  std::string enqueue_flag;                  // --enqueue as given
  std::optional<std::uint64_t> trials_flag;  // --trials as given
  std::optional<std::uint64_t> trials;       // this run's budget
  std::optional<std::uint64_t> remaining;    // trials its budget has left
  std::size_t trials_so_far = 0;
  int runners = 1;
  bool trial_jobs = false;
  bool converged = false;  // its --converged already holds: it ends before a trial runs
};
std::vector<std::string> opening_lines(const OpenedStudy& s);

}  // namespace tune
