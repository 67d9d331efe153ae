// SPDX-License-Identifier: GPL-2.0-or-later
// The AppCore of `tune run` (source design: App Core): opens or resumes the
// history, builds each trial's launch, records results, posts the study's
// progress for sched/tune and ends the study. The loops that carry trials to
// runners drive it: MPI ranks (run_command.cpp) or trial jobs
// (trial_jobs_loop.cpp); its rules are lib/study's.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "command/objective_flags.hpp"
#include "estimators/progress_record.hpp"
#include "history/history.hpp"
#include "progress_post.hpp"
#include "run_command.hpp"
#include "search/sampler.hpp"
#include "study/run_control.hpp"
#include "study/study.hpp"
#include "study/warm_start.hpp"
#include "trial/trial_process.hpp"

namespace tune {

// A user error: the message names the input and the fix.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double now_s();           // wall clock, seconds since the epoch
std::string node_name();  // Slurm's node name, or the host name
std::vector<std::string> split(const std::string& s, char sep);
// Throws UsageError unless every {name} placeholder of the command names a
// parameter that every trial has (not a conditional one).
void check_placeholders(const std::vector<std::string>& command, const SearchSpace& space);

class AppCore {
 public:
  // `runners`: how many trials may run at once (for the opening line).
  AppCore(const RunOptions& o, int runners)
      : options_(o),
        runners_(runners),
        poster_([this] { return progress(options_.trial_jobs ? StudyRole::AppCore : StudyRole::Study); }) {}

  // Opens or creates the history and the study; throws UsageError/HistoryError.
  void open();

  Study& study() { return *study_; }
  const History& history() const { return *history_; }
  const std::string& key() const { return key_; }  // the study's key in progress records
  const std::string& trial_dir() const { return trial_dir_; }
  // Where trial `trial` keeps its checkpoints (TUNE_CHECKPOINT_DIR), across attempts.
  std::string checkpoint_dir_of(std::uint64_t trial) const;

  TrialLaunch launch_for(const Trial& t);  // also prints the sampler's news

  // One turn of a mode's loop (lib/study/run_control.hpp): the signals seen
  // since the last, the study's clock, its progress record. True on the one
  // turn when the mode must tell its running trials to end.
  bool turn(double now);
  // Whether running trials must end now (not merely stop being handed out).
  bool interrupt_running(double now) const { return control_->interrupt_running(now); }

  // The study's progress record as of now, with the given role.
  ProgressRecord progress(StudyRole role) const;
  // The trials changed: the progress record sched/tune reads is built and
  // posted when the interval (30 s) has passed, not per result.
  void post_progress();

  // A runner's report, the same in both modes: it reaches the study; true
  // when the pruner stops the trial (the runner gets a Prune).
  bool on_report(std::uint64_t trial, const Report& report);
  // A runner's result, its outcome attributed to the stop when the study
  // interrupted its trials (or this process was told to stop).
  TrialRun attributed(TrialRun run, bool interrupted) const;
  double grace() const { return grace_; }

  // Records a result; `where` says what ran it ("rank 2 on node1", "job 17 on node3").
  void record(const TrialRun& run, int rank, const std::string& host, const std::string& where);
  int finish();
  void say(const std::string& line) const;
  // Another writer has taken the history over (its node came back after
  // Slurm requeued its job elsewhere): who, or nothing while it is ours.
  std::optional<std::string> history_taken() const { return claim_ ? claim_->taken() : std::nullopt; }

 private:
  std::vector<std::pair<std::string, std::string>> values_of(const Assignment& a) const;
  static std::vector<std::pair<std::string, std::string>> values_of(const SearchSpace& space,
                                                                    const Assignment& a);
  // A new study from the flags, with what --warm-start imports (not yet recorded).
  StudyInfo new_study(Imported& imported) const;
  // --objective/--direction/--target read against the study (its objectives
  // when --objective is not given again).
  ObjectiveFlags objective_flags_of(const StudyInfo& s) const;
  static SamplerOptions sampler_options_of(const StudyInfo& s);
  void check_resume_flags(const StudyInfo& s) const;

  const RunOptions& options_;
  int runners_;
  std::optional<WriterClaim> claim_;  // before history_: released after it closes
  std::optional<History> history_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<Sampler> stand_in_;  // the registry's stand-in, when the sampler has none of its own
  std::optional<Study> study_;
  std::optional<RunControl> control_;
  std::vector<std::string> command_;
  std::string trial_dir_;
  double trial_limit_ = 0, grace_ = 10, drain_ = 60;
  std::string key_;
  ProgressPoster poster_;
  std::string python_dir_;
};

}  // namespace tune
