// SPDX-License-Identifier: GPL-2.0-or-later
// The simulated slurmctld of tune simulate (simulator.hpp's simulate()),
// declared here so that its parts live in files by concept: simulator.cpp
// (Slurm's main scheduler and backfill, node bookkeeping, the run loop,
// samples, what the priority policy sees: ordering.cpp runs the policy) and
// study_replay.cpp (tuning studies meeting the cluster: AppCores, trial jobs,
// whole allocations that yield). Private to lib/simulation.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "estimators/progress_record.hpp"
#include "estimators/study_progress.hpp"
#include "priority/sched_tune_policy.hpp"
#include "priority/site_factor_policy.hpp"
#include "simulation/ordering.hpp"
#include "simulation/simulator.hpp"
#include "trial_jobs/trial_jobs_controller.hpp"

namespace tune::sim::detail {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct Run {
  Placement placement;
  std::multimap<double, int>::iterator expected;  // in by_expected_end_
  double charged_until = 0;                       // classic fair share
};

struct Reservation {
  std::vector<int> nodes;
  double from, to;
};

class Sim;

// A study's AppCore in trials mode, as in tune run --trial-jobs: lib/study's
// TrialJobsController decides; the study is its replay (the AppCore's side,
// ReplayHost) and the simulated slurmctld and the jobs' connections are the
// cluster's side (SimTrialJobs). A trial job's connection is its job index,
// its Slurm id the index + 1.
class ReplayHost final : public LoopHost, public LoopStudy {
 public:
  ReplayHost(Sim& sim, int s) : sim_(sim), s_(s) {}
  // The AppCore.
  LoopStudy& study() override { return *this; }
  double now() const override;
  void record(const TrialRun& run, const std::string& host, const std::string& where) override;
  void say(const std::string&) override {}
  bool interrupt_running(double) const override { return reason_ != StopReason::None; }
  std::string trial_comment() override;
  // Its study.
  bool stopping() const override;
  bool finished() const override { return stopping() && running_ == 0; }
  std::optional<std::uint64_t> remaining() const override;
  void stop(StopReason why) override { reason_ = why; }
  Offer offer_trial(const std::string& node, double now) override { return {next_trial(node, now)}; }
  bool on_report(std::uint64_t, const Report&, double) override { return false; }  // replays carry no reports
  void on_lost(std::uint64_t trial, TrialState state, const std::string& message, double now) override;
  bool adopt(std::uint64_t) override { return false; }  // a simulated AppCore is never restarted

 private:
  Sim& sim_;
  int s_;
  StopReason reason_ = StopReason::None;  // target met or refused: every trial replayed is implicit
  int running_ = 0;                       // trials handed out, result not yet in

  // A replay's next trial is known: it is always handed out at once.
  std::optional<Trial> next_trial(const std::string& node, double now);
};

class SimTrialJobs final : public JobQueue, public JobLinks {
 public:
  SimTrialJobs(Sim& sim, int s) : sim_(sim), s_(s) {}
  // slurmctld.
  std::uint32_t submit(const std::string& comment) override;
  std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids) override;
  bool cancel(std::uint32_t id) override;
  // The jobs' connections: a trial's end is an event of the simulation.
  void launch(Conn c, const Trial& t) override;
  void stop(Conn c) override;
  void interrupt(Conn c, std::uint64_t trial) override;
  void prune(Conn, std::uint64_t) override {}  // replays carry no reports, so nothing is pruned
  void close(Conn) override {}                 // only a stranger's connection is closed
  void pump(double) override {}                // events arrive through the simulation's loop

 private:
  Sim& sim_;
  int s_;
};

struct ReplayAppCore {
  ReplayAppCore(Sim& sim, int s, int parallel, int trials_per_job)
      : host(sim, s), jobs(sim, s), controller(host, jobs, jobs, parallel, trials_per_job) {}
  ReplayHost host;
  SimTrialJobs jobs;
  TrialJobsController controller;
};

// A replayed study while the simulation runs.
// Its jobs; which trial comes next and what the results say is its StudyReplay's.
struct StudyRun {
  StudyRun(StudyReplay r, std::uint32_t u) : replay(std::move(r)), uid(u) {}
  StudyReplay replay;
  std::uint32_t uid = 0;
  int appcore = -1, whole = -1;         // its running or pending AppCore / allocation job
  std::unique_ptr<ReplayAppCore> core;  // trials mode: from its AppCore's start
  std::set<int> trial_jobs;             // live trial jobs (pending or running)
  bool stopped = false;                 // its AppCore done, or its allocation's trials all replayed
  bool draining = false;                // a whole allocation yielding
  double drain_until = 0;
  std::vector<std::pair<double, std::size_t>> slots;  // a whole allocation's running trials: end, trial
};

// A trial job's trial: which, and when it ends (at its time limit, or now if interrupted).
struct BoundTrial {
  std::size_t trial = 0;
  double start = 0, end = 0;
  bool timed_out = false, interrupted = false;
};

class Sim : public OrderingHost {
  friend class ReplayHost;
  friend class SimTrialJobs;

 public:
  Sim(const Cluster& c, const Workload& w, const SimOptions& o);

  SimResult run();

 private:
  struct Key {
    double prio, submit;
    int idx;
    bool operator<(const Key& o) const {
      if (prio != o.prio) return prio > o.prio;
      if (submit != o.submit) return submit < o.submit;
      return idx < o.idx;
    }
  };
  Key key(int j) const { return {prio_[j], job(j).submit, j}; }

  // --- node bookkeeping: free-GPU histogram for quick "cannot fit" answers ---
  void hist_add(int i);
  void hist_remove(int i);
  void take(int j, const Placement& p);
  void give_back(const Placement& p);

  // A necessary condition for the job to fit now; the policy decides.
  bool may_fit(int j) const;

  std::optional<Placement> place(int j);

  // --- jobs ----------------------------------------------------------------
  bool ever_fits(int j) { return ever_fits(shapes_[j]); }
  bool ever_fits(const JobShape& s);

  bool submit(int j);

  void start(int j, const Placement& p, bool backfilled);

  void finish(int j);

  static int gpus_of(const Placement& p);
  static int cpus_of(const Placement& p);

  // --- studies ------------------------------------------------------------------
  int add_job(SimJob sj);

  SimJob study_job(int s, SimJob::Kind kind) const;

  void submit_study(int s);

  // One trial's result reaches the study. Returns true when it met its target.
  bool record_result(int s, std::size_t t, bool timed_out);

  // Ends a running job now (`by_study`: its study stopped it, or it yields;
  // else it exits as a trial job does after its last trial).
  void end_now(int j, bool by_study = true);

  void cancel_pending(int j);

  // Target met, every trial replayed, or its AppCore gone: no job of it is left.
  void stop_study(int s);

  // Trials mode: a study's AppCore takes a turn (TrialJobsController::tick)
  // and ends once its loop is done; its next turn without an event is
  // scheduled when the loop asks.
  void drive(int s);
  // A trial job started: it connects and asks for a trial.
  void trial_job_started(int j);
  // A trial job's trial ended (its result goes to the AppCore).
  void trial_ended(int j);

  // A whole allocation: hand trials to free slots.
  void fill_slots(int s);

  // A whole study (re)enters the queue with the trials it has left.
  void requeue(int s);

  // sched/tune asked a running job to yield: only a whole study obeys.
  void yield(int j) override;

  void study_event(int s);

  void study_job_ended(int j);

  // Each study's lowerings judged against its results: a lowering at n
  // results was false when the study's best of its results n+1..n+10 (in
  // the order they arrived) beat its best of the first n by more than the
  // first threshold, relative to |best|; and when its best last improved.
  void judge_lowerings(std::vector<StudyResult>& out) const;

  // --- priorities: what the ordering policy (ordering.hpp) sees ---------------
  bool adaptive() const { return spec_.lowering == Lowering::Tune; }
  double now() const override { return now_; }
  const SimJob& job(int j) const override { return j < n_trace_ ? w_.jobs[j] : extra_[j - n_trace_]; }
  std::uint32_t uid_of(int j) const override;
  // Whether study s never meets its target and, for the evidence oracles,
  // its results so far hold its final best twice.
  bool plateau_shows(int s, OracleSight sight) const override;
  void for_each_running(const std::function<void(int, int, int, double&)>& f) override;
  // A job's Comment as the plugins read it: a trial job's record from its
  // submission, an AppCore's or whole study's newest.
  std::string comment_of(int j) const override;

  // Pending then running jobs as the plugins copy them out of slurmctld.
  std::vector<JobView> views_of(const std::vector<int>& pending) const override;

  void record_levels(const std::map<std::string, StudyState>& levels,
                     const std::vector<LevelChange>& changes) override;

  void reprioritise();

  // --- the priority trace (priority_trace.cpp) -----------------------------
  // The pending jobs in the order a pass looks at them, when tracing.
  std::vector<int> trace_queue() const;
  // A pass ("main", "backfill") went through `queue`: write its rows if it
  // started a job.
  void trace_pass(const char* pass, const std::vector<int>& queue);

  // --- the main scheduler ---------------------------------------------------
  void main_pass(int depth);

  // --- backfill ---------------------------------------------------------------
  double round_up(double t) const { return std::ceil(t / s_.bf_resolution) * s_.bf_resolution; }

  // The earliest time within bf_window the job can start without touching a
  // reservation, and where; running jobs end at start + time limit.
  std::optional<std::pair<double, Placement>> earliest(int j, const std::vector<Reservation>& resv);

  void backfill_pass();

  // --- samples -----------------------------------------------------------------
  Sample sample() const;

  static constexpr double kAppCoreStartup = 1;  // seconds from an AppCore's start to its first trial jobs

  Topology topo_;
  std::optional<Topology> empty_;
  std::map<std::tuple<int, int, int, int, double, double>, bool> fits_cache_;
  const Workload& w_;
  SimOptions options_;
  SchedulerSettings s_;
  std::unique_ptr<PlacementPolicy> policy_, plan_policy_;
  const OrderingSpec& spec_;            // the priority policy, by name
  std::unique_ptr<Ordering> ordering_;  // and what runs it
  std::vector<JobShape> shapes_;
  std::vector<JobResult> res_;
  std::vector<double> prio_;
  std::set<Key> pending_;
  int pending_multi_ = 0;
  std::unordered_map<int, Run> running_;
  std::multimap<double, int> by_expected_end_;
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>> ends_;
  std::vector<int> hist_, core_hist_;  // available nodes by free GPUs, by free cores
  long free_cores_ = 0;
  int max_gpn_ = 0, max_cores_ = 0;
  double busy_gpus_ = 0, busy_cpus_ = 0;
  double now_ = 0;
  long long placement_calls_ = 0;
  int never_fit_ = 0;
  // Studies: their jobs come after the workload's (extra_, indices from n_trace_).
  int n_trace_ = 0;
  std::deque<SimJob> extra_;
  std::vector<StudyRun> studies_;
  std::vector<StudyResult> study_res_;
  std::vector<std::int64_t> last_judged_;            // per study: n of the estimator's last judgement
  std::vector<int> level_now_;                       // per study: its yield level after the last pass
  std::vector<bool> plateaus_;                       // per study: its trials never meet its target
  std::vector<std::optional<double>> plateau_best_;  // per study: its final best
  std::vector<int> study_order_;                     // by submission
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>>
      study_events_;
  std::unordered_map<int, BoundTrial> bound_;  // running trial job -> its trial
  std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>>
      trial_ends_;                                      // when trial jobs' trials end
  std::unordered_set<int> cut_;                         // trial jobs whose trial the study interrupted
  std::unordered_map<int, std::string> trial_comment_;  // trial job -> its record at submission
  std::unordered_map<int, std::uint32_t>
      trace_trial_;  // trace job with a trial job's record -> its owner's uid
  bool study_submitted_ = false;
};

}  // namespace tune::sim::detail
