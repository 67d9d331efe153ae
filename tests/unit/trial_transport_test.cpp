// SPDX-License-Identifier: GPL-2.0-or-later
// The trial transport's shared parts (trial/): the one message vocabulary,
// the trial JSON, and the runner's side of a trial over a RunnerLink, with a
// fake link standing in for MPI or the channel and real programs as trials.
#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "trial/messages.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_dir.hpp"
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

// Both sides' inboxes, recording what was delivered.
struct Recorded : wire::AppCoreInbox, wire::RunnerInbox {
  void ready(const json& hello) override { said.push_back("ready " + hello.dump()); }
  void report(std::uint64_t trial, const Report& r) override {
    said.push_back("report " + std::to_string(trial) + " step " + std::to_string(r.step.value_or(-1)));
  }
  void result(const TrialRun& run) override { said.push_back("result " + std::to_string(run.trial)); }
  void bye() override { said.push_back("bye"); }
  void launch(TrialLaunch l) override { said.push_back("launch " + std::to_string(l.trial)); }
  void stop() override { said.push_back("stop"); }
  void interrupt(std::optional<std::uint64_t> t) override {
    said.push_back("interrupt " + (t ? std::to_string(*t) : std::string("any")));
  }
  void prune(std::uint64_t t) override { said.push_back("prune " + std::to_string(t)); }
  void malformed(wire::Kind k, const std::string& why) override {
    said.push_back("malformed " + std::string(wire::kind_name(k)) + ": " + why);
  }
  std::vector<std::string> said;
};

// A message through a channel frame, as the trial-jobs transport carries it.
wire::Message framed(const wire::Message& m) {
  auto back = wire::from_frame(json::parse(wire::to_frame(m).dump()));
  EXPECT_TRUE(back);
  return back ? *back : m;
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

TEST_F(TrialDirectory, AResultInAHelloOrSavedThereIsTheResultMessage) {
  TrialRun run;
  run.trial = 9, run.exited = true, run.objective = 0.5;
  json hello = wire::result_message(run).body;  // what trial_job's connect() sends
  hello["job"] = 42;
  hello["host"] = "node1";
  Recorded live, in_hello, saved, older;
  wire::deliver(framed(wire::result_message(run)), static_cast<wire::AppCoreInbox&>(live));
  const auto m = wire::result_in_hello(json::parse(hello.dump()));
  ASSERT_TRUE(m);
  wire::deliver(*m, static_cast<wire::AppCoreInbox&>(in_hello));
  EXPECT_FALSE(wire::result_in_hello(json{{"job", 42}})) << "a hello without a result";

  const std::string trial = trial_files::dir_of(dir_.string(), 9);
  std::filesystem::create_directories(trial);
  EXPECT_FALSE(trial_files::saved_result(trial)) << "nothing saved yet";
  // A directory that cannot take it: the errno, and no file (torn or whole) left.
  const std::string nowhere = trial_files::dir_of(dir_.string(), 10);
  EXPECT_NE(trial_files::save_result(nowhere, run), 0);
  EXPECT_FALSE(std::filesystem::exists(nowhere));
  EXPECT_EQ(trial_files::save_result(trial, run), 0);
  wire::deliver(*trial_files::saved_result(trial), static_cast<wire::AppCoreInbox&>(saved));
  // A file an older tune wrote: the bare run.
  std::ofstream(trial_files::in(trial, trial_files::kResult)) << wire::to_json(run).dump() << "\n";
  wire::deliver(*trial_files::saved_result(trial), static_cast<wire::AppCoreInbox&>(older));
  EXPECT_EQ(live.said, std::vector<std::string>{"result 9"});
  EXPECT_EQ(in_hello.said, live.said);
  EXPECT_EQ(saved.said, live.said);
  EXPECT_EQ(older.said, live.said);

  // A torn or hostile file is a malformed Result, named, not a crash.
  for (const char* text : {"{\"result\": ", "[]", "{\"result\": {\"trial\": \"x\"}}"}) {
    std::ofstream(trial_files::in(trial, trial_files::kResult)) << text;
    Recorded bad;
    wire::deliver(*trial_files::saved_result(trial), static_cast<wire::AppCoreInbox&>(bad));
    ASSERT_EQ(bad.said.size(), 1u) << text;
    EXPECT_EQ(bad.said[0].rfind("malformed result: ", 0), 0u) << bad.said[0];
  }
  trial_files::save_job(trial, 1234);
  EXPECT_EQ(trial_files::saved_job(trial), 1234u);
  EXPECT_EQ(trial_files::saved_job(trial_files::dir_of(dir_.string(), 10)), 0u);
}

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
