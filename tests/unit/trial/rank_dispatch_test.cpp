// SPDX-License-Identifier: GPL-2.0-or-later
// Rank 0's dispatch over its runners (trial/rank_dispatch), with a real
// Study and fake runner ranks in place of MPI: every trial handed out once
// and recorded, each runner told to stop, reports from one runner never
// holding another's request back, pruning and the stop signal passed on, and
// a runner that falls silent after the study asked it to end its trial given
// up on.
#include "trial/rank_dispatch.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <vector>

#include "search/sampler_registry.hpp"
#include "study/run_control.hpp"
#include "tests/unit/study_fixture.hpp"
#include "trial/trial_json.hpp"

namespace tune {
namespace {

// Runner ranks as scripted replies: a rank answers a Launch with its result
// (objective = the trial's x) and its next Ready, unless it is silent.
class FakeRanks final : public RankLinks {
 public:
  explicit FakeRanks(double& clock) : clock_(clock) {}
  void send(int rank, const wire::Message& m) override {
    sent.emplace_back(rank, m.kind);
    if (m.kind == wire::Kind::Launch && !silent.count(rank)) {
      TrialRun run;
      run.trial = m.body.at("launch").at("trial").get<std::uint64_t>();
      run.exited = true;
      run.exit_code = 0;
      run.objective = launched_x(m);
      run.start_time = clock_, run.end_time = clock_ + 1;
      for (int i = 0; i < reports_per_trial; ++i)
        inbox[rank].push_back(wire::report_message(
            run.trial, Report{.step = i, .metrics = {{"loss", 1.0 * i}}, .objective = std::nullopt}));
      inbox[rank].push_back(wire::result_message(run, nlohmann::json{{"host", "n" + std::to_string(rank)}}));
    }
  }
  std::optional<wire::Message> poll(int rank) override {
    auto& q = inbox[rank];
    if (q.empty()) return std::nullopt;
    wire::Message m = q.front();
    q.pop_front();
    return m;
  }
  void idle() override { clock_ += 1; }  // nothing came: a second passes

  static double launched_x(const wire::Message& launch) {
    const TrialLaunch l = wire::launch_from_json(launch.body.at("launch"));
    return nlohmann::json::parse(l.params_json).at("x").get<double>();
  }
  std::size_t count(int rank, wire::Kind kind) const {
    std::size_t n = 0;
    for (const auto& [r, k] : sent) n += r == rank && k == kind;
    return n;
  }

  std::map<int, std::deque<wire::Message>> inbox;
  std::vector<std::pair<int, wire::Kind>> sent;
  std::set<int> silent;  // ranks that never answer a Launch
  int reports_per_trial = 0;

 private:
  double& clock_;
};

class FakeAppCore final : public DispatchHost {
 public:
  FakeAppCore(Study& study, double& clock) : study_(study), clock_(clock) {}
  Study& study() override { return study_; }
  double now() const override { return clock_; }
  bool turn(double) override {
    if (!stop_at_turn || --*stop_at_turn > 0) return false;
    stop_at_turn.reset();
    study_.stop(StopReason::Signal);
    return true;
  }
  bool on_report(std::uint64_t trial, const Report&) override { return prune.count(trial) > 0; }
  TrialLaunch launch_for(const Trial& t) override {
    TrialLaunch l;
    l.trial = t.id;
    l.params_json = nlohmann::json{{"x", std::get<double>(t.params[0])}}.dump();
    return l;
  }
  TrialRun attributed(TrialRun run, bool interrupted) const override {
    if (interrupted) run.interrupted = true;
    return run;
  }
  double grace() const override { return 1; }
  void record(const TrialRun& run, int rank, const std::string& host, const std::string&) override {
    study_.on_result(run, rank, host);
    recorded.push_back(run.trial);
  }
  void say(const std::string& line) const override { said.push_back(line); }

  std::optional<int> stop_at_turn;  // the stop signal comes at this turn
  std::set<std::uint64_t> prune;    // trials the pruner stops at their first report
  std::vector<std::uint64_t> recorded;
  mutable std::vector<std::string> said;

 private:
  Study& study_;
  double& clock_;
};

class RankDispatchTest : public testing_support::OneParameterStudy {
 protected:
  void SetUp() override {
    OneParameterStudy::SetUp();
    history_.emplace(History::create(path(), info_));
    sampler_ = make_sampler("random", info_.space, {.seed = 3});
  }
  Study& study(std::uint64_t trials) {
    study_.emplace(*history_, *sampler_, StudyLimits{.trials = trials}, clock_);
    return *study_;
  }
  // Every runner's first Ready, as MPI delivers them.
  static void hello(FakeRanks& ranks, int runners) {
    for (int r = 1; r <= runners; ++r)
      ranks.inbox[r].push_back(wire::ready_message({{"host", "n" + std::to_string(r)}}));
  }

  double clock_ = 1000;
  std::optional<History> history_;
  std::unique_ptr<Sampler> sampler_;
  std::optional<Study> study_;
};

TEST_F(RankDispatchTest, EveryTrialOnceEveryRunnerStopped) {
  Study& s = study(12);
  FakeRanks ranks(clock_);
  FakeAppCore core(s, clock_);
  hello(ranks, 3);
  RankDispatch(core, ranks, 4).run();
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.stop_reason(), StopReason::TrialsDone);
  EXPECT_EQ(s.count(TrialState::Ok), 12u);
  std::set<std::uint64_t> once(core.recorded.begin(), core.recorded.end());
  EXPECT_EQ(once.size(), 12u) << "each trial recorded once";
  for (int r = 1; r <= 3; ++r) {
    EXPECT_EQ(ranks.count(r, wire::Kind::Stop), 1u) << "rank " << r;
    EXPECT_GE(ranks.count(r, wire::Kind::Launch), 1u) << "rank " << r << " got work";
  }
}

// Rank 1's trials stream 50 reports each; rank 2 asks for work meanwhile and
// is answered after at most one message of rank 1's, not after its stream.
TEST_F(RankDispatchTest, OneRunnersReportsNeverHoldAnothersRequestBack) {
  Study& s = study(4);
  FakeRanks ranks(clock_);
  FakeAppCore core(s, clock_);
  ranks.reports_per_trial = 50;
  ranks.inbox[1].push_back(wire::ready_message({{"host", "n1"}}));
  RankDispatch dispatch(core, ranks, 3);
  // Rank 1 gets its trial, then rank 2 says hello behind rank 1's 50 reports.
  ranks.inbox[2].push_back(wire::ready_message({{"host", "n2"}}));
  dispatch.run();
  std::size_t launches_before_rank2 = 0;
  for (const auto& [rank, kind] : ranks.sent) {
    if (rank == 2) break;
    launches_before_rank2 += kind == wire::Kind::Launch;
  }
  EXPECT_EQ(launches_before_rank2, 1u) << "rank 2 answered right after rank 1's first trial was handed out";
  EXPECT_EQ(s.count(TrialState::Ok), 4u);
}

TEST_F(RankDispatchTest, ThePrunersVerdictGoesToTheRunnerOfThatTrial) {
  Study& s = study(3);
  FakeRanks ranks(clock_);
  FakeAppCore core(s, clock_);
  ranks.reports_per_trial = 1;
  core.prune = {1};
  hello(ranks, 2);
  RankDispatch(core, ranks, 3).run();
  std::size_t prunes = 0;
  for (const auto& [rank, kind] : ranks.sent) prunes += kind == wire::Kind::Prune;
  EXPECT_EQ(prunes, 1u);
}

// The stop signal at the third turn: both busy ranks are told to end their
// trials; rank 2 answers, rank 1 stays silent and is given up on after its
// patience, its trial recorded as interrupted (a resume runs it again).
TEST_F(RankDispatchTest, ASilentRunnerIsGivenUpOnAfterTheStopAndItsTrialInterrupted) {
  Study& s = study(10);
  FakeRanks ranks(clock_);
  FakeAppCore core(s, clock_);
  ranks.silent = {1, 2};
  core.stop_at_turn = 3;
  hello(ranks, 2);
  RankDispatch dispatch(core, ranks, 3);
  dispatch.run();
  EXPECT_EQ(ranks.count(1, wire::Kind::Interrupt), 1u);
  EXPECT_EQ(ranks.count(2, wire::Kind::Interrupt), 1u);
  EXPECT_EQ(ranks.count(1, wire::Kind::Stop), 1u);
  EXPECT_EQ(s.count(TrialState::Interrupted), 2u);
  EXPECT_EQ(s.stop_reason(), StopReason::Signal);
  ASSERT_FALSE(core.said.empty());
  EXPECT_NE(core.said.front().find("has sent nothing for"), std::string::npos) << core.said.front();
  EXPECT_GE(clock_ - 1000, silent_runner_patience(core.grace())) << "not before its patience ran out";
}

TEST_F(RankDispatchTest, ARunnerThatHeardTheStopSignalStopsTheStudy) {
  Study& s = study(10);
  FakeRanks ranks(clock_);
  FakeAppCore core(s, clock_);
  ranks.inbox[1].push_back(wire::ready_message({{"host", "n1"}, {"stopping", true}}));
  RankDispatch(core, ranks, 2).run();
  EXPECT_EQ(s.stop_reason(), StopReason::Signal);
  EXPECT_EQ(ranks.count(1, wire::Kind::Launch), 0u);
  EXPECT_EQ(ranks.count(1, wire::Kind::Stop), 1u);
}

TEST_F(RankDispatchTest, AMalformedMessageIsABugNotInput) {
  Study& s = study(2);
  FakeRanks ranks(clock_);
  FakeAppCore core(s, clock_);
  ranks.inbox[1].push_back(wire::Message{wire::Kind::Result, nlohmann::json{{"trial", "x"}}});
  EXPECT_THROW(RankDispatch(core, ranks, 2).run(), std::logic_error);
}

}  // namespace
}  // namespace tune
