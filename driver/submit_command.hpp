// `tune submit` (the source design's da-submit): writes an sbatch script for
// a study, keeps it beside the history, and submits it.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "search/pruner.hpp"

namespace tune {

struct SubmitOptions {
  std::string name;
  std::string program;
  std::vector<std::string> command;
  std::string space_file;
  std::string enqueue, warm_start;  // passed on to tune run (absolute paths)
  bool keep_checkpoints = false;
  std::string algo = "random";
  std::optional<std::uint64_t> seed;
  int grid_points = 5;
  std::string objective;      // named objectives, as tune run
  std::string direction = "min";
  std::uint64_t trials = 0;
  int parallel = 1;            // runners
  int runners_per_node = 0;    // MPI tasks per node (rank 0 counts on the first); 0: all on one node
  int cpus_per_trial = 1;
  std::string mem_per_trial = "1G";
  int gpus_per_trial = 0;
  int appcore_cpus = 1;
  std::string appcore_mem;    // accepted for the source design; see tune(1)
  std::string time;           // the job's --time
  std::string trial_time_limit;
  std::string target;
  std::string metric_regex;
  int max_failures = 10;
  PrunerOptions prune;
  std::string partition, account;
  std::string history;
  std::string workdir;
  bool shell = false;
  bool dry_run = false;
  // --trial-jobs: the AppCore is one small job, every trial a job of its own.
  bool trial_jobs = false;
  int trials_per_job = 1;
  int nodes_per_trial = 1, tasks_per_trial = 1;
  std::string qos, constraint, reservation;
};

void add_submit_options(CLI::App& app, SubmitOptions& o);
int submit_study(const SubmitOptions& o);
// The sbatch script, exactly as submit writes it.
std::string sbatch_script(const SubmitOptions& o, const std::string& tune_binary);

}  // namespace tune
