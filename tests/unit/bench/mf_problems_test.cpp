// SPDX-License-Identifier: GPL-2.0-or-later
// The multi-fidelity benchmark's problems (bench/mf_problems.hpp): the test
// functions are themselves at the last step and biased before it, a result's
// regret is 0 at the known minimum and never below; a table serves a trial
// the run bench/programs/table_curve.py would, epoch by epoch; a broken
// table is refused naming its file.
#include "bench/mf_problems.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/unit/temp_dir.hpp"

using tune::testing_support::TempDirTest;

TEST(MfProblems, FunctionsAreThemselvesAtTheLastStepAndBiasedBefore) {
  const auto all = bench::function_problems(27);
  ASSERT_EQ(all.size(), 3u);
  // Known minimisers: Branin's (pi, 2.275), Hartmann-3's and Hartmann-6's.
  const std::vector<std::vector<double>> at = {{3.14159265358979, 2.275},
                                               {0.114614, 0.555649, 0.852547},
                                               {0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573}};
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& p = all[i];
    SCOPED_TRACE(p.name);
    EXPECT_EQ(p.max_step, 27);
    EXPECT_TRUE(p.minimize);
    const double last = p.value(at[i], 0, 27);
    EXPECT_NEAR(p.regret(last), 0, 1e-4);
    EXPECT_NE(p.value(at[i], 0, 1), last);                  // a lower fidelity is another function
    EXPECT_EQ(p.value(at[i], 5, 9), p.value(at[i], 6, 9));  // the trial's number plays no part
    EXPECT_GE(p.regret(p.value(std::vector<double>(at[i].size(), 0.9), 0, 27)), 0);
  }
  EXPECT_EQ(bench::branin_at(at[0], 1), bench::branin(at[0]));
  EXPECT_EQ(bench::hartmann_at(at[2], 1), bench::hartmann6(at[2]));
}

class MfTable : public TempDirTest {};

TEST_F(MfTable, ServesTheNearestPointAndTheRunTheTrialsIdPicksEpochByEpoch) {
  std::ofstream(file("t.json")) << R"({"name": "t", "points": [
    {"lr": 0.001, "momentum": 0.0, "runs": [{"accuracy": [0.1, 0.2]}, {"accuracy": [0.3, 0.4]},
                                            {"accuracy": [0.5, 0.6]}]},
    {"lr": 0.1, "momentum": 0.9, "runs": [{"accuracy": [0.7, 0.9]}]}]})";
  const auto t = bench::read_workload_table(file("t.json"));
  EXPECT_EQ(t.epochs, 2u);
  EXPECT_DOUBLE_EQ(t.best, 0.9);
  const auto p = bench::table_problem(t);
  EXPECT_FALSE(p.minimize);
  EXPECT_EQ(p.max_step, 2);
  // zlib.crc32(b"0") % 3 == 2 and zlib.crc32(b"2") % 3 == 1, as table_curve.py picks.
  EXPECT_DOUBLE_EQ(p.value({0.0012, 0.1}, 0, 1), 0.5);
  EXPECT_DOUBLE_EQ(p.value({0.0012, 0.1}, 2, 2), 0.4);
  EXPECT_DOUBLE_EQ(p.value({0.2, 0.8}, 0, 2), 0.9);
  EXPECT_DOUBLE_EQ(p.regret(0.9), 0);
  EXPECT_NEAR(p.regret(0.4), 0.5, 1e-12);
}

TEST_F(MfTable, ABrokenTableIsRefusedNamingItsFile) {
  std::ofstream(file("uneven.json")) << R"({"name": "u", "points": [
    {"lr": 0.1, "momentum": 0, "runs": [{"accuracy": [0.1, 0.2]}, {"accuracy": [0.3]}]}]})";
  std::ofstream(file("bad.json")) << "{not json";
  for (const std::string name : {"uneven.json", "bad.json", "missing.json"}) {
    SCOPED_TRACE(name);
    try {
      (void)bench::read_workload_table(file(name));
      ADD_FAILURE() << "read";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(file(name)), std::string::npos) << e.what();
    }
  }
}
