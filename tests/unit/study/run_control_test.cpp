// SPDX-License-Identifier: GPL-2.0-or-later
// The run-control rules both modes share (lib/study/run_control.hpp),
// driven against a real Study as the MPI ranks and the trial-jobs loop drive
// them.
#include "study/run_control.hpp"

#include <gtest/gtest.h>

#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "tests/unit/study_fixture.hpp"

namespace tune {
namespace {

class RunControlTest : public testing_support::OneParameterStudy {
 protected:
  void SetUp() override {
    OneParameterStudy::SetUp();
    history_.emplace(History::create(path(), info_));
    sampler_ = make_sampler("random", info_.space, {.seed = 1});
    study_.emplace(*history_, *sampler_, StudyLimits{.trials = 4}, 0);
  }
  std::optional<History> history_;
  std::unique_ptr<Sampler> sampler_;
  std::optional<Study> study_;
};

TEST_F(RunControlTest, NoSignalNoStopNoInterrupt) {
  RunControl c(*study_, 60);
  EXPECT_FALSE(c.turn({}, 1));
  EXPECT_FALSE(study_->stopping());
  EXPECT_FALSE(c.interrupt_running(1));
  EXPECT_FALSE(c.take_news());
}

TEST_F(RunControlTest, SigtermStopsTheStudyAndInterruptsRunningTrialsOnce) {
  RunControl c(*study_, 60);
  ASSERT_TRUE(study_->next_trial(1, "n1", 0));
  EXPECT_TRUE(c.turn({.stop = true}, 1));
  EXPECT_EQ(study_->stop_reason(), StopReason::Signal);
  EXPECT_TRUE(c.interrupt_running(1));
  EXPECT_TRUE(c.stop_requested());
  EXPECT_FALSE(c.turn({}, 2)) << "the interrupt is sent once; the flag stays seen";
  EXPECT_TRUE(c.interrupt_running(2));
  EXPECT_FALSE(study_->next_trial(1, "n1", 2)) << "no trial is handed out after a stop";
}

TEST_F(RunControlTest, Sigusr1DrainsForTheWindowThenInterrupts) {
  RunControl c(*study_, 30);
  ASSERT_TRUE(study_->next_trial(1, "n1", 0));
  EXPECT_FALSE(c.turn({.drain = true}, 100)) << "running trials may finish within the window";
  EXPECT_TRUE(study_->stopping());
  EXPECT_FALSE(c.stop_requested());
  const auto news = c.take_news();
  ASSERT_TRUE(news);
  EXPECT_EQ(*news, "SIGUSR1: no new trials; running trials may finish within 30 s");
  EXPECT_FALSE(c.take_news()) << "said once";
  EXPECT_FALSE(c.turn({.drain = true}, 129));
  EXPECT_FALSE(c.take_news()) << "a second SIGUSR1 does not restart the window";
  EXPECT_TRUE(c.turn({}, 130.5)) << "the window has passed";
  EXPECT_TRUE(c.interrupt_running(131));
}

TEST_F(RunControlTest, SigtermDuringADrainEndsItAtOnce) {
  RunControl c(*study_, 600);
  EXPECT_FALSE(c.turn({.drain = true}, 0));
  EXPECT_TRUE(c.turn({.stop = true}, 1));
}

TEST_F(RunControlTest, AStopForAnotherReasonInterruptsAtOnce) {
  // The study's own stop (here its time limit) does not wait for a drain.
  Study limited(*history_, *sampler_, StudyLimits{.trials = 4, .time_limit = 10}, 0);
  RunControl c(limited, 600);
  ASSERT_TRUE(limited.next_trial(1, "n1", 0));
  EXPECT_FALSE(c.turn({}, 5));
  EXPECT_TRUE(c.turn({}, 11));
  EXPECT_EQ(limited.stop_reason(), StopReason::TimeLimit);
}

TEST(RunEnd, ExitCodesByStopReason) {
  EXPECT_EQ(run_end(StopReason::Signal).exit_code, kExitInterrupted);
  EXPECT_NE(run_end(StopReason::Signal).message.find("--resume"), std::string::npos);
  EXPECT_EQ(run_end(StopReason::TooManyFailures).exit_code, kExitBrokenProgram);
  EXPECT_EQ(run_end(StopReason::Refused).exit_code, kExitUsage);
  for (auto r : {StopReason::TrialsDone, StopReason::SpaceExhausted, StopReason::TargetReached,
                 StopReason::TimeLimit}) {
    EXPECT_EQ(run_end(r).exit_code, kExitOk) << stop_reason_name(r);
    EXPECT_TRUE(run_end(r).message.empty());
  }
}

TEST(Checkpoints, KeptForTrialsThatRunAgain) {
  EXPECT_TRUE(drop_checkpoint_on_result(TrialState::Ok, false));
  EXPECT_TRUE(drop_checkpoint_on_result(TrialState::Failed, false));
  EXPECT_FALSE(drop_checkpoint_on_result(TrialState::Interrupted, false)) << "it runs again from them";
  EXPECT_FALSE(drop_checkpoint_on_result(TrialState::Ok, true)) << "--keep-checkpoints";
  std::vector<Trial> trials(3);
  trials[0].id = 0, trials[0].state = TrialState::Ok;
  trials[1].id = 1, trials[1].state = TrialState::Interrupted;
  trials[2].id = 2, trials[2].state = TrialState::Running;
  EXPECT_EQ(checkpoints_to_drop_at_end(trials, StopReason::TargetReached, false),
            (std::vector<std::uint64_t>{1, 2}))
      << "a study ended for good runs none of them again";
  EXPECT_TRUE(checkpoints_to_drop_at_end(trials, StopReason::Signal, false).empty()) << "resumed later";
  EXPECT_TRUE(checkpoints_to_drop_at_end(trials, StopReason::TimeLimit, false).empty());
  EXPECT_TRUE(checkpoints_to_drop_at_end(trials, StopReason::TargetReached, true).empty());
}

TEST(TrialBudget, TheFlagThenTheStudysOwn) {
  EXPECT_EQ(trial_budget(7, 20), 7u);
  EXPECT_EQ(trial_budget(std::nullopt, 20), 20u) << "a resumed study runs to its last --trials";
  EXPECT_FALSE(trial_budget(std::nullopt, 0)) << "created without --trials: no limit";
}

TEST(StandIn, OnlyWhenSeveralTrialsRunAtOnce) {
  EXPECT_FALSE(wants_stand_in(1)) << "one runner waits for its own proposal";
  EXPECT_TRUE(wants_stand_in(4));
}

// A runner with a trial, silent for 2 x grace + 30 s since the study asked
// its runners to end their trials (or since its last message), is lost.
TEST(RunnersLost, OnlyARunnerWithATrialSilentPastTheGraceAfterTheAsk) {
  const std::map<int, std::uint64_t> busy = {{1, 10}, {2, 11}, {3, 12}};
  const std::map<int, double> heard = {{1, 100}, {2, 150}, {4, 0}};  // 3: never heard; 4: idle
  EXPECT_EQ(silent_runner_patience(5), 40);
  EXPECT_TRUE(runners_lost(139, 100, 5, busy, heard).empty()) << "within 40 s of the ask";
  EXPECT_EQ(runners_lost(141, 100, 5, busy, heard), (std::vector<int>{1, 3})) << "2 spoke at 150";
  EXPECT_EQ(runners_lost(191, 100, 5, busy, heard), (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(runners_lost(1000, 100, 5, {}, heard).empty()) << "no runner with a trial";
}

}  // namespace
}  // namespace tune
