// SPDX-License-Identifier: GPL-2.0-or-later
// The one message vocabulary between an AppCore and its runners (trial/messages).
#include "trial/messages.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/temp_dir.hpp"
#include "tests/unit/trial/recorded_inbox.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_dir.hpp"
#include "trial/trial_json.hpp"

namespace tune {
namespace {

using testing_support::framed;
using testing_support::Recorded;

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

TEST(TrialMessages, EachKindsBuilderIsDecodedByItsSideTheSameOverBothTransports) {
  TrialLaunch l;
  l.trial = 5;
  TrialRun run;
  run.trial = 5;
  Report r;
  r.step = 2;
  const json hello = {{"host", "node1"}};
  for (bool over_channel : {false, true}) {
    const auto carried = [&](const wire::Message& m) { return over_channel ? framed(m) : m; };
    Recorded core, runner;
    for (const auto& m : {wire::ready_message(hello), wire::report_message(5, r), wire::result_message(run),
                          wire::result_message(run, hello), wire::bye_message()})
      wire::deliver(carried(m), static_cast<wire::AppCoreInbox&>(core));
    EXPECT_EQ(core.said,
              (std::vector<std::string>{"ready {\"host\":\"node1\"}", "report 5 step 2", "result 5",
                                        "result 5", "ready {\"host\":\"node1\"}", "bye"}));
    for (const auto& m : {wire::launch_message(l), wire::stop_message(), wire::interrupt_message(5),
                          wire::interrupt_message(), wire::prune_message(5)})
      wire::deliver(carried(m), static_cast<wire::RunnerInbox&>(runner));
    EXPECT_EQ(runner.said,
              (std::vector<std::string>{"launch 5", "stop", "interrupt 5", "interrupt any", "prune 5"}));
    // Each side ignores the other side's kinds.
    Recorded none;
    wire::deliver(carried(wire::launch_message(l)), static_cast<wire::AppCoreInbox&>(none));
    wire::deliver(carried(wire::report_message(5, r)), static_cast<wire::RunnerInbox&>(none));
    EXPECT_TRUE(none.said.empty());
  }
  EXPECT_FALSE(wire::from_frame(json{{"type", "hello"}}));
  EXPECT_FALSE(wire::from_frame(json{{"trial", 3}}));
  EXPECT_FALSE(wire::from_frame(json::array()));
}

// A result arrives three ways (live, in a reconnecting job's hello, saved
// in the trial's directory while no AppCore listened): each is the same
// Result message, decoded by deliver.
class TrialDirectory : public testing_support::TempDirTest {};

TEST(TrialMessages, AMalformedBodyIsNamedAndWhatAHandlerThrowsIsItsOwn) {
  Recorded core, runner;
  wire::deliver({wire::Kind::Report, {{"step", 1}}}, static_cast<wire::AppCoreInbox&>(core));
  wire::deliver({wire::Kind::Result, {{"result", "x"}}}, static_cast<wire::AppCoreInbox&>(core));
  wire::deliver({wire::Kind::Launch, json::object()}, static_cast<wire::RunnerInbox&>(runner));
  wire::deliver({wire::Kind::Prune, {{"trial", "seven"}}}, static_cast<wire::RunnerInbox&>(runner));
  ASSERT_EQ(core.said.size(), 2u);
  EXPECT_EQ(core.said[0], "malformed report: no \"trial\"");
  EXPECT_TRUE(core.said[1].starts_with("malformed result: ")) << core.said[1];
  ASSERT_EQ(runner.said.size(), 2u);
  EXPECT_TRUE(runner.said[0].starts_with("malformed launch: ")) << runner.said[0];
  EXPECT_TRUE(runner.said[1].starts_with("malformed prune: ")) << runner.said[1];

  struct Failing : Recorded {
    void result(const TrialRun&) override { throw std::runtime_error("disk full"); }
  } failing;
  TrialRun run;
  EXPECT_THROW(wire::deliver(wire::result_message(run), static_cast<wire::AppCoreInbox&>(failing)),
               std::runtime_error);
  EXPECT_TRUE(failing.said.empty());
}

}  // namespace
}  // namespace tune
