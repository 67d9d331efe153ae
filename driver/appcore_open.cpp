// SPDX-License-Identifier: GPL-2.0-or-later
// How the AppCore opens its study: a new one checked in full before its
// history is created, or a resumed one checked against what its history
// holds; the program found once, the placeholders checked.
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "appcore.hpp"
#include "command/study_flags.hpp"
#include "command/text_input.hpp"
#include "search/sampler_registry.hpp"
#include "study/resume_check.hpp"
#include "study/study_opening.hpp"
#include "study/warm_start.hpp"
#include "trial/placeholders.hpp"
#include "trial/trial_dir.hpp"
#include "tune_config.h"
#include "writer_owner.hpp"

namespace tune {

namespace fs = std::filesystem;

namespace {

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace
namespace {

// Where trials find tune_report.py: beside this build, or where make install put it.
std::string python_client_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& dir :
       {exe.parent_path() / ".." / "client" / "python", fs::path(TUNE_PKGDATADIR) / "python"})
    if (fs::exists(dir / "tune_report.py", ec)) return fs::canonical(dir, ec).string();
  return "";
}

// The program's path, looked up on PATH once (not by every trial), so that a
// typo fails the study at once instead of every trial.
std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) != 0)
      throw UsageError("the program " + name + " is not an executable file: " + std::strerror(errno));
    return name;
  }
  const char* path = std::getenv("PATH");
  for (const auto& dir : split(path ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  throw UsageError("the program '" + name + "' is not on PATH; give its path (./" + name + " if it is here)");
}

}  // namespace

void check_placeholders(const std::vector<std::string>& command, const SearchSpace& space) {
  for (const auto& name : placeholder_names(command)) {
    const auto i = space.index_of(name);
    if (!i)
      throw UsageError(
          "the command names {" + name +
          "}, which is not a parameter of the search space (write {{ and }} for literal braces)");
    if (!space.parameters()[*i].when.empty())
      throw UsageError("the command names {" + name + "}, but parameter '" + name + "' " +
                       space.condition_text(*i) +
                       ", so some trials would have no value for it; read TUNE_PARAM_" + name +
                       " (set only when it exists) or the trial's params.json instead");
  }
}

// Opens or creates the history and the study; throws UsageError/HistoryError.
// A new study's every check runs before its history is created, so a
// corrected command is not refused for a file that a failed one left.
void AppCore::open() {
  python_dir_ = python_client_dir();
  // One writer per history: claimed first, released however open() or the study ends.
  claim_.emplace(WriterClaim::take(options_.history, writer_claim_options()));
  if (!claim_->note().empty()) say(claim_->note());
  const bool exists = fs::exists(options_.history);
  std::optional<StudyInfo> fresh;  // a new study, before its file exists
  Imported imported;
  if (options_.resume) {
    history_.emplace(History::resume(options_.history, std::nullopt, *claim_));
    check_resume_flags(history_->study());
  } else {
    if (exists)
      throw UsageError(options_.history +
                       " already holds a study; continue it with --resume, or give another --history");
    fresh = new_study(imported);
  }
  const StudyInfo s = fresh ? *fresh : history_->study();  // a copy: a resumed history may be reopened below
  StudyLimits limits;
  const SamplerOptions sampler_options = sampler_options_of(s);
  try {
    command_ = program_words(options_, s.command);
    limits = study_limits(options_, options_.time_limit, s, objective_flags_of(s));
    const RunTimes times = run_times(options_);  // before the history exists, as every check
    trial_limit_ = times.trial_limit, grace_ = times.grace, drain_ = times.drain;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (!options_.shell) command_[0] = resolve_program(command_[0]);
  check_placeholders(command_, s.space);  // fail now, not in every trial
  trial_dir_ = trial_dir_of(options_.trial_dir, options_.history);
  const bool recovered = history_ && history_->recovered();
  const std::string recovery_warning = recovered ? history_->recovery_warning() : "";
  if (!fresh && ((options_.trials && *options_.trials != s.trials) || !s.ended.empty())) {
    // Every check passed: keep the new --trials for later resumes, and drop
    // how an earlier run ended the study (written while the file is not
    // open for SWMR writing: reopened).
    history_.reset();
    history_.emplace(History::resume(options_.history, options_.trials, *claim_, true));
  }
  if (fresh) {
    history_.emplace(History::create(options_.history, *fresh, *claim_));
    for (const auto& t : imported.trials) history_->put(t);
  }
  // The samplers keep a reference to the space: the history's, which lives as long as they do.
  const StudyInfo& kept = history_->study();
  sampler_ = make_sampler(kept.sampler, kept.space, sampler_options);
  Sampler* stand_in = wants_stand_in(runners_)
                          ? stand_in_for(*sampler_, kept.sampler, kept.space, sampler_options, stand_in_)
                          : nullptr;
  study_.emplace(*history_, *sampler_, limits, now_s(), stand_in);
  control_.emplace(*study_, drain_);
  key_ = study_key(s.name, options_.history);
  post_progress();
  const OpenedStudy opened{
      .info = history_->study(),
      .history = options_.history,
      .fresh = fresh.has_value(),
      .resumed = options_.resume,
      .recovered = recovered ? std::optional<std::string>(recovery_warning) : std::nullopt,
      .imported_skipped = imported.skipped,
      .imported_why = imported.why_skipped,
      .enqueue_flag = options_.enqueue,
      .trials_flag = options_.trials,
      .trials = limits.trials,
      .remaining = study_->remaining(),
      .trials_so_far = history_->trials().size(),
      .runners = runners_,
      .trial_jobs = options_.trial_jobs,
      .converged = study_->stop_reason() == StopReason::Converged};
  for (const std::string& line : opening_lines(opened)) say(line);
}

ObjectiveFlags AppCore::objective_flags_of(const StudyInfo& s) const {
  try {
    check_objective_source(options_.objective, options_.metric_regex);
    return parse_objective_flags(
        options_.objective.empty() ? objective_text(s.objectives) : options_.objective, options_.direction,
        options_.target);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

SamplerOptions AppCore::sampler_options_of(const StudyInfo& s) {
  SamplerOptions o{.seed = s.seed, .minimize = s.minimize, .settings = s.sampler_settings};
  if (s.multi_objective())
    for (const auto& obj : s.objectives) o.objectives_minimize.push_back(obj.minimize);
  return o;
}

StudyInfo AppCore::new_study(Imported& imported) const {
  if (options_.space_file.empty()) throw UsageError("--space FILE is required for a new study");
  std::ifstream in(options_.space_file);
  if (!in) throw UsageError("--space " + options_.space_file + ": cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  StudyInfo s;
  s.space = SearchSpace::parse(text.str(), options_.space_file);
  s.name = !options_.name.empty() ? options_.name : fs::path(options_.history).stem().string();
  s.sampler = options_.algo;
  s.seed = options_.seed.value_or(static_cast<std::uint64_t>(std::time(nullptr)) ^
                                  (static_cast<std::uint64_t>(getpid()) << 32));
  try {
    s.sampler_settings = complete(samplers().at(s.sampler).settings, policy_settings(options_));
  } catch (const std::invalid_argument& e) {  // an unknown --algo, a setting out of its range
    throw UsageError(e.what());
  }
  s.trials = options_.trials.value_or(0);
  const ObjectiveFlags flags = objective_flags_of(s);
  s.objectives = flags.objectives;
  s.minimize = flags.minimize;
  s.pruner = pruner_options(options_);
  s.pruner.minimize = s.minimize;
  try {
    s.pruner.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const auto words = options_.command.empty() ? split_command(options_.program) : options_.command;
  for (const auto& w : words) s.command += (s.command.empty() ? "" : " ") + shell_quote(w);
  if (options_.shell) s.command = "/bin/sh -c " + shell_quote(s.command);
  s.program_version = options_.program_version;
  s.created = iso_now();
  s.tune_version = PACKAGE_VERSION;
  // A bad sampler name or grid fails here, before a file exists.
  (void)make_sampler(s.sampler, s.space, sampler_options_of(s));
  try {
    if (!options_.enqueue.empty()) {
      const auto sets = read_enqueued(options_.enqueue, s.space, options_.trials);
      if (!sets.empty()) s.enqueued = enqueued_to_json(sets, s.space);
    }
    if (!options_.warm_start.empty()) {
      if (!fs::exists(options_.warm_start))
        throw UsageError("--warm-start " + options_.warm_start + ": no such file");
      imported = import_trials(read_history(options_.warm_start, false), options_.warm_start, s.space,
                               s.minimize, s.objectives);
      s.imported = imported.trials.size();
      s.imported_from = fs::absolute(options_.warm_start).string();
      if (imported.trials.empty())
        throw UsageError("--warm-start " + options_.warm_start + ": no finished trial there fits this space" +
                         (imported.skipped ? " (" + imported.why_skipped + ")" : std::string()) +
                         "; drop --warm-start, or widen the space");
    }
  } catch (const WarmStartError& e) {
    throw UsageError(e.what());
  }
  return s;
}

void AppCore::check_resume_flags(const StudyInfo& s) const {
  ResumeFlags given;
  given.history = options_.history;
  given.space_file = options_.space_file;
  given.prune = pruner_options(options_);
  given.settings = policy_settings(options_);
  given.enqueue = options_.enqueue, given.warm_start = options_.warm_start;
  given.objective = options_.objective, given.direction = options_.direction;
  given.objective_flags = objective_flags_of(s);
  try {
    check_resume(given, s);
  } catch (const ResumeMismatch& e) {
    throw UsageError(e.what());
  }
}

}  // namespace tune
