// SPDX-License-Identifier: GPL-2.0-or-later
// `tune run`: rank 0 is the AppCore, every other rank a runner; with one
// rank (or without mpirun) the one process runs the trials itself.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/pruner.hpp"
#include "study/run_control.hpp"
#include "study_flags_cli.hpp"
#include "trial_jobs/trial_job_rules.hpp"

namespace tune {

// tune run's flags: the study's (shared with tune submit) and the run's own.
struct RunOptions : StudyFlags {
  std::string history = "tune-history.h5";
  std::string time_limit;  // stop dispatching after this long
  std::string trial_dir;   // default: HISTORY without .h5, plus ".trials"
  bool resume = false;
  bool quiet = false;

  // --trial-jobs: the AppCore's side (job_runner/channel, driver/trial_jobs_loop).
  std::string appcore_wait = "5m";  // how long a trial job waits for a lost AppCore
  std::string slurm_poll = "10s";   // time between looks at the study's jobs in slurmctld
};

// Declares tune run's own flags beside the study flags.
void add_run_options(CLI::App& app, RunOptions& o);

// Exit codes, documented in tune(1): lib/study/run_control.hpp.
int run_study(const RunOptions& options);

}  // namespace tune
