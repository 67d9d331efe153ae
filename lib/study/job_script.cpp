// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/job_script.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <utility>
#include <vector>

#include "study/text_input.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;
std::string q(const std::string& s) {
  return shell_quote(s);
}

}  // namespace

std::string sbatch_script(const SubmitOptions& o, const std::string& tune_binary,
                          const std::string& written) {
  const long mem_mb = parse_megabytes(o.mem_per_trial, "--mem-per-trial");
  if (!o.appcore_mem.empty()) parse_megabytes(o.appcore_mem, "--appcore-mem");
  if (!o.time.empty()) parse_duration(o.time, "--time");
  if (!o.trial_time_limit.empty()) parse_duration(o.trial_time_limit, "--trial-time-limit");
  const int cpus = std::max(o.cpus_per_trial, o.appcore_cpus);
  const long mem_per_cpu = (mem_mb + cpus - 1) / cpus;
  const int tasks = o.parallel + 1;
  const int per_node = o.runners_per_node > 0 ? std::min(o.runners_per_node, tasks) : tasks;
  const int nodes = (tasks + per_node - 1) / per_node;
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `tune submit` on " << written
    << ". Edit it and submit it again with sbatch if you like.\n";
  if (o.trial_jobs) {
    // The AppCore alone: it holds no GPU and submits every trial as a job of its own.
    s << "# This job is the AppCore (search, history); every trial is a Slurm job of its own (" << o.name
      << ".trial).\n"
      << "#SBATCH --job-name=" << o.name << "\n"
      << "#SBATCH --ntasks=1\n"
      << "#SBATCH --cpus-per-task=" << o.appcore_cpus << "\n"
      << "#SBATCH --mem=" << (o.appcore_mem.empty() ? std::string("1G") : o.appcore_mem) << "\n";
  } else {
    s << "# Rank 0 of the MPI job is the AppCore (search, history); every other rank runs trials.\n"
      << "#SBATCH --job-name=" << o.name << "\n"
      << "#SBATCH --ntasks=" << tasks << "\n"
      << "#SBATCH --nodes=" << nodes << "\n"
      << "#SBATCH --ntasks-per-node=" << per_node << "\n"
      << "#SBATCH --cpus-per-task=" << cpus << "\n"
      << "#SBATCH --mem-per-cpu=" << mem_per_cpu << "M\n";
    // Per node, not per task: mpirun's daemons run as one step task per node and
    // a step inherits a job's per-task GPU count, so they would see one share.
    // Each runner takes its own share of its node's GPUs (--gpus-per-trial).
    if (o.gpus_per_trial > 0) s << "#SBATCH --gpus-per-node=" << per_node * o.gpus_per_trial << "\n";
  }
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n#SBATCH --signal=B:USR1@120\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.account.empty()) s << "#SBATCH --account=" << o.account << "\n";
  if (!o.qos.empty()) s << "#SBATCH --qos=" << o.qos << "\n";
  if (!o.reservation.empty()) s << "#SBATCH --reservation=" << o.reservation << "\n";
  s << "#SBATCH --output=" << fs::path(o.history).replace_extension("").string() << "-%j.out\n"
    << "#SBATCH --requeue\n"
    << "#SBATCH --open-mode=append\n"
    << "#SBATCH --chdir=" << o.workdir << "\n"
    << "set -u\n"
    << "history=" << q(o.history) << "\n"
    << "# A requeued job finds its history and continues the study.\n"
    << "resume=()\n"
    << "[ -e \"$history\" ] && resume=(--resume)\n"

    << "# tune wrap passes SIGUSR1 (a yield sched/tune asks, the warning before the\n"
    << "# time limit) on to the study, which drains and exits 75, and then requeues\n"
    << "# this job to resume it; after SIGTERM (scancel, preemption) it does not.\n"
    << "exec " << q(tune_binary) << " wrap -- " << (o.trial_jobs ? "" : "mpirun -np \"$SLURM_NTASKS\" ")
    << q(tune_binary) << " run --history \"$history\" \"${resume[@]}\" \\\n"
    << " " << study_run_arguments(o, q);
  s << " \\\n  --";
  const auto words = o.command.empty() ? split_command(o.program) : o.command;
  for (const auto& w : words) s << " " << q(w);
  s << "\n";
  return s.str();
}

}  // namespace tune
