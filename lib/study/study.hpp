// SPDX-License-Identifier: GPL-2.0-or-later
// The AppCore's policy (source design: App Core): hands out trials, records
// what comes back, and decides when the study ends. No MPI and no processes
// here: rank 0 of `tune run` and single-rank mode drive it alike, and so can
// the tests.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "estimators/convergence.hpp"
#include "history/history.hpp"
#include "search/pruner.hpp"
#include "search/sampler.hpp"
#include "study/outcome.hpp"
#include "study/proposal_worker.hpp"
#include "study/study_answer.hpp"

namespace tune {

struct StudyLimits {
  std::optional<std::uint64_t> trials{};  // --trials: ids 0..N-1
  std::optional<double> time_limit{};     // --time-limit, seconds of this run
  std::optional<double> target{};         // --target: stop once the best reaches it
  std::vector<double> targets{};          // several objectives: stop once one ok trial meets them all
  int max_failures = 10;                  // --max-failures: consecutive non-ok outcomes; 0 = never stop
  double storage_wait = 600;              // --storage-wait: seconds to wait for a full or failing storage
  // --converged: end once the trials left are unlikely to beat the best by
  // its margin or to reach the target (needs `trials`, one objective).
  std::optional<ConvergenceRule> converged{};
};

enum class StopReason {
  None,
  TrialsDone,      // every trial of --trials ran
  SpaceExhausted,  // the grid has no more points
  TargetReached,
  Converged,  // --converged: the trials left are unlikely to improve the best by its margin
  TimeLimit,  // --time-limit of this run
  TooManyFailures,
  Signal,   // SIGTERM/SIGUSR1: stop, and come back with --resume
  Refused,  // Slurm refused the study's trial jobs (bad partition, account, size)
  Storage,  // its storage stayed full, read-only or failing longer than --storage-wait
};
std::string_view stop_reason_name(StopReason r);
// The study is over: no --resume will run its interrupted trials again
// (unlike a signal, a time limit or failures, after which one may).
bool ended_for_good(StopReason r);

class Study {
 public:
  // Replays the history into the sampler and the study's pruner (its
  // PrunerOptions are in the history); trials left running or interrupted by
  // an earlier run are queued to run again with the same parameters.
  // `stand_in`, if given, is a cheap sampler that offer_trial() uses while
  // `sampler` is busy (it learns every result too).
  Study(History& history, Sampler& sampler, StudyLimits limits, double now, Sampler* stand_in = nullptr);
  Study(const Study&) = delete;
  Study& operator=(const Study&) = delete;

  // A trial for `rank` on `host`, recorded as running; nothing once the study
  // is stopping or has nothing left to hand out. Waits for the sampler.
  std::optional<Trial> next_trial(int rank, const std::string& host, double now);

  // The same for a loop that serves several runners and must never keep one
  // waiting behind another's proposal. When the sampler's proposal is costly
  // (Sampler::costly) and no other is under way, it is made on a worker
  // thread for this rank (`wait`: collect() hands it out); when one is under
  // way, the stand-in proposes at once. Reruns and cheap proposals come at
  // once, as from next_trial(). Neither `trial` nor `wait`: nothing more to
  // hand out. Do not mix with next_trial() in one study.
  struct Offer {
    std::optional<Trial> trial;
    bool wait = false;
    bool held = false;  // the study waits (holding()): ask again once that ends
  };
  Offer offer_trial(int rank, const std::string& host, double now);
  // The rank whose proposal the worker finished, with its trial (nothing: the
  // study stopped meanwhile, tell the rank so). Never blocks.
  struct Collected {
    int rank;
    std::optional<Trial> trial;
  };
  std::optional<Collected> collect(double now);
  // A proposal is under way on the worker; await_proposal() waits for it at
  // most `seconds` (a loop's idle wait while it polls its runners).
  bool proposing() const { return worker_.busy(); }
  void await_proposal(double seconds) const;
  // Trials the stand-in proposed because the sampler was busy.
  std::uint64_t stand_in_trials() const { return stand_in_trials_; }
  std::string_view stand_in_name() const { return stand_in_ ? stand_in_->name() : std::string_view(); }
  const StudyLimits& limits() const { return limits_; }
  // Records an intermediate report. Returns true when the pruner says the
  // trial should stop now: the caller ends it and reports the run as pruned.
  bool on_report(std::uint64_t trial, const Report& report, double now);
  // Records the outcome; returns it.
  const Trial& on_result(const TrialRun& run, int rank, const std::string& host);
  // Checkpoints: whether a finished trial's must stay because a trial yet to
  // come may start from it (Sampler::needs_checkpoint); and the kept ones
  // the sampler has since let go of, once each (the caller removes them).
  bool checkpoint_needed(std::uint64_t trial);
  std::vector<std::uint64_t> take_released_checkpoints();
  std::vector<std::uint64_t> kept_checkpoints() const {
    return {kept_checkpoints_.begin(), kept_checkpoints_.end()};
  }

  // A running trial whose runner was lost without a result (its trial job
  // ended through the cluster): Interrupted queues it to run again with the
  // same parameters, first; Failed, Timeout and the like record it as that
  // outcome, a failure of the trial. `message` says why (Slurm's reason).
  void on_lost(std::uint64_t trial, TrialState state, const std::string& message, double now);
  // A trial an earlier run left running whose runner still runs it (a trial
  // job that outlived its AppCore): it is running again, not re-run. False
  // if the trial is not one waiting to be re-run.
  bool adopt(std::uint64_t trial);
  // Trials still to hand out (re-runs and new ones); nothing = no limit.
  std::optional<std::uint64_t> remaining() const;
  // Ids of the trials running now.
  std::vector<std::uint64_t> running_ids() const;

  // The study's storage (storage_wait.hpp): a trial whose run names a
  // storage fault starts the wait, during which no trial is handed out; the
  // caller probes the storage when storage_probe_due() and says how that
  // went; a wait longer than --storage-wait stops the study (Storage).
  bool storage_waiting() const { return storage_.waiting(); }
  // A runner that asks now is held (Offer::held): the storage waits, or the
  // sampler has nothing until a running trial finishes (Sampler::waiting).
  bool holding() const;
  // A write of the study's own (its history) failed for the storage's fault:
  // the wait starts (true) or goes on.
  bool storage_fault(const StorageFault& fault, double now) { return storage_.fault(fault, now); }
  bool storage_probe_due(double now) const { return storage_.probe_due(now); }
  // The probe failed with `fault`, or wrote (nothing): returns the seconds
  // the wait lasted when it ends now, else nothing.
  std::optional<double> storage_probed(const std::optional<StorageFault>& fault, double now);
  const StorageWait& storage() const { return storage_; }

  // Stop dispatching (a signal): running trials should be ended.
  void stop(StopReason why);
  // Checks the clock against --time-limit.
  void tick(double now);

  bool stopping() const { return reason_ != StopReason::None; }
  StopReason stop_reason() const { return reason_; }
  std::string stop_message() const;
  // True when nothing runs and nothing more will be handed out.
  bool finished() const;
  std::size_t running() const { return running_.size(); }
  // The sampler's note when it changed with the last proposal (see
  // Sampler::note), once; nothing otherwise.
  std::optional<std::string> take_sampler_news();
  // The best ok trial; nothing in a multi-objective study (see front()).
  std::optional<Trial> best() const;
  // A multi-objective study's answer: the ok trials no other ok trial
  // dominates, by id (kept as results come: O(front) per result).
  std::vector<Trial> front() const;
  std::uint64_t count(TrialState s) const;
  const History& history() const { return history_; }

 private:
  Observation observation(const Trial& t) const;
  // The metric the pruner and the sampler's observe_progress() follow: the
  // pruner's --prune-metric, else the reported objective.
  const std::string& progress_metric() const;
  std::optional<double> pruning_value(const Report& report) const;
  // A step beyond the trial's step limit (Lineage::step_limit) ends it: true, its reason noted.
  bool past_step_limit(std::uint64_t trial, std::int64_t step);
  void check_stop_rules();
  // --converged, judged once per new outcome: the line that ends the study, if it has converged.
  std::optional<std::string> check_convergence();
  // Whether a new trial (not a rerun) may be handed out; counts a proposal under way.
  bool may_propose() const;
  // The sampler has nothing to propose until a running trial finishes.
  bool sampler_waits() const;
  std::vector<Assignment> pending() const;
  // Records a trial with these parameters (or the sampler's exhaustion) as running.
  // `known`: the results (counts_as_result) given to the samplers when
  // `by` made the proposal.
  std::optional<Trial> start_new(std::optional<Assignment> params, Sampler& by, std::size_t known, int rank,
                                 const std::string& host, double now);
  std::optional<Trial> start(Trial t, int rank, const std::string& host, double now);
  std::optional<Trial> start_rerun(int rank, const std::string& host,
                                   double now);  // the oldest rerun, if any
  // The next new trial's parameters: an enqueued set while any is left, then
  // `by`'s proposal (numbered from 0 after the imported and enqueued trials).
  std::optional<Assignment> propose(Sampler& by);
  bool costly_next() const;
  // A finished trial for the samplers (held back from one that is
  // proposing), with what was known when it was proposed.
  void observe(Observation o);
  // What a sampler counts as a result (Observation::known counts these).
  static bool counts_as_result(const Observation& o);

  History& history_;
  Sampler& sampler_;
  Sampler* stand_in_;
  ProposalWorker worker_;                                // the sampler's costly proposals
  std::size_t results_seen_ = 0;                         // results given to the samplers (held ones too)
  std::map<std::uint64_t, std::size_t> known_at_start_;  // running trials: results known at their proposal
  std::uint64_t stand_in_trials_ = 0;
  StudyLimits limits_;
  double started_;
  std::vector<std::uint64_t> rerun_;             // ids to run again, oldest first
  std::map<std::uint64_t, Assignment> running_;  // id -> params, for samplers' `pending`
  std::uint64_t next_id_ = 0;
  std::vector<Assignment> enqueued_;  // --enqueue sets, run as trials imported..first_proposal_-1
  std::uint64_t first_proposal_ = 0;  // imported + enqueued trials: the sampler numbers from here
  bool exhausted_ = false;
  int consecutive_failures_ = 0;
  StudyAnswer answer_;  // best, front, named objectives and targets
  std::unique_ptr<Pruner> pruner_;
  std::string sampler_note_;  // the note of the last proposal
  bool sampler_note_changed_ = false;
  std::map<std::uint64_t, std::string> prune_reason_;  // running trials the pruner stopped
  StopReason reason_ = StopReason::None;
  std::string converged_line_;  // why it converged (--converged)
  std::uint64_t outcomes_ = 0;  // final outcomes recorded by this run, so that --converged judges each once
  std::uint64_t judged_at_ = ~0ull;
  StorageWait storage_;
  std::set<std::uint64_t> kept_checkpoints_;  // finished trials whose checkpoint the sampler still needs
};

}  // namespace tune
