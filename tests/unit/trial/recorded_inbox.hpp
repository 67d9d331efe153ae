// SPDX-License-Identifier: GPL-2.0-or-later
// Both sides' inboxes of the trial vocabulary, recording what was delivered,
// and a message through a channel frame: what the tests of trial/messages and
// trial/trial_dir deliver into.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trial/messages.hpp"

namespace tune::testing_support {

using nlohmann::json;

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
inline wire::Message framed(const wire::Message& m) {
  auto back = wire::from_frame(json::parse(wire::to_frame(m).dump()));
  EXPECT_TRUE(back);
  return back ? *back : m;
}

}  // namespace tune::testing_support
