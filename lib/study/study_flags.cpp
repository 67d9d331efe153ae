#include "study/study_flags.hpp"

#include <stdexcept>

#include "study/text_input.hpp"

namespace tune {

namespace {

// The early-stopping flags as `tune run` arguments.
std::string prune_arguments(const PrunerOptions& o, std::string (*quote)(const std::string&)) {
  if (o.rule == "none") return "";
  std::string s = " --prune " + o.rule + " --prune-metric " + quote(o.metric);
  if (o.rule == "asha")
    s += " --min-resource " + std::to_string(o.min_resource) + " --reduction-factor " +
         std::to_string(o.reduction_factor);
  if (o.rule == "median")
    s += " --min-resource " + std::to_string(o.min_resource) + " --prune-min-trials " +
         std::to_string(o.min_trials);
  return s;
}

}  // namespace

void check_study_flags(const StudyFlags& f) {
  if (!f.program.empty() && !f.command.empty())
    throw std::invalid_argument("give the program either after -- or with --program, not both");
  if (!f.trial_time_limit.empty()) (void)parse_duration(f.trial_time_limit, "--trial-time-limit");
  (void)parse_duration(f.grace, "--grace");
  (void)parse_duration(f.drain, "--drain");
  (void)parse_megabytes(f.mem_per_trial, "--mem-per-trial");
}

std::string study_run_arguments(const StudyFlags& f, std::string (*q)(const std::string&)) {
  std::string s = " --algo " + f.algo + " --direction " + f.direction;
  if (f.trials) s += " --trials " + std::to_string(*f.trials);
  s += " --max-failures " + std::to_string(f.max_failures);
  if (!f.objective.empty()) s += " --objective " + q(f.objective);
  if (f.seed) s += " --seed " + std::to_string(*f.seed);
  if (f.algo == "grid") s += " --grid-points " + std::to_string(f.grid_points);
  if (f.gpus_per_trial > 0) s += " --gpus-per-trial " + std::to_string(f.gpus_per_trial);
  if (!f.trial_time_limit.empty()) s += " --trial-time-limit " + q(f.trial_time_limit);
  if (f.grace != StudyFlags{}.grace) s += " --grace " + q(f.grace);
  if (f.drain != StudyFlags{}.drain) s += " --drain " + q(f.drain);
  if (!f.target.empty()) s += " --target " + q(f.target);
  if (!f.enqueue.empty()) s += " --enqueue " + q(f.enqueue);
  if (!f.warm_start.empty()) s += " --warm-start " + q(f.warm_start);
  if (f.keep_checkpoints) s += " --keep-checkpoints";
  if (!f.metric_regex.empty()) s += " --metric-regex " + q(f.metric_regex);
  if (!f.program_version.empty()) s += " --program-version " + q(f.program_version);
  s += prune_arguments(f.prune, q);
  if (f.shell) s += " --shell";
  if (f.trial_jobs) {
    s += " \\\n  --trial-jobs --trials-per-job " + std::to_string(f.trials_per_job) + " --cpus-per-trial " +
         std::to_string(f.cpus_per_trial) + " --mem-per-trial " + q(f.mem_per_trial) + " --nodes-per-trial " +
         std::to_string(f.nodes_per_trial) + " --tasks-per-trial " + std::to_string(f.tasks_per_trial);
    if (!f.constraint.empty()) s += " --constraint " + q(f.constraint);
    if (f.nice > 0) s += " --nice " + std::to_string(f.nice);
  }
  return s;
}

}  // namespace tune
