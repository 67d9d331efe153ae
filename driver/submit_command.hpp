// `tune submit` (the source design's da-submit): writes an sbatch script for
// a study, keeps it beside the history, and submits it.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "study_flags.hpp"

namespace tune {

// tune submit's flags: the study's (shared with tune run) and the job's.
struct SubmitOptions : StudyFlags {
  int parallel = 1;            // runners, or trial jobs at once with --trial-jobs
  int runners_per_node = 0;    // MPI tasks per node (rank 0 counts on the first); 0: all on one node
  int appcore_cpus = 1;
  std::string appcore_mem;     // accepted for the source design; see tune(1)
  std::string time;            // the job's --time
  std::string partition, account, qos, reservation;
  std::string history;
  std::string workdir;
  bool dry_run = false;
};

void add_submit_options(CLI::App& app, SubmitOptions& o);
int submit_study(const SubmitOptions& o);
// The sbatch script, exactly as submit writes it.
std::string sbatch_script(const SubmitOptions& o, const std::string& tune_binary);

}  // namespace tune
