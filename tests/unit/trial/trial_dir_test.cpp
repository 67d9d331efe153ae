// SPDX-License-Identifier: GPL-2.0-or-later
// A trial's directory and the result a trial job saves there (trial/trial_dir).
#include "trial/trial_dir.hpp"

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
#include "trial/messages.hpp"
#include "trial/runner_side.hpp"
#include "trial/trial_json.hpp"

namespace tune {
namespace {

using testing_support::framed;
using testing_support::Recorded;

using nlohmann::json;

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

}  // namespace
}  // namespace tune
