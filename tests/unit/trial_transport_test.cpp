// The trial transport's shared parts (trial/): the one message vocabulary,
// the trial JSON, and the runner's side of a trial over a RunnerLink, with a
// fake link standing in for MPI or the channel and real programs as trials.
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <fstream>

#include "temp_dir.hpp"
#include "trial/messages.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_json.hpp"

namespace tune {
namespace {

using nlohmann::json;

TEST(TrialMessages, EveryKindHasOneNameAndOneTagBothWays) {
  for (int i = 0; i < wire::kKinds; ++i) {
    const auto k = static_cast<wire::Kind>(i);
    EXPECT_EQ(wire::kind_of(wire::kind_name(k)), k);
    EXPECT_EQ(wire::kind_of_tag(wire::tag_of(k)), k);
    EXPECT_GT(wire::tag_of(k), 0);  // MPI tags from 1: 0 stays free
  }
  EXPECT_EQ(wire::kind_name(wire::Kind::Ready), "ready");
  EXPECT_EQ(wire::kind_name(wire::Kind::Prune), "prune");
  for (const char* bad : {"", "READY", "hello", "launch ", "stop\n"}) EXPECT_FALSE(wire::kind_of(bad)) << bad;
  for (int tag : {0, -1, wire::kKinds + 1, 99}) EXPECT_FALSE(wire::kind_of_tag(tag)) << tag;
}

TEST(TrialMessages, LaunchRunAndReportSurviveTheirJson) {
  TrialLaunch l;
  l.trial = 7;
  l.argv = {"prog", "--lr", "0.1"};
  l.env = {{"TUNE_PARAM_lr", "0.1"}};
  l.trial_dir = "/tmp/t/7";
  l.params_json = R"({"lr":0.1})";
  l.time_limit = 30;
  l.grace = 5;
  l.metric_regex = "acc=(\\S+)";
  l.reports_in_file = true;
  l.checkpoint_dir = "/tmp/t/7.ckpt";
  const TrialLaunch back = wire::launch_from_json(json::parse(wire::to_json(l).dump()));
  EXPECT_EQ(back.trial, 7u);
  EXPECT_EQ(back.argv, l.argv);
  EXPECT_EQ(back.env, l.env);
  EXPECT_EQ(back.trial_dir, l.trial_dir);
  EXPECT_EQ(back.params_json, l.params_json);
  EXPECT_EQ(back.time_limit, 30);
  EXPECT_EQ(back.metric_regex, l.metric_regex);
  EXPECT_TRUE(back.reports_in_file);
  EXPECT_EQ(back.checkpoint_dir, l.checkpoint_dir);

  TrialRun r;
  r.trial = 7, r.exited = true, r.exit_code = 0, r.objective = 0.25, r.last_step = 3;
  const TrialRun rb = wire::run_from_json(json::parse(wire::to_json(r).dump()));
  EXPECT_EQ(rb.trial, 7u);
  EXPECT_TRUE(rb.exited);
  EXPECT_EQ(rb.objective, 0.25);
  EXPECT_EQ(rb.last_step, 3);
  EXPECT_THROW(wire::launch_from_json(json::parse(R"({"trial":"x"})")), std::exception);
}

// The AppCore's end, scripted: records what the runner sent, answers from a queue.
class FakeLink : public RunnerLink {
 public:
  bool send(wire::Kind kind, const json& body) override {
    sent.push_back({kind, body});
    if (kind == wire::Kind::Report && on_report) on_report(body, *this);
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
    l.inbox.push_back({wire::Kind::Prune, {{"trial", body.at("trial")}}});
  };
  const auto t0 = std::chrono::steady_clock::now();
  const TrialRun run = run_trial(link, launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; exec sleep 30"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  EXPECT_TRUE(run.pruned);
}

TEST_F(RunnerSide, APruneForAnotherTrialIsIgnored) {
  FakeLink link;
  link.on_report = [](const json&, FakeLink& l) { l.inbox.push_back({wire::Kind::Prune, {{"trial", 99}}}); };
  const TrialRun run = run_trial(
      link, launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; sleep 0.3; echo objective=1 >&$TUNE_REPORT_FD"));
  EXPECT_FALSE(run.pruned);
  EXPECT_FALSE(run.interrupted);
  EXPECT_EQ(run.objective, 1.0);
}

TEST_F(RunnerSide, AnInterruptEndsTheTrialAsInterrupted) {
  FakeLink link;
  link.on_report = [](const json&, FakeLink& l) {
    l.inbox.push_back({wire::Kind::Interrupt, json::object()});
  };
  const TrialRun run = run_trial(link, launch("echo step=1 loss=0.5 >&$TUNE_REPORT_FD; exec sleep 30"));
  EXPECT_TRUE(run.interrupted);
  EXPECT_FALSE(run.pruned);
  EXPECT_GT(link.polls, 0);
}

}  // namespace
}  // namespace tune
