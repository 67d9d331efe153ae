// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/history.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

namespace fs = std::filesystem;

class HistoryTest : public testing_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    path_ = file("study.h5");
  }

  static StudyInfo study() {
    StudyInfo s;
    s.name = "unit";
    s.space = SearchSpace::parse(R"({"parameters": [
        {"name": "lr", "type": "bound", "value": [0.0001, 0.1], "log": true},
        {"name": "layers", "type": "int", "value": [1, 8]},
        {"name": "momentum", "type": "number", "value": [0.5, 0.9]},
        {"name": "opt", "type": "choice", "value": ["sgd", "adam"]}]})");
    s.sampler = "random";
    s.seed = 7;
    s.minimize = false;
    s.command = "python3 train.py --lr {lr}";
    s.created = "2026-11-21T00:00:00Z";
    s.tune_version = "test";
    s.trials = 40;
    return s;
  }
  static Trial trial(std::uint64_t id, TrialState state, std::optional<double> objective) {
    Trial t;
    t.id = id;
    t.state = state;
    t.params = {0.01 * (id + 1), std::int64_t(id % 8 + 1), 0.9, std::string(id % 2 ? "adam" : "sgd")};
    t.objective = objective;
    t.start_time = 1000.0 + id;
    t.end_time = state == TrialState::Running ? 0 : 1001.5 + id;
    t.rank = 1 + id % 3;
    t.host = "node" + std::to_string(id % 4);
    t.exit_code = state == TrialState::Ok ? 0 : -1;
    t.message = state == TrialState::Failed ? "exit 3" : "";
    return t;
  }

  std::string path_;
};

TEST_F(HistoryTest, KeepsTrialsReportsAndTheStudyAcrossReopen) {
  {
    auto h = History::create(path_, study());
    h.put(trial(0, TrialState::Running, {}));
    h.add_report(0, Report{.step = 1, .metrics = {{"loss", 0.5}}, .objective = {}}, 1000.5);
    h.put(trial(0, TrialState::Ok, 0.91));
    h.put(trial(1, TrialState::Failed, {}));
    h.close();
  }
  auto snap = read_history(path_);
  EXPECT_EQ(snap.study.name, "unit");
  EXPECT_EQ(snap.study.command, "python3 train.py --lr {lr}");
  EXPECT_FALSE(snap.study.minimize);
  EXPECT_EQ(snap.study.trials, 40u);  // the budget a resumed run without --trials runs to
  EXPECT_EQ(snap.study.space.to_json(), study().space.to_json());
  ASSERT_EQ(snap.trials.size(), 2u);
  EXPECT_EQ(snap.trials[0].state, TrialState::Ok);
  EXPECT_DOUBLE_EQ(*snap.trials[0].objective, 0.91);
  EXPECT_EQ(snap.trials[0].params, trial(0, TrialState::Ok, 0.91).params);
  EXPECT_EQ(snap.trials[1].state, TrialState::Failed);
  EXPECT_FALSE(snap.trials[1].objective);
  EXPECT_EQ(snap.trials[1].message, "exit 3");
  EXPECT_EQ(snap.trials[1].host, "node1");
  ASSERT_EQ(snap.reports.size(), 1u);
  EXPECT_EQ(snap.reports[0].metric, "loss");
  EXPECT_EQ(snap.reports[0].step, 1);

  auto again = History::resume(path_);
  EXPECT_FALSE(again.recovered());
  EXPECT_EQ(again.study().trials, 40u);
  EXPECT_EQ(again.trials().size(), 2u);
  again.put(trial(2, TrialState::Ok, 0.5));
  again.close();
  EXPECT_EQ(read_history(path_).trials.size(), 3u);
  // --trials again on resume: the new budget is kept, the trials too.
  History::resume(path_, 60).close();
  const auto later = read_history(path_);
  EXPECT_EQ(later.study.trials, 60u);
  EXPECT_EQ(later.trials.size(), 3u);
}

TEST_F(HistoryTest, NeverOverwritesAnExistingFile) {
  History::create(path_, study()).close();
  try {
    History::create(path_, study());
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find("already exists; continue that study with --resume"),
              std::string::npos);
  }
}

TEST_F(HistoryTest, RefusesASecondWriter) {
  auto h = History::create(path_, study());
  try {
    History::resume(path_);
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find("another tune process is writing this history"), std::string::npos);
  }
}

TEST_F(HistoryTest, IsReadableWhileBeingWritten) {
  auto h = History::create(path_, study());
  for (std::uint64_t i = 0; i < 5; ++i) {
    h.put(trial(i, TrialState::Ok, 0.1 * i));
    const auto snap = read_history(path_, false);
    ASSERT_EQ(snap.trials.size(), i + 1);
    EXPECT_DOUBLE_EQ(*snap.trials[i].objective, 0.1 * i);
  }
}

TEST_F(HistoryTest, SurvivesAWriterKilledMidStudy) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto h = History::create(path_, study());
    for (std::uint64_t i = 0; i < 40; ++i) {
      h.put(trial(i, TrialState::Running, {}));
      h.add_report(i, Report{.step = 1, .metrics = {{"loss", 1.0 / (i + 1)}}, .objective = {}}, 1000.0 + i);
      h.put(trial(i, TrialState::Ok, static_cast<double>(i)));
    }
    h.put(trial(40, TrialState::Running, {}));
    ::kill(::getpid(), SIGKILL);  // no close, no destructor
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  // A killed writer's file still reads, and resume repairs it with nothing lost.
  EXPECT_EQ(read_history(path_, false).trials.size(), 41u);
  auto h = History::resume(path_);
  EXPECT_TRUE(h.recovered());
  ASSERT_EQ(h.trials().size(), 41u);
  for (std::uint64_t i = 0; i < 40; ++i) {
    EXPECT_EQ(h.trials()[i].state, TrialState::Ok);
    EXPECT_DOUBLE_EQ(*h.trials()[i].objective, static_cast<double>(i));
  }
  EXPECT_EQ(h.trials()[40].state, TrialState::Running);
  EXPECT_EQ(h.report_rows(), 40u);
  EXPECT_TRUE(fs::exists(path_ + ".before-recovery"));
  h.put(trial(40, TrialState::Ok, 40.0));
  h.close();
  EXPECT_EQ(History::resume(path_).trials()[40].state, TrialState::Ok);
}

TEST_F(HistoryTest, NamesAFileThatIsNotAHistory) {
  { std::ofstream(path_) << "not hdf5"; }
  try {
    read_history(path_);
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find(path_ + ": cannot open as an HDF5 file"), std::string::npos)
        << e.what();
  }
}

// A file of format version 1 (grid_points, no sampler_settings) is read,
// its grid_points as the grid's setting; a newer version than this tune's
// is refused by name.
TEST_F(HistoryTest, AVersionOneFileIsReadAndANewerOneRefused) {
  StudyInfo s = study();
  s.sampler = "grid";
  s.sampler_settings = Settings({{"grid_points", 7}});
  History::create(path_, s).close();
  auto set_version = [&](std::int32_t v) {
    const hid_t f = H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT32, &v);
    H5Aclose(a);
    if (v == 1 && H5Aexists(f, "sampler_settings") > 0) {
      H5Adelete(f, "sampler_settings");
      const hid_t space = H5Screate(H5S_SCALAR);
      const hid_t g = H5Acreate2(f, "grid_points", H5T_NATIVE_INT32, space, H5P_DEFAULT, H5P_DEFAULT);
      const std::int32_t points = 7;
      H5Awrite(g, H5T_NATIVE_INT32, &points);
      H5Aclose(g);
      H5Sclose(space);
    }
    H5Fclose(f);
  };
  set_version(1);
  EXPECT_EQ(read_history(path_).study.sampler_settings, Settings({{"grid_points", 7}}));
  set_version(3);
  try {
    read_history(path_);
    FAIL() << "version 3 read";
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find("history format version 3, this tune reads versions 1 to 2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tune
