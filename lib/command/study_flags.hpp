// SPDX-License-Identifier: GPL-2.0-or-later
// The flags that define a study, the same for `tune run` and `tune submit`,
// in one list (`study_flags()`): each flag's names, help, value, check, scope
// and how it is passed on in a job script. The driver declares that list on
// the command line in a loop (driver/study_flags_cli.cpp); `check_study_flags`
// checks a study's values against it and `study_run_arguments` writes them
// back as `tune run` arguments. A new study flag is a field of StudyFlags and
// one entry of the list, nothing else. A search algorithm's or a pruning
// rule's own setting is not here at all: the list is made with one flag per
// setting the registries declare (registry/settings.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "estimators/convergence.hpp"
#include "registry/settings.hpp"
#include "search/pruner.hpp"

namespace tune {

// Every setting the search algorithms and pruning rules declare, by key,
// with its default as text.
std::map<std::string, std::string> policy_setting_defaults();

struct StudyFlags {
  std::string name;  // run: default the history's file name; submit: the space file's
  std::string space_file;
  std::string algo = "random";
  std::optional<std::uint64_t> seed;
  // The search algorithms' and pruning rules' own settings, by key, as typed
  // (every declared key, its default until a flag sets it).
  std::map<std::string, std::string> settings = policy_setting_defaults();
  std::string objective;          // --objective loss,latency: named objectives (lib/command/objective_flags)
  std::string direction = "min";  // min, max, or one per named objective
  std::vector<std::string> command;  // after "--"
  std::string program;               // --program "CMD"
  bool shell = false;                // run the command through /bin/sh -c
  std::string program_version;
  std::optional<std::uint64_t> trials;
  std::string trial_time_limit;  // durations as typed, checked by check_study_flags
  std::string grace = "10s";
  std::string drain = "60s";  // SIGUSR1: how long running trials may go on
  std::string target;         // a number, or one per named objective
  std::string converged;  // --converged MARGIN: end once the rest of the budget is unlikely to improve by it
  std::string converged_chance = "0.05";
  int max_failures = 10;
  std::string storage_wait = "10m";  // a full or failing storage: how long to wait for room
  std::string metric_regex;
  int gpus_per_trial = 0;
  PrunerOptions prune;     // --prune and its settings
  std::string enqueue;     // parameter sets run first
  std::string warm_start;  // an earlier study's history, imported
  std::string setup;       // shell lines run first by the job script and each trial job
  bool keep_checkpoints = false;

  // --trial-jobs: every trial its own Slurm job.
  bool trial_jobs = false;
  int trials_per_job = 1;
  int nodes_per_trial = 1, tasks_per_trial = 1;
  std::string constraint;
  int nice = 0;
  // A trial job's (tune run --trial-jobs); under tune submit also the MPI job's.
  int cpus_per_trial = 1;
  std::string mem_per_trial = "1G";
  int parallel = 1;  // trials at once: trial jobs pending and running, or MPI runners
  std::string partition, account, qos, reservation;
};

enum class StudyCommand { Run, Submit };

// Where a study flag applies.
enum class FlagScope {
  Study,            // every study
  TrialJobsSwitch,  // --trial-jobs itself
  TrialJobs,        // only with --trial-jobs
  TrialJobsOnRun,   // tune run: only with --trial-jobs; tune submit: also the MPI job's
};

// What a value must be. Range: from `lo` to `hi`. ExistingFile: a file that
// exists, checked by tune submit (tune run reads it and says so itself).
// Setting: a policy's own setting, checked against its declaration.
enum class FlagCheck {
  None,
  Algorithm,
  Pruner,
  Positive,
  NonNegative,
  Range,
  Duration,
  Size,
  ExistingFile,
  Setting
};

// When a flag is passed on in a job script: never, always, or when its value
// is not the default.
enum class InScript { Never, Always, IfChanged };

template <class T>
using FlagField = std::function<T&(StudyFlags&)>;
using AnyFlagField =
    std::variant<FlagField<std::string>, FlagField<int>, FlagField<std::int64_t>, FlagField<bool>,
                 FlagField<std::optional<std::uint64_t>>, FlagField<std::vector<std::string>>>;

// The field a flag sets: study_field<&StudyFlags::grace>(), or of a member's
// member: study_field<&StudyFlags::prune, &PrunerOptions::metric>().
template <auto Member>
AnyFlagField study_field() {
  return +[](StudyFlags & f) -> auto& {
    return f.*Member;
  };
}
template <auto Outer, auto Inner>
AnyFlagField study_field() {
  return +[](StudyFlags & f) -> auto& {
    return (f.*Outer).*Inner;
  };
}

struct StudyFlag {
  const char* names;  // as CLI11 takes them ("--name,--app-name"); a positional has no dashes
  std::string help;
  std::string submit_help = {};  // tune submit's, where it differs (else empty)
  AnyFlagField field;
  FlagCheck check = FlagCheck::None;
  long lo = 0, hi = 0;  // FlagCheck::Range
  FlagScope scope = FlagScope::Study;
  bool required_on_submit = false;  // a job cannot ask; a resumed tune run may leave it out
  bool show_default = false;        // in --help
  InScript in_script = InScript::IfChanged;
  std::function<bool(const StudyFlags&)> applies{};  // in a job script only when this holds
  std::optional<SettingSpec> setting{};              // FlagCheck::Setting: what it declares

  // The first long name, as messages and job scripts give it ("--grid-points").
  std::string long_name() const;
  const std::string& help_for(StudyCommand c) const {
    return c == StudyCommand::Submit && !submit_help.empty() ? submit_help : help;
  }
  // Whether `c` takes this flag only beside --trial-jobs.
  bool needs_trial_jobs(StudyCommand c) const {
    return scope == FlagScope::TrialJobs || (scope == FlagScope::TrialJobsOnRun && c == StudyCommand::Run);
  }
};

// Every study flag, in the order of --help and of a job script's arguments.
const std::vector<StudyFlag>& study_flags();

// Checks a study's values against the list (ranges, names, durations, sizes,
// scopes; under Submit also required flags and existing files), and that the
// program is given once. Throws std::invalid_argument naming the flag.
void check_study_flags(const StudyFlags& f, StudyCommand command = StudyCommand::Run);

// The policy settings a study's flags give, as numbers (checked by
// check_study_flags first), and the pruning rule with its settings.
Settings policy_settings(const StudyFlags& f);
PrunerOptions pruner_options(const StudyFlags& f);
// --converged and --converged-chance, or nothing without --converged.
// Throws std::invalid_argument naming the flag.
std::optional<ConvergenceRule> convergence_rule(const StudyFlags& f);

// The study flags as `tune run` arguments, for a job script: each changed or
// always-passed value (strings through `quote`), and with --trial-jobs its
// own flags on a line of their own. Starts with a space; empty for defaults.
std::string study_run_arguments(const StudyFlags& f, std::string (*quote)(const std::string&));

}  // namespace tune
