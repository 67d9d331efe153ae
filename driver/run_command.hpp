// `tune run`: rank 0 is the AppCore, every other rank a runner; with one
// rank (or without mpirun) the one process runs the trials itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/pruner.hpp"
#include "study/trial_jobs.hpp"
#include "study/yield_protocol.hpp"

namespace tune {

struct RunOptions {
  std::string history = "tune-history.h5";
  std::string name;                 // default: the history's file name without .h5
  std::string space_file;
  std::string algo = "random";
  std::optional<std::uint64_t> seed;
  int grid_points = 5;
  std::string objective;             // --objective loss,latency: named objectives (see lib/study/objective_flags)
  std::string direction = "min";     // min, max, or one per named objective
  std::vector<std::string> command;  // after "--", or split from --program
  std::string program;               // --program "CMD"
  bool shell = false;                // run the command through /bin/sh -c
  std::string program_version;
  std::optional<std::uint64_t> trials;
  std::string time_limit;            // durations as typed; parsed in run_study
  std::string trial_time_limit;
  std::string grace = "10";
  std::string drain = "60";  // SIGUSR1: how long running trials may go on
  std::string target;                // a number, or one per named objective
  int max_failures = 10;
  std::string metric_regex;
  int gpus_per_trial = 0;
  std::string trial_dir;             // default: HISTORY without .h5, plus ".trials"
  PrunerOptions prune;               // --prune and its settings
  bool resume = false;
  bool quiet = false;
  std::string enqueue;               // --enqueue FILE: parameter sets run first
  std::string warm_start;            // --warm-start OLD.h5: an earlier study's results, imported
  bool keep_checkpoints = false;     // keep finished trials' TUNE_CHECKPOINT_DIR

  // --trial-jobs: every trial its own Slurm job (trial_jobs/).
  bool trial_jobs = false;
  int parallel = 1;                  // trial jobs at once, pending and running
  int trials_per_job = 1;            // trials one job runs back to back
  int cpus_per_trial = 1, nodes_per_trial = 1, tasks_per_trial = 1;
  std::string mem_per_trial = "1G";
  std::string partition, account, qos, constraint, reservation;
  int nice = 0;
  std::string appcore_wait = "300";  // how long a trial job waits for a lost AppCore
  std::string slurm_poll = "10";     // seconds between looks at the study's jobs in slurmctld
};

// Exit codes, documented in tune(1).
constexpr int kExitOk = 0;
constexpr int kExitUsage = 1;          // bad input: flags, space, history
constexpr int kExitBrokenProgram = 3;  // --max-failures reached
// kExitInterrupted (75): SIGTERM/SIGUSR1, come back with --resume; in study/yield_protocol.hpp.

int run_study(const RunOptions& options);

}  // namespace tune
