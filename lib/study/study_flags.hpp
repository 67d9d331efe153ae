// The flags that define a study, the same for `tune run` and `tune submit`:
// the values (declared on the command line once, in driver/study_flags), the
// checks that need no history, and the same values as `tune run` arguments
// for a job script. A new study flag goes here and in driver/study_flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/pruner.hpp"

namespace tune {

struct StudyFlags {
  std::string name;  // run: default the history's file name; submit: the space file's
  std::string space_file;
  std::string algo = "random";
  std::optional<std::uint64_t> seed;
  int grid_points = 5;
  std::string objective;             // --objective loss,latency: named objectives (lib/study/objective_flags)
  std::string direction = "min";     // min, max, or one per named objective
  std::vector<std::string> command;  // after "--"
  std::string program;               // --program "CMD"
  bool shell = false;                // run the command through /bin/sh -c
  std::string program_version;
  std::optional<std::uint64_t> trials;
  std::string trial_time_limit;  // durations as typed, checked by check_study_flags
  std::string grace = "10";
  std::string drain = "60";  // SIGUSR1: how long running trials may go on
  std::string target;        // a number, or one per named objective
  int max_failures = 10;
  std::string metric_regex;
  int gpus_per_trial = 0;
  PrunerOptions prune;     // --prune and its settings
  std::string enqueue;     // parameter sets run first
  std::string warm_start;  // an earlier study's history, imported
  bool keep_checkpoints = false;

  // --trial-jobs: every trial its own Slurm job.
  bool trial_jobs = false;
  int trials_per_job = 1;
  int cpus_per_trial = 1, nodes_per_trial = 1, tasks_per_trial = 1;
  std::string mem_per_trial = "1G";
  std::string constraint;
  int nice = 0;
};

// The checks that need no history: one program, durations, sizes. Throws
// std::invalid_argument naming the flag.
void check_study_flags(const StudyFlags& f);

// The study flags as `tune run` arguments, for a job script (each value
// through `quote`); --trial-jobs' own flags included when it is set.
std::string study_run_arguments(const StudyFlags& f, std::string (*quote)(const std::string&));

}  // namespace tune
