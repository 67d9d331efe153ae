// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Tuning studies a simulation replays from `tune` HDF5 histories: each
// trial's run time and outcome in the order the study handed them out, so
// that sched/tune's Algorithm 1 sees the study's real convergence curve.
// How a study meets the cluster (trial jobs, or one allocation that yields
// and requeues) is the simulator's; what a study is, is here. No Slurm here.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "estimators/convergence.hpp"
#include "estimators/progress_record.hpp"
#include "history/history.hpp"
#include "history/trial.hpp"

namespace tune::sim {

struct StudyTrial {
  double duration = 0;  // seconds, as recorded (times the spec's time-scale)
  TrialState state = TrialState::Ok;
  std::optional<double> objective;
};

struct SimStudy {
  std::string name;    // the history's study name
  std::string source;  // the history file
  std::string account, user;
  bool minimize = true;
  std::optional<double> target;  // the study stops once its best meets it
  // tune run --converged: the study ends once the trials its budget has left
  // are unlikely to beat its best by the margin (lib/estimators/convergence).
  std::optional<ConvergenceRule> converged;
  double submit = 0;               // seconds from the workload's start
  int parallel = 1;                // trial jobs at once, or runner slots of one allocation
  int trials_per_job = 1;          // trials one trial job runs back to back (tune run --trials-per-job)
  int cpus = 1, gpus = 0;          // per trial
  double mem_mb = 0;               // per trial (0: none asked, as a trace job without one)
  double trial_time_limit = 0;     // per trial job; 0: set by apply_time_limits()
  double time_limit = 0;           // its whole allocation's; 0: set by apply_time_limits()
  double appcore_time_limit = 0;   // its AppCore's; 0: set by apply_time_limits()
  std::vector<StudyTrial> trials;  // in the order the study handed them out
};

// A study from a history and a spec "PATH[,key=value...]"; keys: target,
// account (default: the study's name), user, submit (seconds, or a Slurm
// duration), parallel (default: the most trials the history ran at once),
// trials-per-job (default 1), cpus, gpus, mem (MB per trial), trial-time-limit and time-limit (Slurm
// durations), time-scale (multiplies every trial's duration), converged (a margin, as
// --converged) and converged-chance (as --converged-chance). Throws WorkloadError naming
// the spec, the key and the fix.
SimStudy read_study(const std::string& spec);
// The same from an already-read history; `source` names it in messages.
SimStudy study_from_history(const HistorySnapshot& h, const std::string& source);
// Applies one "key=value" of a spec.
void apply_study_setting(SimStudy& s, const std::string& key, const std::string& value,
                         const std::string& spec);
// Refuses settings that only make sense together (converged-chance without
// converged) or out of range, naming the spec.
void check_study_settings(const SimStudy& s, const std::string& spec);

// Whether `best` meets the study's target.
bool meets_target(const SimStudy& s, double best);

// One study while a simulation replays it: which recorded trial comes next
// (interrupted ones first), its results so far, its best and when it met
// its target, and the progress record sched/tune reads. How its trials get
// resources is the simulator's.
class StudyReplay {
 public:
  StudyReplay(const SimStudy& s, std::string key) : s_(&s), key_(std::move(key)) {}

  // The next trial to hand out; nullopt when every one has been.
  std::optional<std::size_t> next_trial();
  // An interrupted trial: handed out again before the others.
  void hand_back(std::size_t t) { again_.push_back(t); }
  bool handed_all() const { return again_.empty() && next_ >= s_->trials.size(); }
  std::uint64_t remaining() const { return again_.size() + (s_->trials.size() - next_); }
  // Whether trial t has been handed out and not handed back.
  bool started(std::size_t t) const;

  // Trial t's result arrives at `now` (cut at its time limit: a timeout).
  // Returns true once the study has ended itself: met its target, or
  // converged (with SimStudy::converged), as Study::on_result judges it.
  bool record(std::size_t t, bool timed_out, double now);
  ProgressRecord progress(StudyRole role) const;

  const std::string& key() const { return key_; }
  int results() const { return static_cast<int>(done_.size()); }
  const std::optional<double>& best() const { return best_; }
  double reached() const { return reached_; }               // -1: not yet
  double converged() const { return converged_; }           // when it ended as converged; -1: it did not
  const std::vector<Trial>& done() const { return done_; }  // results in the order they arrived

 private:
  const SimStudy* s_;
  std::string key_;
  std::size_t next_ = 0;
  std::vector<std::size_t> again_;
  std::vector<Trial> done_;  // for its progress record, as the AppCore keeps them
  std::optional<double> best_;
  double reached_ = -1;
  double converged_ = -1;
};

// Time to target of the study alone on an idle cluster: its trials handed
// out in order to `parallel` slots as they free up, from its submission,
// with no wait for resources: the limit any policy can reach. nullopt when
// its trials never meet the target (or it has none).
std::optional<double> alone_time_to_target(const SimStudy& s);

}  // namespace tune::sim
