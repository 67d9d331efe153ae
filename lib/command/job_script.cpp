// SPDX-License-Identifier: GPL-2.0-or-later
#include "command/job_script.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "command/text_input.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;
std::string q(const std::string& s) {
  return shell_quote(s);
}

}  // namespace

std::string setup_lines(const std::string& file) {
  std::ifstream in(file);
  if (!in)
    throw std::invalid_argument(
        "--setup " + file +
        ": cannot read it; give a file of shell lines (module load ..., conda activate ...)");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.rfind("#!", 0) == 0) s.erase(0, s.find('\n') == std::string::npos ? s.size() : s.find('\n') + 1);
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

std::string sbatch_script(const SubmitOptions& o, const std::string& tune_binary,
                          const std::string& written) {
  const long mem_mb = parse_megabytes(o.mem_per_trial, "--mem-per-trial");
  if (!o.appcore_mem.empty()) parse_megabytes(o.appcore_mem, "--appcore-mem");
  if (!o.time.empty()) parse_duration(o.time, "--time");
  if (!o.trial_time_limit.empty()) parse_duration(o.trial_time_limit, "--trial-time-limit");
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
    // The tasks are the runners, so the job holds exactly their CPUs and GPUs;
    // the AppCore is one more MPI process on the first node (tune wrap --mpi).
    const int runners = o.parallel;
    const int per_node = o.runners_per_node > 0 ? std::min(o.runners_per_node, runners) : runners;
    const int nodes = (runners + per_node - 1) / per_node;
    const long mem_per_cpu = (mem_mb + o.cpus_per_trial - 1) / o.cpus_per_trial;
    s << "# Every task is a runner (it starts the trials); rank 0 of the MPI job, the AppCore\n"
      << "# (search, history), is one more process on the first node, with no GPU.\n"
      << "#SBATCH --job-name=" << o.name << "\n"
      << "#SBATCH --ntasks=" << runners << "\n";
    // --ntasks-per-node with --ntasks that it does not divide makes Slurm
    // round the tasks up to whole nodes; --nodes alone spreads them.
    if (runners % per_node == 0)
      s << "#SBATCH --ntasks-per-node=" << per_node << "\n";
    else
      s << "#SBATCH --nodes=" << nodes << "\n";
    s << "#SBATCH --cpus-per-task=" << o.cpus_per_trial << "\n"
      << "#SBATCH --mem-per-cpu=" << mem_per_cpu << "M\n";
    if (o.gpus_per_trial > 0) s << "#SBATCH --gpus-per-task=" << o.gpus_per_trial << "\n";
  }
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n";
  // Whenever a limit applies (--time or the partition's), the warning before it.
  s << "#SBATCH --signal=B:USR1@120\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.account.empty()) s << "#SBATCH --account=" << o.account << "\n";
  if (!o.qos.empty()) s << "#SBATCH --qos=" << o.qos << "\n";
  if (!o.reservation.empty()) s << "#SBATCH --reservation=" << o.reservation << "\n";
  s << "#SBATCH --output=" << fs::path(o.history).replace_extension("").string() << "-%j.out\n"
    << "#SBATCH --requeue\n"
    << "#SBATCH --open-mode=append\n"
    << "#SBATCH --chdir=" << o.workdir << "\n";
  // Before set -u: activation scripts (conda's among them) read unset variables.
  if (!o.setup.empty())
    s << "# --setup " << o.setup << ": the environment the study and its trials run in\n" << o.setup_text;
  s << "set -u\n"
    << "history=" << q(o.history) << "\n"
    << "# A requeued job finds its history and continues the study.\n"
    << "resume=()\n"
    << "[ -e \"$history\" ] && resume=(--resume)\n"

    << "# tune wrap passes SIGUSR1 (a yield sched/tune asks, the warning before the\n"
    << "# time limit) on to the study, which drains and exits 75, and then requeues\n"
    << "# this job to resume it; after SIGTERM (scancel, preemption) it does not.\n"
    << "exec " << q(tune_binary) << " wrap "
    << (o.trial_jobs ? "-- " : "--mpi -- mpirun -np \"$((SLURM_NTASKS + 1))\" ") << q(tune_binary)
    << " run --history \"$history\" \"${resume[@]}\" \\\n"
    << " " << study_run_arguments(o, q);
  s << " \\\n  --";
  const auto words = o.command.empty() ? split_command(o.program) : o.command;
  for (const auto& w : words) s << " " << q(w);
  s << "\n";
  return s.str();
}

std::string trial_job_script(const TrialJobScript& s) {
  const std::string setup = s.setup.empty() ? "" : "# --setup " + s.setup_file + "\n" + s.setup;
  return std::string(setup.empty() ? "#!/bin/sh\n" : "#!/bin/bash\n") + "# A trial job of study " + s.study +
         " (tune run --trial-jobs): it asks the study's AppCore for its trial when it starts.\n" + setup +
         "exec " + shell_quote(s.tune_binary) + " trial-job --channel " + shell_quote(s.channel_file) +
         " --trials " + std::to_string(s.trials_per_job) + " --appcore-wait " +
         std::to_string(s.appcore_wait_s) + "s\n";
}

}  // namespace tune
