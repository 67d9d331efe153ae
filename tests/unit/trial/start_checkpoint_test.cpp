// SPDX-License-Identifier: GPL-2.0-or-later
// A trial that starts from another trial's checkpoint (trial/trial_process,
// TrialLaunch::checkpoint_from), with real programs: the copy is made once,
// before the first attempt, and an attempt after that (a requeue, a lost
// node) continues from what the trial itself wrote since.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/unit/temp_dir.hpp"
#include "trial/trial_dir.hpp"
#include "trial/trial_process.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;

class StartCheckpoint : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    fs::create_directories(file("2/checkpoint/sub"));
    write(file("2/checkpoint/model"), "epoch 4\n");
    write(file("2/checkpoint/sub/optimiser"), "momentum\n");
  }
  static void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Prints what it finds, then writes its own next checkpoint.
  TrialLaunch launch() const {
    TrialLaunch l;
    l.trial = 3;
    l.argv = {"/bin/sh", "-c",
              "echo restored=$TUNE_CHECKPOINT_RESTORED from=$TUNE_CHECKPOINT_FROM; "
              "cat \"$TUNE_CHECKPOINT_DIR/model\" \"$TUNE_CHECKPOINT_DIR/sub/optimiser\" 2>/dev/null; "
              "mkdir -p \"$TUNE_CHECKPOINT_DIR\" && echo 'epoch 5' > \"$TUNE_CHECKPOINT_DIR/model\"; "
              "echo objective=1 >&$TUNE_REPORT_FD"};
    l.trial_dir = file("3");
    l.params_json = "{}";
    l.grace = 1;
    l.checkpoint_dir = file("3/checkpoint");
    l.checkpoint_from = file("2/checkpoint");
    l.from_trial = 2;
    return l;
  }
  static TrialRun run(const TrialLaunch& l) {
    return TrialProcess::run(
        l, [](const Report&) {}, [] { return false; });
  }
  std::string out() const { return read(trial_files::in(file("3"), trial_files::kStdout)); }
};

TEST_F(StartCheckpoint, TheFirstAttemptFindsTheSourcesCheckpointAndTheSourceIsLeftAsItWas) {
  const TrialRun r = run(launch());
  EXPECT_EQ(r.objective, 1.0) << out();
  EXPECT_EQ(out(), "restored=1 from=2\nepoch 4\nmomentum\n");
  EXPECT_EQ(read(file("2/checkpoint/model")), "epoch 4\n");
  EXPECT_FALSE(fs::exists(file("3/checkpoint.copy")));
}

TEST_F(StartCheckpoint, AnAttemptAfterTheFirstContinuesFromItsOwnCheckpointNotAFreshCopy) {
  run(launch());
  const TrialRun again = run(launch());
  EXPECT_EQ(again.objective, 1.0);
  EXPECT_EQ(out(), "restored=1 from=2\nepoch 5\nmomentum\n");
}

TEST_F(StartCheckpoint, ACopyCutOffEarlierIsMadeAgainWhole) {
  fs::create_directories(file("3/checkpoint.copy"));
  write(file("3/checkpoint.copy/model"), "half");
  run(launch());
  EXPECT_EQ(out(), "restored=1 from=2\nepoch 4\nmomentum\n");
  EXPECT_FALSE(fs::exists(file("3/checkpoint.copy")));
}

TEST_F(StartCheckpoint, ASourceThatKeptNoCheckpointStartsTheTrialFromScratch) {
  fs::remove_all(file("2/checkpoint"));
  const TrialRun r = run(launch());
  EXPECT_EQ(r.objective, 1.0);
  EXPECT_EQ(out(), "restored=0 from=2\n");
}

}  // namespace
}  // namespace tune
