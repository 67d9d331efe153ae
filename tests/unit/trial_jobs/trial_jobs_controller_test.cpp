// SPDX-License-Identifier: GPL-2.0-or-later
// The AppCore's loop over its trial jobs (lib/trial_jobs/trial_jobs_controller), with
// Slurm, the channel and the AppCore faked and a real Study and history:
// what it submits, hands out, re-runs, retries, cancels and adopts.
#include "trial_jobs/trial_jobs_controller.hpp"

#include <gtest/gtest.h>

#include <set>

#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "tests/unit/study_fixture.hpp"

namespace tune {
namespace {

class FakeQueue : public JobQueue {
 public:
  std::uint32_t submit(const std::string& comment) override {
    if (refuse > 0) {
      --refuse;
      throw JobQueueError(refusal, cause, user_jobs);
    }
    comments.push_back(comment);
    const std::uint32_t id = next++;
    states[id] = {};
    return id;
  }
  std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids) override {
    ++lookups;
    if (down) throw JobQueueError("Unable to contact slurm controller");
    std::map<std::uint32_t, TrialJobInfo> out;
    for (auto& [id, n] : completing_for)  // an ended job shows CG for n more look-ups
      if (states.count(id)) states[id].completing = states[id].state == TrialJobInfo::State::Ended && n-- > 0;
    for (auto id : ids) {
      const auto it = states.find(id);
      if (it == states.end())
        out[id].state = TrialJobInfo::State::Ended;  // Vanished
      else
        out[id] = it->second;
    }
    return out;
  }
  bool cancel(std::uint32_t id) override {
    cancelled.insert(id);
    auto& s = states[id];
    s.state = TrialJobInfo::State::Ended;
    s.end = JobEnd::Cancelled;
    return true;
  }
  void end(std::uint32_t id, JobEnd how) {
    states[id].state = TrialJobInfo::State::Ended;
    states[id].end = how;
  }
  int refuse = 0, lookups = 0;
  std::string refusal = "Invalid partition name specified";
  RefusalCause cause = RefusalCause::Unknown;
  int user_jobs = -1;
  bool down = false;
  std::uint32_t next = 100;
  std::vector<std::string> comments;
  std::map<std::uint32_t, TrialJobInfo> states;
  std::set<std::uint32_t> cancelled;
  std::map<std::uint32_t, int> completing_for;
};

class FakeLinks : public JobLinks {
 public:
  void launch(Conn c, const Trial& t) override { launched[c].push_back(t.id); }
  void stop(Conn c) override { stopped.insert(c); }
  void interrupt(Conn c, std::uint64_t trial) override { interrupted[c] = trial; }
  void prune(Conn c, std::uint64_t trial) override { pruned[c] = trial; }
  void close(Conn c) override { closed.insert(c); }
  void pump(double) override {}
  std::map<Conn, std::vector<std::uint64_t>> launched;
  std::map<Conn, std::uint64_t> interrupted, pruned;
  std::set<Conn> stopped, closed;
};

class FakeHost : public LoopHost {
 public:
  explicit FakeHost(Study& s) : study_(s), live_(s) {}
  LoopStudy& study() override { return live_; }
  double now() const override { return clock; }
  void record(const TrialRun& run, const std::string& host, const std::string& where) override {
    study_.on_result(run, 0, host);
    recorded.push_back(where);
  }
  void say(const std::string& line) override { said.push_back(line); }
  bool interrupt_running(double) const override { return interrupt; }
  std::string trial_comment() override {
    return "tune:study=s;n=" + std::to_string(study_.count(TrialState::Ok));
  }
  bool said_with(const std::string& part) const {
    for (const auto& l : said)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
  double clock = 1000;
  bool interrupt = false;
  std::vector<std::string> said, recorded;

 private:
  Study& study_;
  LiveStudy live_;
};

class TrialJobsLoopTest : public testing_support::OneParameterStudy {
 protected:
  void SetUp() override {
    OneParameterStudy::SetUp();
    history_.emplace(History::create(file("h.h5"), info_));
    sampler_ = make_sampler("random", info_.space, {.seed = 1});
  }
  void make_study(std::uint64_t trials) {
    study_.emplace(*history_, *sampler_, StudyLimits{.trials = trials}, 1000);
    host_.emplace(*study_);
  }
  // The loop's first job (100, connection 1) says hello and asks: its trial.
  std::uint64_t first_trial_running(TrialJobsController& loop) {
    loop.tick();
    loop.on_hello(1, 100, "n1", "p", std::nullopt);
    loop.on_ready(1);
    return links_.launched[1].at(0);
  }
  std::optional<History> history_;
  std::unique_ptr<Sampler> sampler_;
  std::optional<Study> study_;
  std::optional<FakeHost> host_;
  FakeQueue queue_;
  FakeLinks links_;
};

TEST(TrialJobLimit, TrialsBackToBackPlusAMinute) {
  EXPECT_EQ(trial_job_time_limit(0, 4), 0);  // the partition's
  EXPECT_EQ(trial_job_time_limit(300, 1), 360);
  EXPECT_EQ(trial_job_time_limit(300, 4), 1260);
}

TEST_F(TrialJobsLoopTest, KeepsParallelJobsHandsTrialsWhenAskedAndRecordsResults) {
  make_study(3);
  TrialJobsController loop(*host_, queue_, links_, /*parallel=*/2, /*trials_per_job=*/1);
  loop.tick();
  ASSERT_EQ(queue_.comments.size(), 2u);  // two at once, not three
  EXPECT_EQ(queue_.comments[0], "tune:study=s;n=0");
  loop.on_hello(1, 100, "node1", "10.0.0.1:5", std::nullopt);
  loop.on_ready(1);
  ASSERT_EQ(links_.launched[1].size(), 1u);  // late binding: the trial when the job asks
  const auto t0 = links_.launched[1][0];
  loop.on_report(1, t0 + 7, Report{});  // another trial's report: stale, ignored
  loop.on_result(1, ok(t0, 0.5, 1000));
  ASSERT_EQ(host_->recorded.size(), 1u);
  EXPECT_EQ(host_->recorded[0], "job 100 on node1");
  loop.on_ready(1);  // one trial per job: told to stop
  EXPECT_TRUE(links_.stopped.count(1));
  loop.on_closed(1);  // it exits: its slot goes to a new job at once
  loop.tick();
  EXPECT_EQ(queue_.comments.size(), 3u);
  EXPECT_EQ(queue_.comments[2], "tune:study=s;n=1");
  EXPECT_FALSE(loop.done());
}

// As MPI mode's ranks: a job never waits behind another job's costly
// proposal, and the loop goes on serving while the model works.
TEST_F(TrialJobsLoopTest, AJobAsksWithoutBlockingTheLoopWhileTheModelProposes) {
  testing_support::GatedSampler model;
  auto stand_in = make_sampler("random", info_.space, {.seed = 3});
  study_.emplace(*history_, model, StudyLimits{.trials = 4}, 1000, stand_in.get());
  host_.emplace(*study_);
  TrialJobsController loop(*host_, queue_, links_, /*parallel=*/3, /*trials_per_job=*/2);
  loop.tick();
  ASSERT_EQ(queue_.comments.size(), 2u) << "4 trials, 2 a job";
  loop.on_hello(1, 100, "node1", "10.0.0.1:5", std::nullopt);
  loop.on_hello(2, 101, "node2", "10.0.0.2:5", std::nullopt);
  loop.on_ready(1);  // trial 0: cheap, at once
  ASSERT_EQ(links_.launched[1].size(), 1u);
  loop.on_ready(2);  // the model's costly proposal: job 101 waits, the loop does not
  EXPECT_TRUE(links_.launched[2].empty());
  EXPECT_TRUE(study_->proposing());
  loop.on_ready(2);  // asking again while waiting changes nothing
  loop.on_result(1, ok(links_.launched[1][0], 0.5, 1000));
  loop.on_ready(1);  // job 100's second trial comes from the stand-in, now
  ASSERT_EQ(links_.launched[1].size(), 2u);
  EXPECT_EQ(study_->stand_in_trials(), 1u);
  loop.tick();
  EXPECT_TRUE(links_.launched[2].empty()) << "not before the model has proposed";
  model.release();
  study_->await_proposal(60);
  loop.tick();
  ASSERT_EQ(links_.launched[2].size(), 1u) << "the model's trial goes to the job that asked";
  EXPECT_EQ(history_->trials()[links_.launched[2][0]].params, Assignment{0.25});
}

TEST_F(TrialJobsLoopTest, AModelsTrialWhoseJobLeftRunsOnAnother) {
  testing_support::GatedSampler model;
  auto stand_in = make_sampler("random", info_.space, {.seed = 3});
  study_.emplace(*history_, model, StudyLimits{.trials = 2}, 1000, stand_in.get());
  host_.emplace(*study_);
  TrialJobsController loop(*host_, queue_, links_, 2, 1);
  loop.tick();
  loop.on_hello(1, 100, "node1", "10.0.0.1:5", std::nullopt);
  loop.on_hello(2, 101, "node2", "10.0.0.2:5", std::nullopt);
  loop.on_ready(1);
  loop.on_ready(2);   // waits for the model
  loop.on_closed(2);  // and its job goes away meanwhile
  model.release();
  study_->await_proposal(60);
  loop.tick();
  const auto& trials = history_->trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[1].state, TrialState::Interrupted) << "recorded lost once, to run again";
  loop.on_result(1, ok(links_.launched[1][0], 0.5, 1000));
  loop.on_closed(1);
  loop.tick();
  loop.on_hello(3, queue_.next - 1, "node3", "10.0.0.3:5", std::nullopt);
  loop.on_ready(3);
  ASSERT_EQ(links_.launched[3].size(), 1u);
  EXPECT_EQ(links_.launched[3][0], 1u) << "the same trial, on another job";
}

TEST_F(TrialJobsLoopTest, AJobNotOfThisStudyIsClosedAndNamed) {
  make_study(2);
  TrialJobsController loop(*host_, queue_, links_, 1, 1);
  loop.tick();
  loop.on_hello(9, 4242, "nodeX", "10.9.9.9:1", std::nullopt);
  EXPECT_TRUE(links_.closed.count(9));
  EXPECT_TRUE(
      host_->said_with("closed the connection of 10.9.9.9:1: job 4242 is not a trial job of this study"));
  EXPECT_FALSE(loop.job_of(9));
}

TEST_F(TrialJobsLoopTest, TheFirstRefusalStopsTheStudyALaterOneIsRetried) {
  make_study(4);
  {
    queue_.refuse = 1;
    TrialJobsController loop(*host_, queue_, links_, 2, 1);
    loop.tick();
    EXPECT_EQ(study_->stop_reason(), StopReason::Refused);
    EXPECT_TRUE(host_->said_with("check --partition, --account"));
  }
  study_.reset();
  history_.reset();
  std::filesystem::remove(file("h.h5"));
  history_.emplace(History::create(file("h.h5"), info_));
  make_study(4);
  TrialJobsController loop(*host_, queue_, links_, 2, 1, {.retry_refused_after = 10});
  loop.tick();
  EXPECT_EQ(queue_.comments.size(), 2u);
  loop.on_hello(1, 100, "n1", "p", std::nullopt);
  loop.on_ready(1);
  loop.on_result(1, ok(links_.launched[1][0], 1, 1000));
  loop.on_ready(1);   // its one trial done: told to stop
  loop.on_closed(1);  // and gone
  queue_.refuse = 1;
  loop.tick();  // refused: Slurm's moment, not the flags
  EXPECT_FALSE(study_->stopping());
  EXPECT_TRUE(host_->said_with("trying again in 10 s"));
  const auto before = queue_.comments.size();
  host_->clock += 5;
  loop.tick();
  EXPECT_EQ(queue_.comments.size(), before);  // not yet
  host_->clock += 6;
  loop.tick();
  EXPECT_EQ(queue_.comments.size(), before + 1);
}

TEST_F(TrialJobsLoopTest, ALimitOnJobsIsWaitedForFromTheFirstSubmissionOn) {
  make_study(4);
  TrialJobsController loop(*host_, queue_, links_, 4, 1,
                           {.retry_refused_after = 10, .retry_refused_max = 40});
  queue_.refuse = 100;
  queue_.refusal = "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)";
  queue_.cause = RefusalCause::AccountingPolicy;
  queue_.user_jobs = 2;  // the user's other jobs fill the QOS's MaxSubmitJobsPerUser
  loop.tick();
  EXPECT_FALSE(study_->stopping());
  EXPECT_EQ(loop.held(), queue_.refusal);
  EXPECT_TRUE(host_->said_with("waiting for it to pass, with 0 trial job(s) in the queue"));
  // Tried again after 10, 20, 40, 40 s: fewer RPCs while the limit holds; said once.
  std::vector<double> tries;
  for (int s = 0; s < 150; ++s) {
    const int before = queue_.refuse;
    host_->clock += 1;
    loop.tick();
    if (queue_.refuse != before) tries.push_back(host_->clock);
  }
  ASSERT_GE(tries.size(), 4u);
  EXPECT_DOUBLE_EQ(tries[1] - tries[0], 20);
  EXPECT_DOUBLE_EQ(tries[2] - tries[1], 40);
  EXPECT_DOUBLE_EQ(tries[3] - tries[2], 40);
  // The limit passes: two jobs are taken, the third refused again.
  queue_.refuse = 0;
  host_->clock += 40;
  loop.tick();
  EXPECT_EQ(queue_.comments.size(), 4u);
  EXPECT_TRUE(loop.held().empty());
  EXPECT_TRUE(host_->said_with("Slurm takes trial jobs again"));
}

TEST_F(TrialJobsLoopTest, HeldByALimitTheStudysOwnJobEndingFreesAPlaceAtOnce) {
  make_study(4);
  TrialJobsController loop(*host_, queue_, links_, 3, 1, {.retry_refused_after = 60});
  queue_.cause = RefusalCause::AccountingPolicy;
  queue_.user_jobs = 2;
  loop.tick();  // 3 taken
  ASSERT_EQ(queue_.comments.size(), 3u);
  loop.on_hello(1, 100, "n1", "p", std::nullopt);
  loop.on_ready(1);
  loop.on_result(1, ok(links_.launched[1][0], 1, 1000));
  loop.on_ready(1);
  loop.on_closed(1);
  queue_.refuse = 1;
  host_->clock += 1;
  loop.tick();  // its replacement refused: a limit
  EXPECT_FALSE(loop.held().empty());
  queue_.end(101, JobEnd::Completed);  // another of the study's jobs leaves
  loop.on_hello(2, 101, "n1", "p", std::nullopt);
  loop.on_ready(2);
  loop.on_result(2, ok(links_.launched[2][0], 1, 1000));
  loop.on_ready(2);
  loop.on_closed(2);
  host_->clock += 11;
  loop.tick();  // Slurm is asked (every 10 s): job 101 has left the queue
  loop.tick();  // its place is taken at once, not 60 s later
  EXPECT_EQ(queue_.comments.size(), 4u);
}

TEST_F(TrialJobsLoopTest, ARefusalThatNoWaitingLiftsStopsTheStudyNamingTheFlag) {
  const std::vector<std::pair<RefusalCause, std::string>> cases = {
      {RefusalCause::Partition, "check --partition"},
      {RefusalCause::Account, "check --account"},
      {RefusalCause::Qos, "check --qos"},
      {RefusalCause::Size, "lower --cpus-per-trial, --mem-per-trial or --gpus-per-trial"},
      {RefusalCause::TimeLimit, "lower --trial-time-limit"},
      // The accounting-policy error with none of the user's jobs queued: a size or time limit.
      {RefusalCause::AccountingPolicy, "waiting does not lift"}};
  for (const auto& [cause, fix] : cases) {
    JobQueueError e("refused", cause, 0);
    const RefusalVerdict v = judge_refusal(e, /*submitted_before=*/true);
    EXPECT_FALSE(v.waits) << fix;
    EXPECT_NE(v.fix.find(fix), std::string::npos) << v.fix;
  }
  EXPECT_TRUE(judge_refusal(JobQueueError("x", RefusalCause::JobCount), false).limit);
  EXPECT_EQ(limit_reasons({"Resources", "QOSMaxJobsPerUserLimit", "Priority", "AssocGrpCpuLimit",
                           "QOSMaxJobsPerUserLimit"}),
            "QOSMaxJobsPerUserLimit, AssocGrpCpuLimit");
  EXPECT_EQ(limit_reasons({"Resources", "Priority", "Dependency"}), "");
  EXPECT_TRUE(judge_refusal(JobQueueError("x", RefusalCause::Unreachable), false).waits);
  EXPECT_FALSE(judge_refusal(JobQueueError("x", RefusalCause::Unreachable), false).limit);
  make_study(4);
  queue_.refuse = 1;
  queue_.cause = RefusalCause::Partition;
  TrialJobsController loop(*host_, queue_, links_, 2, 1);
  loop.tick();
  EXPECT_EQ(study_->stop_reason(), StopReason::Refused);
  EXPECT_TRUE(host_->said_with("Invalid partition name specified; check --partition (sinfo -s"));
}

TEST_F(TrialJobsLoopTest, ATrialWhoseJobTheClusterEndedRunsAgain) {
  make_study(2);
  TrialJobsController loop(*host_, queue_, links_, 1, 1, {.poll_every = 10});
  loop.tick();
  loop.on_hello(1, 100, "n1", "p", std::nullopt);
  loop.on_ready(1);
  const auto t = links_.launched[1][0];
  queue_.end(100, JobEnd::NodeFail);
  loop.on_closed(1);  // the connection goes: the loop looks at Slurm soon
  host_->clock += 1.5;
  loop.tick();
  EXPECT_TRUE(host_->said_with("trial " + std::to_string(t) + ": trial job 100 ended NODE_FAIL; run again"));
  EXPECT_FALSE(loop.jobs().count(100));
  loop.tick();  // a new job for the re-run
  ASSERT_EQ(queue_.comments.size(), 2u);
  loop.on_hello(2, 101, "n2", "p", std::nullopt);
  loop.on_ready(2);
  ASSERT_EQ(links_.launched[2].size(), 1u);
  EXPECT_EQ(links_.launched[2][0], t);  // the same trial, again
}

// A node cut off the network: Slurm ends its job (NODE_FAIL) while the job's
// connection stays open and silent. Its last words get a grace, then the
// connection is closed and the trial runs again; the cut job's late result,
// on a new connection, is not taken.
TEST_F(TrialJobsLoopTest, AJobSlurmEndedWhoseConnectionStaysSilentLosesItsTrialAfterAGrace) {
  make_study(2);
  TrialJobsController loop(*host_, queue_, links_, 1, 1, {.poll_every = 10, .last_words = 20});
  const auto t = first_trial_running(loop);
  queue_.end(100, JobEnd::NodeFail);
  host_->clock += 10;
  loop.tick();  // Slurm says ended; the connection is open: its result may be on the way
  EXPECT_TRUE(loop.jobs().count(100));
  EXPECT_TRUE(links_.closed.empty());
  ASSERT_TRUE(loop.due());
  EXPECT_DOUBLE_EQ(*loop.due(), host_->clock + 20);
  host_->clock += 19;
  loop.tick();
  EXPECT_TRUE(loop.jobs().count(100));
  host_->clock += 1;
  loop.tick();
  EXPECT_TRUE(links_.closed.count(1));
  EXPECT_TRUE(host_->said_with(
      "job 100: Slurm ended it (NODE_FAIL) 20 s ago and its connection has been silent since"));
  EXPECT_TRUE(host_->said_with("trial " + std::to_string(t) + ": trial job 100 ended NODE_FAIL; run again"));
  EXPECT_FALSE(loop.jobs().count(100));
  loop.on_result(1, ok(t, 0.5, 1000));                 // on the closed connection: nobody's
  loop.on_hello(2, 100, "n1", "p", ok(t, 0.5, 1000));  // reconnected with its result: refused
  EXPECT_TRUE(links_.closed.count(2));
  EXPECT_TRUE(host_->recorded.empty());
  loop.tick();  // the trial runs again in a new job
  ASSERT_EQ(queue_.comments.size(), 2u);
  loop.on_hello(3, 101, "n2", "p", std::nullopt);
  loop.on_ready(3);
  ASSERT_EQ(links_.launched[3].size(), 1u);
  EXPECT_EQ(links_.launched[3][0], t);
}

// Its result arriving within the grace is taken: the job ended normally and
// Slurm said so before its last frame was read.
TEST_F(TrialJobsLoopTest, AnEndedJobsResultWithinTheGraceIsTaken) {
  make_study(2);
  TrialJobsController loop(*host_, queue_, links_, 1, 1, {.poll_every = 10, .last_words = 20});
  const auto t = first_trial_running(loop);
  queue_.end(100, JobEnd::Completed);
  host_->clock += 10;
  loop.tick();
  host_->clock += 5;
  loop.on_result(1, ok(t, 0.5, 1000));
  loop.on_closed(1);
  host_->clock += 30;
  loop.tick();
  ASSERT_EQ(host_->recorded.size(), 1u);
  EXPECT_TRUE(links_.closed.empty());
  EXPECT_FALSE(host_->said_with("run again"));
}

TEST_F(TrialJobsLoopTest, SlurmDownIsSaidOnceAndRiddenOut) {
  make_study(2);
  TrialJobsController loop(*host_, queue_, links_, 1, 1, {.poll_every = 10});
  loop.tick();
  queue_.down = true;
  for (int i = 0; i < 3; ++i) host_->clock += 11, loop.tick();
  int said = 0;
  for (const auto& l : host_->said) said += l.find("Unable to contact") != std::string::npos;
  EXPECT_EQ(said, 1);
  queue_.down = false;
  host_->clock += 11;
  loop.tick();
  EXPECT_TRUE(host_->said_with("slurmctld answers again"));
  EXPECT_EQ(loop.jobs().size(), 1u);  // nothing lost meanwhile
}

TEST_F(TrialJobsLoopTest, StoppingInterruptsThenCancelsAndLeavesNoJob) {
  make_study(10);
  TrialJobsController loop(*host_, queue_, links_, 3, 1, {.cancel_after_interrupt = 30});
  loop.tick();
  ASSERT_EQ(queue_.comments.size(), 3u);
  loop.on_hello(1, 100, "n1", "p", std::nullopt);
  loop.on_ready(1);  // 100 runs a trial; 101 and 102 pend
  study_->stop(StopReason::Signal);
  host_->interrupt = true;
  loop.tick();
  EXPECT_TRUE(queue_.cancelled.count(101) && queue_.cancelled.count(102));  // pending, no trial: cancelled
  EXPECT_EQ(links_.interrupted.at(1), links_.launched[1][0]);
  EXPECT_FALSE(queue_.cancelled.count(100));
  host_->clock += 31;  // it did not end its trial in time
  loop.tick();
  EXPECT_TRUE(queue_.cancelled.count(100));
  EXPECT_EQ(study_->running(), 0u);
  loop.finish();
  EXPECT_TRUE(loop.jobs().empty());
}

// A job cancelled while pending as the study stopped may start before the
// cancel reaches it: it connects, is told to stop (it is ours, not a
// stranger's), and finish() waits until Slurm has let go of it (squeue's CG
// gone), not only until it ended.
TEST_F(TrialJobsLoopTest, AJobCancelledAsTheStudyStoppedIsToldToStopAndSeenToLeaveTheQueue) {
  make_study(10);
  TrialJobsController loop(*host_, queue_, links_, 3, 1);
  loop.tick();
  ASSERT_EQ(queue_.comments.size(), 3u);
  loop.on_hello(1, 100, "n1", "p", std::nullopt);
  loop.on_ready(1);
  loop.on_result(1, ok(links_.launched[1][0], 0.5, 1000));
  loop.on_ready(1);  // one trial per job: told to stop; it leaves
  loop.on_closed(1);
  study_->stop(StopReason::TargetReached);
  loop.tick();
  ASSERT_TRUE(queue_.cancelled.count(101) && queue_.cancelled.count(102));
  EXPECT_FALSE(loop.jobs().count(101));
  queue_.end(100, JobEnd::Completed);            // its program exited: Slurm ends it
  queue_.completing_for = {{101, 3}, {100, 1}};  // 101 started anyway: killed, and completing
  loop.on_hello(7, 101, "n2", "10.0.0.2:9", std::nullopt);
  EXPECT_TRUE(links_.stopped.count(7));
  EXPECT_FALSE(links_.closed.count(7));
  EXPECT_FALSE(host_->said_with("not a trial job of this study"));
  const int before = queue_.lookups;
  loop.finish();
  EXPECT_EQ(queue_.lookups - before, 4);  // 101 completing on three looks, gone on the fourth
  EXPECT_FALSE(host_->said_with("could not confirm"));
  EXPECT_FALSE(queue_.cancelled.count(100));
  EXPECT_TRUE(loop.jobs().empty());
}

// The study's last result arrives and its job's program exits, but
// slurmctld has not yet seen the job end when the AppCore finishes (seen on
// Slurm 24.11): finish() lets Slurm end it, so that sacct shows the job that
// ran a good trial COMPLETED, not CANCELLED. A job told to stop at the end
// likewise. One that does not end in the grace is still scancelled: no job
// is left behind.
TEST_F(TrialJobsLoopTest, JobsLeavingOnTheirOwnAreNotCancelledAtTheEnd) {
  make_study(2);
  struct SlowQueue : FakeQueue {
    std::map<std::uint32_t, int> ends_after;  // still running on this many more look-ups, then completed
    std::map<std::uint32_t, TrialJobInfo> look_up(const std::vector<std::uint32_t>& ids) override {
      for (auto& [id, n] : ends_after)
        if (n-- == 0) end(id, JobEnd::Completed);
      return FakeQueue::look_up(ids);
    }
  } slow;
  TrialJobsController loop(*host_, slow, links_, 2, 1, {.cancel_rounds = 12, .leave_rounds = 8});
  loop.tick();
  ASSERT_EQ(slow.comments.size(), 2u);
  loop.on_hello(1, 100, "n1", "p", std::nullopt);
  loop.on_hello(2, 101, "n2", "p", std::nullopt);
  loop.on_ready(1);
  loop.on_ready(2);
  loop.on_result(1, ok(links_.launched[1][0], 0.5, 1000));
  loop.on_ready(1);  // one trial per job: told to stop; its program exits
  loop.on_closed(1);
  loop.on_result(2, ok(links_.launched[2][0], 0.7, 1000));  // 101 still connected
  ASSERT_TRUE(loop.done());
  slow.ends_after = {{100, 3}, {101, 5}};
  loop.finish();
  EXPECT_TRUE(slow.cancelled.empty());
  EXPECT_TRUE(links_.stopped.count(2));
  EXPECT_EQ(slow.states[100].end, JobEnd::Completed);
  EXPECT_EQ(slow.states[101].end, JobEnd::Completed);
  EXPECT_FALSE(host_->said_with("could not confirm"));
}

TEST_F(TrialJobsLoopTest, ALeavingJobThatNeverEndsIsCancelledAfterItsGrace) {
  make_study(1);
  TrialJobsController loop(*host_, queue_, links_, 1, 1, {.cancel_rounds = 12, .leave_rounds = 3});
  loop.tick();
  ASSERT_EQ(queue_.comments.size(), 1u);
  loop.on_hello(1, 100, "n1", "p", std::nullopt);
  loop.on_ready(1);
  loop.on_result(1, ok(links_.launched[1][0], 0.2, 1000));
  loop.on_ready(1);
  loop.on_closed(1);  // its program exited, yet Slurm never ends the job
  const int before = queue_.lookups;
  loop.finish();
  EXPECT_TRUE(queue_.cancelled.count(100));
  EXPECT_EQ(queue_.lookups - before,
            5);  // three rounds of grace, the cancel on the fourth, gone on the fifth
  EXPECT_FALSE(host_->said_with("could not confirm"));
}

TEST_F(TrialJobsLoopTest, AJobThatStaysCompletingIsNamedAtTheEnd) {
  make_study(2);
  TrialJobsController loop(*host_, queue_, links_, 2, 1, {.cancel_rounds = 3});
  loop.tick();
  study_->stop(StopReason::Signal);
  loop.tick();  // both pending: cancelled
  queue_.completing_for = {{101, 100}};
  loop.finish();
  EXPECT_TRUE(host_->said_with("could not confirm that these trial jobs ended: 101 "));
}

TEST_F(TrialJobsLoopTest, FinishGivesUpAfterItsRoundsAndNamesTheJobs) {
  make_study(2);
  struct StubbornQueue : FakeQueue {
    bool cancel(std::uint32_t id) override {
      cancelled.insert(id);
      return false;
    }  // never ends
  } stubborn;
  TrialJobsController loop(*host_, stubborn, links_, 2, 1, {.cancel_rounds = 3});
  loop.tick();
  study_->stop(StopReason::Signal);
  loop.finish();
  EXPECT_TRUE(host_->said_with("could not confirm that these trial jobs ended: 100 101"));
}

TEST_F(TrialJobsLoopTest, AdoptsTheJobsSlurmStillRunsAndRerunsTheRest) {
  make_study(4);
  const auto a = study_->next_trial(0, "n1", 1000);
  const auto b = study_->next_trial(0, "n2", 1000);
  ASSERT_TRUE(a && b);
  // A new AppCore over the same history: its trials a, b are open.
  study_.reset();
  history_.reset();
  history_.emplace(History::resume(file("h.h5"), std::nullopt));
  make_study(4);
  queue_.states[7] = {TrialJobInfo::State::Running, JobEnd::Vanished, "", "n1"};  // still runs a
  // job 8 (trial b) is gone
  TrialJobsController loop(*host_, queue_, links_, 2, 1);
  loop.adopt({{7, a->id}, {8, b->id}});
  EXPECT_TRUE(host_->said_with("adopted 1 trial job(s)"));
  ASSERT_TRUE(loop.jobs().count(7));
  EXPECT_EQ(loop.jobs().at(7).trial, a->id);
  loop.on_hello(1, 7, "n1", "p", ok(a->id, 0.25, 1000));  // it delivers on reconnecting
  EXPECT_EQ(host_->recorded.size(), 1u);
}

}  // namespace
}  // namespace tune
