// SPDX-License-Identifier: GPL-2.0-or-later
// The batch scripts tune writes. A study's (what `tune submit` writes beside
// the history and submits): its #SBATCH lines, the resume on requeue, and
// the study run under `tune wrap` (the yield protocol,
// docs/yield-protocol.md). A trial job's (what `tune run --trial-jobs`
// submits for each trial job): the --setup lines, then `tune trial-job`.
// Plain text from the options; no Slurm here.
#pragma once

#include <string>

#include "command/study_flags.hpp"

namespace tune {

// tune submit's flags: the study's (shared with tune run) and the job's.
struct SubmitOptions : StudyFlags {
  int runners_per_node = 0;  // runners (MPI tasks) per node at most; 0: all on one node
  int appcore_cpus = 1;
  std::string appcore_mem;  // accepted for the source design; see tune(1)
  std::string time;         // the job's --time
  std::string history;
  std::string workdir;
  std::string setup_text;  // --setup's lines, read by the caller (setup_lines)
  bool dry_run = false;
};

// The lines of a --setup file, as a job script runs them: a "#!" first line
// dropped, a final newline added. Throws std::invalid_argument naming the
// file when it cannot be read.
std::string setup_lines(const std::string& file);

// The script, exactly as submit writes it; `written` is the date in its
// first comment ("2026-11-25 08:00:00"). Throws std::invalid_argument for a
// malformed size or duration.
std::string sbatch_script(const SubmitOptions& o, const std::string& tune_binary, const std::string& written);

// What every trial job of a study runs: `setup` (setup_lines' text, with the
// file's name for the comment; empty: none) under bash, for module and
// conda's activation are bash functions, else sh; then the trial-job
// command of `tune_binary`, reaching the AppCore through `channel_file`.
struct TrialJobScript {
  std::string study;
  std::string setup_file, setup;
  std::string tune_binary;
  std::string channel_file;
  int trials_per_job = 1;
  long appcore_wait_s = 300;
};
std::string trial_job_script(const TrialJobScript& s);

}  // namespace tune
