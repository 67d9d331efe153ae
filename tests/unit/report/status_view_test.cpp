// SPDX-License-Identifier: GPL-2.0-or-later
// What tune status shows (lib/report/status_view), from a history snapshot
// and a jobs file made here: trials by state, the storage's kept trials,
// the trial jobs and the limit holding them, the best trials, or the Pareto
// front of several objectives.
#include "report/status_view.hpp"

#include <gtest/gtest.h>

#include "study/storage_wait.hpp"

namespace tune {
namespace {

Trial trial(std::uint64_t id, TrialState state, std::optional<double> objective, double x) {
  Trial t;
  t.id = id;
  t.state = state;
  t.params = {x};
  t.objective = objective;
  t.start_time = 100;
  t.end_time = 112.5;
  t.host = "n" + std::to_string(id);
  return t;
}

HistorySnapshot snapshot() {
  HistorySnapshot h;
  h.study.name = "lr";
  h.study.sampler = "tpe";
  h.study.seed = 7;
  h.study.command = "python3 train.py";
  h.study.space = SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
  h.study.trials = 10;
  h.trials = {trial(0, TrialState::Ok, 0.5, 0.1), trial(1, TrialState::Ok, 0.25, 0.2),
              trial(2, TrialState::Failed, std::nullopt, 0.3),
              trial(3, TrialState::Interrupted, std::nullopt, 0.4)};
  h.trials[3].message = std::string(kKeptByStorage) + "the file system of /t is full";
  return h;
}

TEST(StatusView, TheStudyItsTrialsByStateAndItsBest) {
  const std::string t = status_text(snapshot(), 1, std::nullopt, 0);
  EXPECT_NE(t.find("study:     lr (tpe search, minimize the objective, seed 7)\n"), std::string::npos) << t;
  EXPECT_NE(t.find("trials:    4 (2 ok, 1 failed, 1 interrupted), 10 planned (--trials 10)\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("storage:   1 trial(s) kept from running (--resume runs them)"), std::string::npos) << t;
  EXPECT_NE(t.find("best:      trial 1 objective=0.25\n"), std::string::npos) << t;
  EXPECT_NE(t.find("\ntop 1:\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  1      0.25         0.2              12.5  n1\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("  0      0.5"), std::string::npos) << "only the top 1:\n" << t;
  EXPECT_EQ(t.find("trial jobs"), std::string::npos) << "no jobs file";
  EXPECT_EQ(t.find("ended:"), std::string::npos) << "still open to more trials";
}

TEST(StatusView, AStudyThatEndedItselfSaysHow) {
  HistorySnapshot h = snapshot();
  h.study.ended = "converged: the 6 trials left have a 1.2% chance of beating the best (0.25) by 0.01";
  const std::string t = status_text(h, 1, std::nullopt, 0);
  EXPECT_NE(t.find("\nended:     converged: the 6 trials left have a 1.2% chance"), std::string::npos) << t;
  EXPECT_LT(t.find("ended:"), t.find("best:")) << t;
}

// --algo pbt: the best trial's lineage, oldest first, is its parameter schedule.
TEST(StatusView, TheBestTrialsLineageShowsItsParametersStepByStep) {
  HistorySnapshot h = snapshot();
  h.study.sampler = "pbt";
  h.trials = {trial(0, TrialState::Ok, 0.5, 0.1), trial(1, TrialState::Ok, 0.4, 0.2),
              trial(2, TrialState::Ok, 0.3, 0.24), trial(3, TrialState::Ok, 0.1, 0.288)};
  for (std::uint64_t k = 0; k < 4; ++k) {
    h.trials[k].member = k < 2 ? static_cast<std::uint32_t>(k) : 0u;
    h.trials[k].last_step = k < 2 ? 4 : static_cast<std::int64_t>(4 * k);
  }
  h.trials[2].from = 1;  // member 0 took member 1's checkpoint
  h.trials[3].from = 2;
  const std::string t = status_text(h, 1, std::nullopt, 0);
  const auto at = t.find("lineage of trial 3 (its parameters as it trained):\n");
  ASSERT_NE(at, std::string::npos) << t;
  EXPECT_NE(t.find("  1-4         1      1       0.2\n", at), std::string::npos) << t;
  EXPECT_NE(t.find("  5-8         2      0       0.24\n", at), std::string::npos) << t;
  EXPECT_NE(t.find("  9-12        3      0       0.288\n", at), std::string::npos) << t;
  EXPECT_LT(t.find("0.2\n", at), t.find("0.288\n", at)) << "oldest first";
  EXPECT_EQ(status_text(snapshot(), 1, std::nullopt, 0).find("lineage"), std::string::npos)
      << "no lineage: no section";
}

TEST(StatusView, TrialJobsWithTheLimitThatHoldsThem) {
  JobsFile f;
  f.updated = 90;
  f.held = "QOSMaxJobsPerUserLimit";
  f.jobs = {{.id = 41, .pending = false, .node = "n1", .reason = "", .trial = 5},
            {.id = 42, .pending = true, .node = "", .reason = "AssocGrpGRES", .trial = std::nullopt}};
  const std::string t = status_text(snapshot(), 5, f, 100);
  EXPECT_NE(t.find("held:      by a limit: no more trial jobs are taken now (QOSMaxJobsPerUserLimit)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("held:      by a limit: trial jobs wait on AssocGrpGRES"), std::string::npos) << t;
  EXPECT_NE(t.find("trial jobs: 1 pending, 1 running (as of 10 s ago)"), std::string::npos) << t;
  EXPECT_NE(t.find("  42         PENDING  -      -                AssocGrpGRES"), std::string::npos) << t;
}

TEST(StatusView, SeveralObjectivesShowTheirFrontBestFirstByTheFirst) {
  HistorySnapshot h = snapshot();
  h.study.objectives = {{"loss", true}, {"latency", true}};
  h.trials.resize(2);
  h.trials[0].values = {0.5, 1};  // no trial beats the other in both: both on the front
  h.trials[1].values = {0.25, 3};
  const std::string t = status_text(h, 5, std::nullopt, 0);
  EXPECT_NE(t.find("minimize loss, minimize latency"), std::string::npos) << t;
  EXPECT_NE(t.find("front:     2 trial(s) no other trial beats in every objective (Pareto front)"),
            std::string::npos)
      << t;
  EXPECT_LT(t.find("\n  1 "), t.find("\n  0 ")) << "best loss first:\n" << t;
  h.trials.clear();
  EXPECT_NE(status_text(h, 5, std::nullopt, 0).find("front:     none yet"), std::string::npos);
}

}  // namespace
}  // namespace tune
