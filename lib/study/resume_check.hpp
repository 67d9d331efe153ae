// SPDX-License-Identifier: GPL-2.0-or-later
// What a resumed study's flags may say. A study's space, pruner, enqueued
// sets, warm start, objectives and directions are fixed when it is created:
// given again on --resume they must be the same (tune submit's requeue
// passes them all again); --trials, the time limits, the drain and the
// runners may change.
#pragma once

#include <stdexcept>
#include <string>

#include "command/objective_flags.hpp"
#include "history/history.hpp"
#include "search/pruner.hpp"

namespace tune {

// A flag that differs from the study being resumed; what() names the flag,
// the history and the fix.
struct ResumeMismatch : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The flags of a `tune run --resume`, as given (empty: not given).
struct ResumeFlags {
  std::string history;
  std::string space_file;
  PrunerOptions prune;  // rule "none": not given
  Settings settings;    // the policies' settings as the flags give them (defaults where not typed)
  std::string enqueue, warm_start;
  std::string objective, direction;
  ObjectiveFlags objective_flags;  // --objective/--direction/--target read against the study
};

// Throws ResumeMismatch for the first flag that would change study `s`.
void check_resume(const ResumeFlags& given, const StudyInfo& s);

}  // namespace tune
