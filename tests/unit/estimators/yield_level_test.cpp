// SPDX-License-Identifier: GPL-2.0-or-later
// Algorithm 1's yield levels (lib/estimators/yield_level): when a study's
// record lowers or restores its level.
#include "estimators/yield_level.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <random>

#include "estimators/progress_record.hpp"
#include "estimators/study_progress.hpp"
#include "priority/job_summary.hpp"
#include "priority/policy_config.hpp"
#include "priority/sched_tune_policy.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

ProgressRecord rec(std::int64_t n, std::vector<double> top, bool minimize = true) {
  return {"s", n, minimize, std::move(top)};
}

TEST(YieldLevel, NeedsMoreThanKTimesMResults) {
  AdaptiveOptions o = testing_support::algorithm1();  // k = 2, m = 5
  YieldLevel y;
  EXPECT_FALSE(y.observe(rec(10, {1, 1, 1, 1, 1}), o));  // n = k*m: not yet
  EXPECT_EQ(y.level(), 0);
  EXPECT_TRUE(y.observe(rec(11, {1, 1, 1, 1, 1}), o));
  EXPECT_EQ(y.level(), 1);
}

TEST(YieldLevel, PlateauRaisesImprovementDoesNot) {
  AdaptiveOptions o = testing_support::algorithm1();
  o.thresholds = {0.01, 0.005};
  YieldLevel y;
  // Improving study: the top values move and are well apart (gaps >= 5%).
  const std::vector<std::vector<double>> improving = {
      {0.50, 0.60, 0.70, 0.80, 0.90}, {0.30, 0.50, 0.60, 0.70, 0.80}, {0.10, 0.30, 0.50, 0.60, 0.70}};
  std::int64_t n = 11;  // judged once per m = 5 results
  for (const auto& top : improving) EXPECT_FALSE(y.observe(rec(n += 5, top), o)) << top[0];
  EXPECT_EQ(y.level(), 0);
  // Plateau: the best values crowd together (relative gap 0.2% < 1%).
  EXPECT_TRUE(y.observe(rec(n += 5, {0.100, 0.1002, 0.101, 0.102, 0.12}), o));
  EXPECT_EQ(y.level(), 1);
  EXPECT_EQ(y.save(o).at("j"), 1) << "the threshold moved to G_1";
  // The same top again: g equals the mean of the earlier g? No (the mean holds
  // the improving gaps), but g < G_1 = 0.5% still: up again.
  EXPECT_TRUE(y.observe(rec(n += 5, {0.100, 0.1002, 0.101, 0.102, 0.12}), o));
  EXPECT_EQ(y.level(), 2);
}

TEST(YieldLevel, GapNearItsMeanCountsAsAPlateau) {
  AdaptiveOptions o = testing_support::algorithm1();
  o.thresholds = {0.001};
  o.set("tolerance", 0.05);
  YieldLevel y;
  // Gaps of about 10%, far above G, but the same each time: g ~ g'.
  EXPECT_FALSE(y.observe(rec(11, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_TRUE(y.observe(rec(16, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_NEAR(y.save(o).at("gap_sum").get<double>() / y.save(o).at("gaps").get<double>(), 0.1, 1e-12);
  EXPECT_FALSE(y.observe(rec(21, {0.5, 0.8, 1.0, 1.1, 1.2}), o))
      << "an improvement: g = 20% of 0.5, not ~ 10%";
  EXPECT_EQ(y.level(), 1);
}

TEST(YieldLevel, JudgedOncePerMResultsSoResultsOutsideTheTopDoNotRaiseEachTime) {
  AdaptiveOptions o = testing_support::algorithm1();  // k = 2, m = 5
  o.thresholds = {0.001};
  YieldLevel y;
  // Gaps of 10%, far above G. Results that miss the top 5 leave it as it was,
  // so g is exactly g' at each of them; judged at every result, n = 12 would
  // already rise. Judged at n = 11, then not before n = 16.
  EXPECT_FALSE(y.observe(rec(11, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  for (int n = 12; n <= 15; ++n) EXPECT_FALSE(y.observe(rec(n, {1.0, 1.1, 1.2, 1.3, 1.4}), o)) << n;
  EXPECT_EQ(y.trials_judged(), 11);
  EXPECT_EQ(y.level(), 0);
  // m results with nothing entering the top: g ~ g', up one.
  EXPECT_TRUE(y.observe(rec(16, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_EQ(y.trials_judged(), 16);
  // A record that jumps many results is judged once.
  EXPECT_TRUE(y.observe(rec(60, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_FALSE(y.observe(rec(61, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_EQ(y.level(), 2);
}

TEST(YieldLevel, RestoreKeepsTheJudgedCount) {
  AdaptiveOptions o = testing_support::algorithm1();
  YieldLevel y;
  EXPECT_TRUE(y.observe(rec(11, {1, 1, 1, 1, 1}), o));
  auto r = YieldLevel::restore(y.save(o), o);
  EXPECT_EQ(r.trials_judged(), 11);
  EXPECT_FALSE(r.observe(rec(15, {1, 1, 1, 1, 1}), o));
  EXPECT_TRUE(r.observe(rec(16, {1, 1, 1, 1, 1}), o));
  // Out of range: a judged count above the results seen is clamped.
  nlohmann::json bad = y.save(o);
  bad["judged_n"] = 1000;
  EXPECT_EQ(YieldLevel::restore(bad, o).trials_judged(), 11);
}

TEST(YieldLevel, MaximiseUsesTheSameGapsAndRepeatedRecordsDoNothing) {
  AdaptiveOptions o = testing_support::algorithm1();
  YieldLevel y;
  EXPECT_TRUE(y.observe(rec(20, {0.95, 0.95, 0.949, 0.948, 0.947}, false), o));
  EXPECT_FALSE(y.observe(rec(20, {0.95, 0.95, 0.949, 0.948, 0.947}, false), o))
      << "a requeued job repeats its Comment";
  EXPECT_FALSE(y.observe(rec(5, {0.95, 0.95, 0.949, 0.948, 0.947}, false), o));
  EXPECT_EQ(y.level(), 1);
}

TEST(YieldLevel, LevelIsCappedAndRelaxes) {
  AdaptiveOptions o = testing_support::algorithm1();
  o.max_level = 2;
  YieldLevel y;
  for (int n = 11; n < 40; n += 5) y.observe(rec(n, {1, 1, 1, 1, 1}), o);
  EXPECT_EQ(y.level(), 2);
  EXPECT_DOUBLE_EQ(y.multiplier(o), 0.25);
  y.relax();
  y.relax();
  y.relax();
  EXPECT_EQ(y.level(), 0);
  EXPECT_DOUBLE_EQ(y.multiplier(o), 1.0);
}

using testing_support::fast;

const Resources kCluster{16, 8000, 0};

}  // namespace
}  // namespace tune
