// SPDX-License-Identifier: GPL-2.0-or-later
// The runner's side of a trial over a RunnerLink (trial/runner_side), with a
// fake link standing in for MPI or the channel and real programs as trials.
#include "trial/runner_side.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/temp_dir.hpp"
#include "trial/messages.hpp"
#include "trial/trial_dir.hpp"
#include "trial/trial_json.hpp"

namespace tune {
namespace {

using nlohmann::json;

// A result arrives three ways (live, in a reconnecting job's hello, saved
// in the trial's directory while no AppCore listened): each is the same
// Result message, decoded by deliver.
class TrialDirectory : public testing_support::TempDirTest {};

// The AppCore's end, scripted: records what the runner sent, answers from a queue.
class FakeLink : public RunnerLink {
 public:
  bool send(const wire::Message& m) override {
    sent.push_back(m);
    if (m.kind == wire::Kind::Report && on_report) on_report(m.body, *this);
    return true;
  }
  std::optional<wire::Message> poll() override {
    ++polls;
    if (inbox.empty()) return std::nullopt;
    auto m = inbox.front();
    inbox.pop_front();
    return m;
  }
  std::vector<wire::Message> sent;
  std::deque<wire::Message> inbox;
  std::function<void(const json&, FakeLink&)> on_report;
  int polls = 0;
};

class RunnerSide : public testing_support::TempDirTest {
 protected:
  TrialLaunch launch(const std::string& script) const {
    TrialLaunch l;
    l.trial = 3;
    l.argv = {"/bin/sh", "-c", script};
    l.trial_dir = file("3");
    l.params_json = "{}";
    l.grace = 1;
    return l;
  }
};

TEST_F(RunnerSide, ReportsGoToTheAppCoreAsTheyComeAndTheRunIsReturned) {
  FakeLink link;
  const TrialRun run = run_trial(
      link, launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; echo objective=0.25 >&$TUNE_REPORT_FD"));
  ASSERT_EQ(link.sent.size(), 2u);
  for (const auto& m : link.sent) {
    EXPECT_EQ(m.kind, wire::Kind::Report);
    EXPECT_EQ(m.body.at("trial"), 3);
  }
  EXPECT_EQ(wire::report_from_json(link.sent[0].body).step, 1);
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.objective, 0.25);
  EXPECT_FALSE(run.interrupted);
  EXPECT_FALSE(run.pruned);
}

TEST_F(RunnerSide, APruneForThisTrialEndsItAsPruned) {
  FakeLink link;
  link.on_report = [](const json& body, FakeLink& l) {
    l.inbox.push_back(wire::prune_message(body.at("trial").get<std::uint64_t>()));
  };
  const auto t0 = std::chrono::steady_clock::now();
  const TrialRun run = run_trial(link, launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; exec sleep 30"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  EXPECT_TRUE(run.pruned);
}

TEST_F(RunnerSide, APruneOrAnInterruptForAnotherTrialIsIgnored) {
  for (const auto& late : {wire::prune_message(99), wire::interrupt_message(99)}) {
    FakeLink link;
    link.on_report = [&](const json&, FakeLink& l) { l.inbox.push_back(late); };
    const TrialRun run = run_trial(
        link,
        launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; sleep 0.3; echo objective=1 >&$TUNE_REPORT_FD"));
    EXPECT_FALSE(run.pruned) << wire::kind_name(late.kind);
    EXPECT_FALSE(run.interrupted) << wire::kind_name(late.kind);
    EXPECT_EQ(run.objective, 1.0);
  }
}

TEST_F(RunnerSide, AStopWhileTheTrialRunsLetsItFinishAndIsKeptForAfter) {
  // The AppCore that gave up waiting for a result tells the rank to stop;
  // the trial is not cut short by it, and the runner hears it once done.
  FakeLink link;
  link.on_report = [](const json&, FakeLink& l) { l.inbox.push_back(wire::stop_message()); };
  bool stop_heard = false;
  const TrialRun run = run_trial(
      link, launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; sleep 0.3; echo objective=2 >&$TUNE_REPORT_FD"),
      &stop_heard);
  EXPECT_TRUE(stop_heard);
  EXPECT_FALSE(run.interrupted);
  EXPECT_EQ(run.objective, 2.0);
  link.on_report = nullptr;
  bool quiet = true;
  (void)run_trial(link, launch("echo objective=1 >&$TUNE_REPORT_FD"), &quiet);
  EXPECT_FALSE(quiet) << "no Stop came this time";
}

TEST_F(RunnerSide, AnInterruptEndsTheTrialAsInterrupted) {
  FakeLink link;
  link.on_report = [](const json&, FakeLink& l) { l.inbox.push_back(wire::interrupt_message()); };
  const TrialRun run = run_trial(link, launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; exec sleep 30"));
  EXPECT_TRUE(run.interrupted);
  EXPECT_FALSE(run.pruned);
  EXPECT_GT(link.polls, 0);
}

}  // namespace
}  // namespace tune
