// SPDX-License-Identifier: GPL-2.0-or-later
#include "command/study_flags.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "command/text_input.hpp"
#include "search/pruner.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"

namespace tune {

namespace {

using F = StudyFlags;

bool pruning(const StudyFlags& f) {
  return f.prune.rule != "none";
}

bool declares(const std::vector<SettingSpec>& specs, const std::string& key) {
  return std::any_of(specs.begin(), specs.end(), [&](const SettingSpec& s) { return s.key == key; });
}

// One flag per setting key the registries of `Kind` declare (two rules that
// declare one key share its flag: asha's and median's --min-resource), in the
// registry's order; its help says which policy reads it how.
template <class Kind>
std::vector<StudyFlag> setting_flags(const Kind& registry,
                                     std::function<std::string(const StudyFlags&)> chosen) {
  std::vector<StudyFlag> out;
  for (const auto& entry : registry.entries())
    for (const SettingSpec& spec : entry.settings) {
      auto same = std::find_if(out.begin(), out.end(),
                               [&](const StudyFlag& f) { return f.setting->key == spec.key; });
      if (same != out.end()) {
        if (same->setting->flag != spec.flag || same->setting->fallback != spec.fallback)
          throw std::logic_error("setting '" + spec.key + "' is declared twice with another flag or default");
        same->help += "; " + spec.help;
        continue;
      }
      // The registry is static: its flag's text outlives the list.
      StudyFlag f;
      f.names = spec.flag.c_str();
      f.help = spec.help;
      const std::string key = spec.key;
      f.field = FlagField<std::string>([key](StudyFlags& s) -> std::string& { return s.settings[key]; });
      f.check = FlagCheck::Setting;
      f.show_default = true;
      f.in_script = InScript::Always;  // when its policy is chosen: the script states every setting
      f.applies = [&registry, chosen, key](const StudyFlags& s) {
        const auto* e = registry.find(chosen(s));
        return e && declares(e->settings, key);
      };
      f.setting = spec;
      out.push_back(std::move(f));
    }
  return out;
}

std::vector<StudyFlag> sampler_setting_flags() {
  return setting_flags(samplers(), [](const StudyFlags& f) { return f.algo; });
}
std::vector<StudyFlag> pruner_setting_flags() {
  return setting_flags(pruners(), [](const StudyFlags& f) { return f.prune.rule; });
}

std::vector<StudyFlag> listed_study_flags();

std::vector<StudyFlag> make_study_flags() {
  std::vector<StudyFlag> flags = listed_study_flags();
  // Each policy's settings after the flag that picks it.
  auto after = [&](const char* names, std::vector<StudyFlag> more) {
    auto at = std::find_if(flags.begin(), flags.end(),
                           [&](const StudyFlag& f) { return f.names == std::string(names); });
    flags.insert(at + 1, std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  after("--seed", sampler_setting_flags());
  after("--prune-metric", pruner_setting_flags());
  return flags;
}

std::vector<StudyFlag> listed_study_flags() {
  using C = FlagCheck;
  using S = FlagScope;
  using I = InScript;
  return {
      {.names = "--name,--app-name",
       .help = "study name (default: the history's file name)",
       .submit_help = "study and job name (default: the space file's name)",
       .field = study_field<&F::name>()},
      {.names = "--space,--tuning-parameters",
       .help = "search space JSON file (required for a new study)",
       .submit_help = "search space JSON file",
       .field = study_field<&F::space_file>(),
       .check = C::ExistingFile,
       .required_on_submit = true},
      {.names = "--algo,--tuning-type",
       .help = "search algorithm: " + samplers().choices(),
       .field = study_field<&F::algo>(),
       .check = C::Algorithm,
       .show_default = true,
       .in_script = I::Always},
      {.names = "--seed",
       .help = "random seed (default: from the clock, recorded in the history)",
       .field = study_field<&F::seed>()},
      {.names = "--objective",
       .help = "several objectives: the names the program reports them under, e.g. loss,latency (answer: the "
               "Pareto front)",
       .field = study_field<&F::objective>()},
      {.names = "--direction",
       .help = "min or max: which objective is better (one per objective with --objective)",
       .field = study_field<&F::direction>(),
       .show_default = true,
       .in_script = I::Always},
      {.names = "--program,--app-runner-launch-cmd",
       .help = "the trial program as one string (split like a shell, nothing expanded)",
       .field = study_field<&F::program>(),
       .in_script = I::Never},  // a job script gives the program after --
      {.names = "--shell",
       .help = "run the program through /bin/sh -c (placeholders are shell-quoted)",
       .field = study_field<&F::shell>()},
      {.names = "--program-version",
       .help = "recorded in the history (e.g. a git commit)",
       .field = study_field<&F::program_version>()},
      {.names = "--trials,--trail-steps",
       .help = "number of trials in the study (a total; a resumed study without it runs to the last number "
               "given)",
       .field = study_field<&F::trials>(),
       .check = C::Positive,
       .required_on_submit = true},
      {.names = "--trial-time-limit",
       .help = "end a trial after this long (SIGTERM, then SIGKILL)",
       .field = study_field<&F::trial_time_limit>(),
       .check = C::Duration},
      {.names = "--grace",
       .help = "time between SIGTERM and SIGKILL",
       .field = study_field<&F::grace>(),
       .check = C::Duration,
       .show_default = true},
      {.names = "--drain",
       .help = "on SIGUSR1 (a yield, a time-limit warning), let running trials finish this long before "
               "ending them",
       .field = study_field<&F::drain>(),
       .check = C::Duration,
       .show_default = true},
      {.names = "--target",
       .help = "stop once the best objective reaches this value (one per objective: once a trial meets all)",
       .field = study_field<&F::target>()},
      {.names = "--converged",
       .help = "end the study once the trials --trials has left are unlikely to beat its best by MARGIN (in "
               "the objective's units) or to reach --target",
       .field = study_field<&F::converged>()},
      {.names = "--converged-chance",
       .help = "with --converged: end when that chance is below this",
       .field = study_field<&F::converged_chance>(),
       .show_default = true},
      {.names = "--max-failures",
       .help = "stop after this many failed trials in a row (0: never)",
       .field = study_field<&F::max_failures>(),
       .check = C::NonNegative,
       .show_default = true,
       .in_script = I::Always},
      {.names = "--storage-wait",
       .help =
           "when the study's storage is full, over quota, read-only or failing, hand out no trial and "
           "try it again for this long before stopping (exit 4; its trials are not charged to the program)",
       .field = study_field<&F::storage_wait>(),
       .check = C::Duration,
       .show_default = true},
      {.names = "--metric-regex",
       .help =
           "read the objective from stdout: the last match's first group (for programs you cannot change)",
       .field = study_field<&F::metric_regex>()},
      {.names = "--gpus-per-trial",
       .help = "GPUs each trial gets (CUDA_VISIBLE_DEVICES; per node with --trial-jobs)",
       .field = study_field<&F::gpus_per_trial>(),
       .check = C::NonNegative,
       .show_default = true},
      {.names = "--prune",
       .help = "early stopping: " + pruners().choices(),
       .field = study_field<&F::prune, &PrunerOptions::rule>(),
       .check = C::Pruner,
       .show_default = true},
      {.names = "--prune-metric",
       .help = "the reported metric pruning compares (e.g. val_loss; 'objective' for objective= reports); it "
               "must improve in --direction",
       .field = study_field<&F::prune, &PrunerOptions::metric>(),
       .in_script = I::Always,
       .applies = pruning},
      {.names = "--enqueue",
       .help = "JSON list of parameter sets to run first (checked against the space)",
       .field = study_field<&F::enqueue>(),
       .check = C::ExistingFile},
      {.names = "--warm-start",
       .help = "HDF5 history of an earlier study: its finished trials feed the search, not run again",
       .field = study_field<&F::warm_start>(),
       .check = C::ExistingFile},
      {.names = "--setup",
       .help = "shell lines (module load, conda activate, export) run before the study in tune submit's "
               "job script and before the program in each trial job; copied from FILE when the study starts",
       .field = study_field<&F::setup>(),
       .check = C::ExistingFile},
      {.names = "--keep-checkpoints",
       .help = "keep each finished trial's checkpoint directory (TUNE_CHECKPOINT_DIR; removed by default)",
       .field = study_field<&F::keep_checkpoints>()},
      {.names = "command",
       .help = "the trial program and its arguments, after --; {name} is a parameter",
       .field = study_field<&F::command>(),
       .in_script = I::Never},  // a job script gives the program after --

      {.names = "--trial-jobs",
       .help =
           "run every trial as its own Slurm job, bound to its parameters when it starts (not under mpirun)",
       .submit_help = "the AppCore is one small job (1 CPU, no GPU) and every trial a Slurm job of its own",
       .field = study_field<&F::trial_jobs>(),
       .scope = S::TrialJobsSwitch,
       .in_script = I::Always},
      {.names = "--trials-per-job",
       .help = "trial jobs: trials one job runs back to back (short trials)",
       .field = study_field<&F::trials_per_job>(),
       .check = C::Range,
       .lo = 1,
       .hi = 100000,
       .scope = S::TrialJobs,
       .show_default = true,
       .in_script = I::Always},
      {.names = "--nodes-per-trial",
       .help = "trial jobs: nodes of a trial job; the program runs under srun",
       .field = study_field<&F::nodes_per_trial>(),
       .check = C::Positive,
       .scope = S::TrialJobs,
       .show_default = true,
       .in_script = I::Always},
      {.names = "--tasks-per-trial",
       .help = "trial jobs: tasks of the program (srun when more than 1)",
       .field = study_field<&F::tasks_per_trial>(),
       .check = C::Positive,
       .scope = S::TrialJobs,
       .show_default = true,
       .in_script = I::Always},
      {.names = "--constraint",
       .help = "trial jobs: Slurm node features of each trial job (sbatch --constraint)",
       .field = study_field<&F::constraint>(),
       .scope = S::TrialJobs},
      {.names = "--nice",
       .help = "trial jobs: sbatch --nice, lowers their priority (0 to 2147483645, Slurm's range)",
       .field = study_field<&F::nice>(),
       .check = C::Range,
       .lo = 0,
       .hi = 2147483645,
       .scope = S::TrialJobs},
      {.names = "--cpus-per-trial,--app-runner-cpus",
       .help = "trial jobs: CPUs per task of a trial job",
       .submit_help = "CPUs of each trial (a runner, or a trial job's task)",
       .field = study_field<&F::cpus_per_trial>(),
       .check = C::Positive,
       .scope = S::TrialJobsOnRun,
       .show_default = true,
       .in_script = I::Always},
      {.names = "--mem-per-trial,--app-runner-memory",
       .help = "trial jobs: memory per node of a trial job (512M, 4G)",
       .submit_help = "memory of each trial (512M, 4G; per node of a trial job)",
       .field = study_field<&F::mem_per_trial>(),
       .check = C::Size,
       .scope = S::TrialJobsOnRun,
       .show_default = true,
       .in_script = I::Always},
      {.names = "--parallel",
       .help = "trial jobs: at most this many in Slurm at once, pending and running",
       .submit_help = "trials at once: MPI runners, or trial jobs with --trial-jobs",
       .field = study_field<&F::parallel>(),
       .check = C::Positive,
       .scope = S::TrialJobsOnRun,
       .show_default = true,
       .in_script = I::Always},
      {.names = "-p,--partition",
       .help = "trial jobs: Slurm partition",
       .submit_help = "Slurm partition",
       .field = study_field<&F::partition>(),
       .scope = S::TrialJobsOnRun},
      {.names = "-A,--account",
       .help = "trial jobs: Slurm account",
       .submit_help = "Slurm account",
       .field = study_field<&F::account>(),
       .scope = S::TrialJobsOnRun},
      {.names = "--qos",
       .help = "trial jobs: Slurm QOS",
       .submit_help = "Slurm QOS",
       .field = study_field<&F::qos>(),
       .scope = S::TrialJobsOnRun},
      {.names = "--reservation",
       .help = "trial jobs: Slurm reservation",
       .submit_help = "Slurm reservation",
       .field = study_field<&F::reservation>(),
       .scope = S::TrialJobsOnRun},
  };
}

// A value's own check, by kind; the message names the flag.
void check_number(const StudyFlag& flag, long long v) {
  const std::string n = flag.long_name();
  switch (flag.check) {
    case FlagCheck::Positive:
      if (v < 1) throw std::invalid_argument(n + ": " + std::to_string(v) + " is not a positive number");
      break;
    case FlagCheck::NonNegative:
      if (v < 0) throw std::invalid_argument(n + ": " + std::to_string(v) + " is negative");
      break;
    case FlagCheck::Range:
      if (v < flag.lo || v > flag.hi)
        throw std::invalid_argument(n + ": " + std::to_string(v) + " is not in [" + std::to_string(flag.lo) +
                                    " - " + std::to_string(flag.hi) + "]");
      break;
    default: break;
  }
}

void check_text(const StudyFlag& flag, const std::string& v, StudyCommand command) {
  const std::string n = flag.long_name();
  auto one_of = [&](const auto& registry) {
    if (!registry.contains(v)) throw std::invalid_argument(n + ": " + registry.unknown(v));
  };
  switch (flag.check) {
    case FlagCheck::Algorithm: one_of(samplers()); break;
    case FlagCheck::Pruner: one_of(pruners()); break;
    case FlagCheck::Duration:
      if (!v.empty()) (void)parse_duration(v, n);
      break;
    case FlagCheck::Size: (void)parse_megabytes(v, n); break;
    case FlagCheck::Setting: (void)read_setting(*flag.setting, v); break;
    case FlagCheck::ExistingFile: {
      std::error_code ec;
      if (command == StudyCommand::Submit && !v.empty() && !std::filesystem::is_regular_file(v, ec))
        throw std::invalid_argument(n + ": no such file: " + v);
      break;
    }
    default: break;
  }
}

// Calls `use` with a flag's value in `f`, read only (the list's fields take a
// StudyFlags& because the command line writes through them).
template <class Use>
auto with_value(const StudyFlag& flag, const StudyFlags& f, Use use) {
  return std::visit([&](auto get) { return use(std::as_const(get(const_cast<StudyFlags&>(f)))); },
                    flag.field);
}

// Whether a flag's value differs from a fresh StudyFlags'.
bool changed(const StudyFlag& flag, const StudyFlags& f) {
  static StudyFlags defaults;
  return std::visit([&](auto get) { return get(const_cast<StudyFlags&>(f)) != get(defaults); }, flag.field);
}

}  // namespace

std::map<std::string, std::string> policy_setting_defaults() {
  std::map<std::string, std::string> out;
  auto add = [&](const auto& registry) {
    for (const auto& entry : registry.entries())
      for (const SettingSpec& spec : entry.settings) out.emplace(spec.key, setting_text(spec.fallback));
  };
  add(samplers());
  add(pruners());
  return out;
}

Settings policy_settings(const StudyFlags& f) {
  Settings out;
  for (const StudyFlag& flag : study_flags())
    if (flag.setting)
      if (const auto it = f.settings.find(flag.setting->key); it != f.settings.end() && !it->second.empty())
        out.set(flag.setting->key, read_setting(*flag.setting, it->second));
  return out;
}

PrunerOptions pruner_options(const StudyFlags& f) {
  PrunerOptions o = f.prune;
  o.settings = policy_settings(f);
  return o;
}

std::optional<ConvergenceRule> convergence_rule(const StudyFlags& f) {
  if (f.converged.empty()) {
    if (f.converged_chance != StudyFlags{}.converged_chance)
      throw std::invalid_argument("--converged-chance is for --converged: give --converged MARGIN too");
    return std::nullopt;
  }
  ConvergenceRule rule{parse_number(f.converged, "--converged"),
                       parse_number(f.converged_chance, "--converged-chance")};
  check_convergence_rule(rule);
  return rule;
}

std::string StudyFlag::long_name() const {
  std::string all = names;
  std::size_t at = 0;
  while (at < all.size()) {
    const std::size_t end = std::min(all.find(',', at), all.size());
    const std::string one = all.substr(at, end - at);
    if (one.rfind("--", 0) == 0) return one;
    at = end + 1;
  }
  return all;
}

const std::vector<StudyFlag>& study_flags() {
  static const std::vector<StudyFlag> flags = make_study_flags();
  return flags;
}

void check_study_flags(const StudyFlags& f, StudyCommand command) {
  if (!f.program.empty() && !f.command.empty())
    throw std::invalid_argument("give the program either after -- or with --program, not both");
  for (const StudyFlag& flag : study_flags()) {
    const bool is_changed = changed(flag, f);
    if (command == StudyCommand::Submit && flag.required_on_submit && !is_changed)
      throw std::invalid_argument(flag.long_name() + " is required");
    if (flag.needs_trial_jobs(command) && is_changed && !f.trial_jobs)
      throw std::invalid_argument(flag.long_name() + " is for trial jobs: give --trial-jobs too");
    with_value(flag, f, [&](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::string>)
        check_text(flag, v, command);
      else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>)
        check_number(flag, v);
      else if constexpr (std::is_same_v<T, std::optional<std::uint64_t>>) {
        if (v) check_number(flag, static_cast<long long>(*v));
      }
    });
  }
  if (f.prune.rule != "none" && samplers().contains(f.algo))
    if (const std::string& why = samplers().at(f.algo).pruner_refusal; !why.empty())
      throw std::invalid_argument(why);
  (void)convergence_rule(f);
}

std::string study_run_arguments(const StudyFlags& f, std::string (*quote)(const std::string&)) {
  std::string study, trial_jobs;
  for (const StudyFlag& flag : study_flags()) {
    if (flag.in_script == InScript::Never) continue;
    if (flag.applies && !flag.applies(f)) continue;
    if (flag.in_script == InScript::IfChanged && !changed(flag, f)) continue;
    const bool of_trial_jobs = flag.scope != FlagScope::Study;
    if (of_trial_jobs && !f.trial_jobs) continue;
    // The value as it follows the flag's name: none for a switch, absent if unset.
    const std::optional<std::string> word =
        with_value(flag, f, [&](const auto& v) -> std::optional<std::string> {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>)
            // A setting is a number, checked: written as one, as the other numbers are.
            return " " + (flag.setting ? setting_text(read_setting(*flag.setting, v)) : quote(v));
          else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>)
            return " " + std::to_string(v);
          else if constexpr (std::is_same_v<T, std::optional<std::uint64_t>>)
            return v ? std::optional<std::string>(" " + std::to_string(*v)) : std::nullopt;
          else if constexpr (std::is_same_v<T, bool>)
            return v ? std::optional<std::string>("") : std::nullopt;
          else
            return std::nullopt;  // the program's words: after -- in the script
        });
    if (word) (of_trial_jobs ? trial_jobs : study) += " " + flag.long_name() + *word;
  }
  return trial_jobs.empty() ? study : study + " \\\n " + trial_jobs;
}

}  // namespace tune
