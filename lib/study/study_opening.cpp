// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/study_opening.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "command/text_input.hpp"
#include "study/run_control.hpp"

namespace tune {

namespace fs = std::filesystem;

StudyLimits study_limits(const StudyFlags& flags, const std::string& time_limit, const StudyInfo& study,
                         const ObjectiveFlags& objectives) {
  StudyLimits limits;
  limits.trials = trial_budget(flags.trials, study.trials);
  if (!time_limit.empty()) limits.time_limit = parse_duration(time_limit, "--time-limit");
  limits.target = objectives.target;
  limits.targets = objectives.targets;
  limits.max_failures = flags.max_failures;
  limits.storage_wait = parse_duration(flags.storage_wait, "--storage-wait");
  if ((limits.converged = convergence_rule(flags))) {
    if (!limits.trials)
      throw std::invalid_argument("--converged judges the trials a budget has left: give --trials too");
    if (study.multi_objective())
      throw std::invalid_argument(
          "--converged is for one objective; a study of several ends with --trials or --target");
  }
  return limits;
}

RunTimes run_times(const StudyFlags& flags) {
  return {.trial_limit = flags.trial_time_limit.empty()
                             ? 0
                             : parse_duration(flags.trial_time_limit, "--trial-time-limit"),
          .grace = parse_duration(flags.grace, "--grace"),
          .drain = parse_duration(flags.drain, "--drain")};
}

std::string trial_dir_of(const std::string& trial_dir, const std::string& history) {
  std::string dir =
      fs::absolute(!trial_dir.empty() ? fs::path(trial_dir) : fs::path(history).replace_extension(".trials"))
          .lexically_normal()
          .string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::vector<std::string> program_words(const StudyFlags& flags, const std::string& recorded) {
  std::vector<std::string> words = flags.command.empty() ? split_command(flags.program) : flags.command;
  if (words.empty()) words = split_command(recorded);
  if (words.empty()) throw std::invalid_argument("no program to tune: give it after -- or with --program");
  return words;
}

std::vector<std::string> opening_lines(const OpenedStudy& s) {
  const StudyInfo& info = s.info;
  std::vector<std::string> out;
  if (s.recovered)
    out.push_back("recovered " + s.history + " after an unclean stop (the old file is kept as " + s.history +
                  ".before-recovery)" + (s.recovered->empty() ? "" : ": " + *s.recovered));
  if (s.fresh && info.imported > 0)
    out.push_back("imported " + std::to_string(info.imported) + " finished trial(s) of " +
                  info.imported_from +
                  (s.imported_skipped
                       ? " (" + std::to_string(s.imported_skipped) +
                             " left out: their parameters are outside this space; " + s.imported_why + ")"
                       : std::string()));
  if (s.fresh && !info.enqueued.empty())
    out.push_back("the " + std::to_string(nlohmann::json::parse(info.enqueued).size()) +
                  " parameter set(s) of --enqueue " + s.enqueue_flag + " run first");
  out.push_back(
      "study '" + info.name + "': " + info.sampler + " search over " +
      std::to_string(info.space.dimensions()) + " parameter(s), " +
      (info.pruner.rule != "none" ? info.pruner.rule + " pruning on " + info.pruner.metric + ", " : "") +
      (s.trials ? std::to_string(*s.trials) + " trials" + (s.trials_flag ? "" : " (the study's --trials)")
                : std::string("no trial limit")) +
      ", " + std::to_string(std::max(1, s.runners)) +
      (s.trial_jobs ? " trial job(s) at once" : " runner(s)") + "; history " + s.history +
      (s.trials_so_far == 0 ? "" : " (" + std::to_string(s.trials_so_far) + " trials so far)"));
  if (s.converged)
    out.push_back(
        "it has converged by its --converged already; to run more, give a smaller --converged "
        "MARGIN, a larger --trials, or leave --converged out");
  else if (s.resumed && !s.trials_flag && s.trials && s.remaining == 0)
    out.push_back("its " + std::to_string(*s.trials) +
                  " trials (its last --trials) are done; give --trials N (a total, more than " +
                  std::to_string(std::max<std::uint64_t>(*s.trials, s.trials_so_far)) + ") to run more");
  return out;
}

}  // namespace tune
