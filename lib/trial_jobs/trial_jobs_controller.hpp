// SPDX-License-Identifier: GPL-2.0-or-later
// The AppCore's loop over its trial jobs (tune run --trial-jobs), as an
// event-driven class: what to submit and when, what a job that asks, reports,
// returns a result or goes away means, when to retry a refused submission,
// when to interrupt and cancel, when to give up, and which jobs of an earlier
// AppCore to adopt. Slurm, the channel to the jobs and the AppCore around it
// are interfaces; driver/trial_jobs_loop.cpp gives it libslurm and the TCP
// channel, tests/unit/trial_jobs/trial_jobs_controller_test.cpp fakes. No Slurm, no sockets.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "study/study.hpp"
#include "trial_jobs/trial_job_rules.hpp"

namespace tune {

// The loop's timing rules, in one place.
struct TrialJobsRules {
  double retry_refused_after =
      10;  // a submission refused for the moment or by a limit is tried again after this,
  double retry_refused_max = 300;  // doubling while the refusals go on, up to this

  double cancel_after_interrupt = 30;  // a job that has not ended its interrupted trial by then is scancelled
  int cancel_rounds = 20;              // at the end: rounds of cancel-and-check before giving up on a job
  // At the end, a job that is leaving on its own (told "stop", or its
  // program exited) is left to end for this many rounds (about 0.7 s each)
  // before it is scancelled: cancelled, a job whose trial succeeded would
  // show CANCELLED in sacct.
  int leave_rounds = 8;
  double poll_every = 10;  // seconds between looks at the jobs in slurmctld (--slurm-poll)
  // A job Slurm says has ended whose connection is still open is given this
  // long for its last words (its result is on the way), then its connection
  // is closed and its trial runs again: a node cut off the network ends its
  // job in Slurm (NODE_FAIL) while TCP stays silent for many minutes.
  double last_words = 20;
};

// A trial job's time limit: its trials back to back plus a minute, so that
// tune trial-job ends a trial at its limit first; 0 (the partition's) without
// a trial time limit.
double trial_job_time_limit(double trial_time_limit, int trials_per_job);

// What Slurm's refusal of a trial job is about, as the edge reads it from
// Slurm's error code.
enum class RefusalCause {
  Unknown,
  Unreachable,       // slurmctld did not answer: passes by itself
  JobCount,          // the cluster's MaxJobCount: passes as jobs end
  AccountingPolicy,  // a QOS or association limit (submissions, jobs, size, time)
  Partition,         // no such partition, or not open to the user
  Account,
  Qos,
  Constraint,
  Reservation,
  Size,       // more CPUs, memory, GPUs or nodes than the partition or any node has
  TimeLimit,  // above the partition's limit
};

struct JobQueueError : std::runtime_error {
  explicit JobQueueError(const std::string& what, RefusalCause cause = RefusalCause::Unknown,
                         int user_jobs = -1)
      : std::runtime_error(what), cause(cause), user_jobs(user_jobs) {}
  RefusalCause cause;
  int user_jobs;  // the user's jobs in the queue when Slurm refused (-1: not known)
};

// What the loop does about a refusal: wait for it to pass (a limit, the
// moment) or stop the study, naming the flag to change.
struct RefusalVerdict {
  bool waits = false;
  bool limit = false;  // a limit holds the study (tune status says so)
  std::string fix;     // what to change, for a refusal that does not pass
};
// A limit on submissions or jobs passes when some of the user's jobs end; the
// same accounting-policy error with none of the user's jobs in the queue (the
// study's own included, which Slurm may not list a moment after they end) is
// a size or time limit that no waiting lifts. An unknown refusal stops the
// study when no trial job was ever accepted (the flags' fault) and is waited
// for after one was.
RefusalVerdict judge_refusal(const JobQueueError& e, bool submitted_before, std::size_t own_jobs = 0);

// Whether a pending job's reason (squeue's) is a QOS, association or
// partition limit on jobs or resources: QOSMaxJobsPerUserLimit,
// AssocGrpCpuLimit, QOSGrpGRES, PartitionTimeLimit...
bool limit_reason(const std::string& reason);
// The distinct limit reasons among these pending jobs' reasons, comma-joined
// ("" when none is a limit): what tune status and tune queue show as held.
std::string limit_reasons(const std::vector<std::string>& pending_reasons);

// Slurm, as the loop needs it.
class JobQuery {
 public:
  virtual ~JobQuery() = default;
  // What slurmctld knows of these jobs (one RPC); a job it no longer knows is
  // Ended/Vanished. Throws JobQueueError when slurmctld does not answer.
  virtual std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids) = 0;
  // scancel; false if Slurm refused (the job may be gone).
  virtual bool cancel(std::uint32_t id) = 0;
};
class JobQueue : public JobQuery {
 public:
  // Submits one trial job carrying `comment` (its progress record); its id.
  // Throws JobQueueError with Slurm's reason.
  virtual std::uint32_t submit(const std::string& comment) = 0;
};

// The connections to the trial jobs (one per running job), as the loop needs them.
class JobLinks {
 public:
  using Conn = std::uint64_t;
  virtual ~JobLinks() = default;
  virtual void launch(Conn c, const Trial& t) = 0;
  virtual void stop(Conn c) = 0;
  virtual void interrupt(Conn c, std::uint64_t trial) = 0;
  virtual void prune(Conn c, std::uint64_t trial) = 0;
  virtual void close(Conn c) = 0;
  // Lets the channel deliver what arrives for up to `seconds` (to the loop's on_* calls).
  virtual void pump(double seconds) = 0;
};

// The study, as the loop needs it: the AppCore's Study (LiveStudy below), or
// a recorded study that tune simulate replays (lib/simulation/study_replay.cpp).
class LoopStudy {
 public:
  virtual ~LoopStudy() = default;
  virtual bool stopping() const = 0;
  // Stopping, or nothing more to hand out, and nothing running.
  virtual bool finished() const = 0;
  // Trials still to hand out; nothing = no limit.
  virtual std::optional<std::uint64_t> remaining() const = 0;
  virtual void stop(StopReason why) = 0;
  // The next trial for a job on `node`: at once, recorded as running; or
  // later (`wait`: a costly proposal is under way on the sampler's worker,
  // and collect() hands it out), so that the loop serves its other jobs
  // meanwhile; or once the study stops holding (`held`: its storage is full,
  // or its sampler has nothing until a running trial finishes; the job idles
  // and asks again); none of these: none to hand out.
  struct Offer {
    std::optional<Trial> trial;
    bool wait = false;
    bool held = false;
  };
  virtual Offer offer_trial(const std::string& node, double now) = 0;
  // The study waits for its storage (lib/study/storage_wait.hpp): no new jobs.
  virtual bool storage_waiting() const { return false; }
  // A job that asks now is held (Offer::held): the storage, or the sampler, waits.
  virtual bool holding() const { return storage_waiting(); }
  // The proposal offer_trial() left under way has finished: its trial
  // (nothing inside: the study stopped meanwhile). Never blocks.
  virtual std::optional<std::optional<Trial>> collect(double /*now*/) { return std::nullopt; }
  // A report of a running trial; true when the pruner ends it.
  virtual bool on_report(std::uint64_t trial, const Report& r, double now) = 0;
  // A running trial whose job ended without its result (Interrupted: it runs again).
  virtual void on_lost(std::uint64_t trial, TrialState state, const std::string& message, double now) = 0;
  // A trial an earlier AppCore handed to a job that still runs it.
  virtual bool adopt(std::uint64_t trial) = 0;
};

// The AppCore's Study as the loop's.
class LiveStudy final : public LoopStudy {
 public:
  explicit LiveStudy(Study& s) : s_(s) {}
  bool stopping() const override { return s_.stopping(); }
  bool finished() const override { return s_.finished(); }
  std::optional<std::uint64_t> remaining() const override { return s_.remaining(); }
  void stop(StopReason why) override { s_.stop(why); }
  Offer offer_trial(const std::string& node, double now) override {
    auto o = s_.offer_trial(0, node, now);
    return {std::move(o.trial), o.wait, o.held};
  }
  bool storage_waiting() const override { return s_.storage_waiting(); }
  bool holding() const override { return s_.holding(); }
  std::optional<std::optional<Trial>> collect(double now) override {
    if (auto done = s_.collect(now)) return std::move(done->trial);
    return std::nullopt;
  }
  bool on_report(std::uint64_t trial, const Report& r, double now) override {
    return s_.on_report(trial, r, now);
  }
  void on_lost(std::uint64_t trial, TrialState state, const std::string& message, double now) override {
    s_.on_lost(trial, state, message, now);
  }
  bool adopt(std::uint64_t trial) override { return s_.adopt(trial); }

 private:
  Study& s_;
};

// The AppCore around the loop: its study, its history and its voice.
class LoopHost {
 public:
  virtual ~LoopHost() = default;
  virtual LoopStudy& study() = 0;
  virtual double now() const = 0;
  // Records a result; `where` says what ran it ("job 17 on node3").
  virtual void record(const TrialRun& run, const std::string& host, const std::string& where) = 0;
  virtual void say(const std::string& line) = 0;
  // Whether running trials must end now (not merely stop being handed out).
  virtual bool interrupt_running(double now) const = 0;
  // The progress record a new trial job carries in its Comment.
  virtual std::string trial_comment() = 0;
};

// One trial job as the loop sees it.
struct LiveJob {
  std::uint32_t id = 0;
  TrialJobInfo::State state = TrialJobInfo::State::Pending;
  std::optional<JobLinks::Conn> conn;
  std::optional<std::uint64_t> trial;  // handed out, result not yet here
  int given = 0;                       // trials handed to it so far
  bool signalled = false;              // its trial ended by Slurm's signal: settled when the job has ended
  double submitted = 0, bound = 0;     // when it was submitted, when its current trial was handed to it
  bool leaving = false;                // told "stop" or said "bye": it exits once its connection closes
  double ended = 0;                    // when a look-up first found it ended with its connection open
  std::string node, reason;
};

class TrialJobsController {
 public:
  TrialJobsController(LoopHost& host, JobQueue& queue, JobLinks& links, int parallel, int trials_per_job,
                      TrialJobsRules rules = {});

  // Jobs an earlier AppCore left (from its jobs file and its running trials'
  // job files: job -> the trial it held, if known): those Slurm still runs
  // are adopted, the rest's trials run again.
  void adopt(const std::map<std::uint32_t, std::optional<std::uint64_t>>& earlier);

  // One turn of the loop: submit or wind down, look at Slurm when due.
  void tick();
  // When tick() next has work that no event brings: a refused submission's
  // retry, or a look-up asked for soon (a job's connection closed while it
  // held a trial, or Slurm signalled it); nothing when there is none. The
  // regular look-up every poll_every comes on top for a loop that polls; a
  // loop that hears of every job's change (tune simulate) needs only these.
  std::optional<double> due() const;
  // The study is finished and no job holds a trial.
  bool done() const;
  // At the end: no job left behind (stop, cancel, check; rounds of it).
  void finish();

  // From the channel.
  // A job connected (`peer`: its address, for the message if it is not ours).
  void on_hello(JobLinks::Conn c, std::uint32_t job, const std::string& host, const std::string& peer,
                const std::optional<TrialRun>& result);
  void on_ready(JobLinks::Conn c);
  // A report of the trial the job holds (another trial's is stale). Throws
  // on nothing: the caller parses.
  void on_report(JobLinks::Conn c, std::uint64_t trial, const Report& r);
  void on_result(JobLinks::Conn c, TrialRun run);
  // A result that could not be read: the job's trial runs again.
  void on_bad_result(JobLinks::Conn c, const std::string& why);
  void on_bye(JobLinks::Conn c);
  void on_closed(JobLinks::Conn c);
  // The job a connection belongs to, if any (for the caller's messages).
  std::optional<std::uint32_t> job_of(JobLinks::Conn c) const;

  const std::map<std::uint32_t, LiveJob>& jobs() const { return jobs_; }
  // Whether the jobs changed since the last call (the caller rewrites its jobs file).
  bool take_changed();
  std::size_t submitted() const { return submitted_; }
  // The limit that keeps trial jobs from being submitted now (Slurm's words),
  // empty when none does.
  const std::string& held() const { return held_; }
  // What each job cost, measured here: Slurm's start, late binding, the result's way back.
  const std::vector<double>& slurm_start() const { return slurm_start_; }
  const std::vector<double>& binding() const { return binding_; }
  const std::vector<double>& result_back() const { return result_; }

 private:
  std::size_t busy() const;
  // When the first grace for last words runs out (a job Slurm ended whose
  // connection is still open); nothing when no job has one.
  std::optional<double> grace_ends() const;
  // The jobs to look up: those in jobs_ and those not yet seen to leave the queue.
  std::vector<std::uint32_t> ids() const;
  void submit_jobs(double now);
  void look_up(double now);
  void wind_down(double now);
  void deliver(LiveJob& j, TrialRun run);
  // Hands job j its next trial, or (none) tells it to stop.
  void hand(LiveJob& j, JobLinks::Conn c, std::optional<Trial> t);
  // A proposal under way for a job has finished: it goes to that job.
  void collect(double now);

  LoopHost& host_;
  JobQueue& queue_;
  JobLinks& links_;
  int parallel_, trials_per_job_;
  TrialJobsRules rules_;
  std::map<std::uint32_t, LiveJob> jobs_;
  // Every job submitted or adopted that Slurm has not yet been seen to let
  // go of (ended and no longer completing): jobs_ forgets a job when it ends
  // or is cancelled, and finish() must still see it leave the queue.
  std::set<std::uint32_t> unsettled_;
  // Of those, the ones jobs_ forgot while they were leaving on their own
  // (told "stop", or their program exited): Slurm ends them without a scancel.
  std::set<std::uint32_t> leaving_;
  std::map<JobLinks::Conn, std::uint32_t> conn_job_;
  std::optional<std::uint32_t> awaiting_;  // the job whose trial the sampler's worker proposes
  std::set<JobLinks::Conn> storage_held_;  // jobs idle while the study holds (LoopStudy::holding)
  std::vector<double> slurm_start_, binding_, result_;
  std::size_t submitted_ = 0;
  std::string held_;
  double retry_wait_ = 0;  // the wait before the next retry of a refused submission
  std::size_t unsettled_at_refusal_ = 0;
  double last_lookup_ = 0, submit_after_ = 0, interrupted_at_ = 0;
  bool lookup_soon_ = false, changed_ = true, submitted_any_ = false, slurm_down_ = false,
       interrupted_ = false;
};

}  // namespace tune
