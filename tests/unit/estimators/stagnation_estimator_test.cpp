// SPDX-License-Identifier: GPL-2.0-or-later
// The stagnation rule (lib/estimators/stagnation_estimator): a level per W
// results without a real improvement of the best, back to 0 on one.
#include <gtest/gtest.h>

#include "estimators/yield_level.hpp"
#include "priority/policy_config.hpp"
#include "priority/study_tracker.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

ProgressRecord rec(std::int64_t n, double best, bool minimize = false) {
  return {"s", n, minimize, {best, best - 0.1}, {}, {}};
}

AdaptiveOptions stagnation(int w = 10) {
  AdaptiveOptions o;
  o.use("stagnation");
  o.set("stagnation.trials", w);
  return o;
}

TEST(Stagnation, ALevelPerWindowWithoutImprovementAndBackOnOne) {
  const AdaptiveOptions o = stagnation();
  YieldLevel y;
  for (std::int64_t n = 1; n <= 9; ++n) y.observe(rec(n, 0.8), o);
  EXPECT_EQ(y.level(), 0) << "8 results since the best: not yet";
  EXPECT_FALSE(y.observe(rec(10, 0.8), o));
  EXPECT_TRUE(y.observe(rec(11, 0.8), o)) << "10 results since the best (seen at n = 1)";
  EXPECT_EQ(y.level(), 1);
  for (std::int64_t n = 12; n <= 21; ++n) y.observe(rec(n, 0.8), o);
  EXPECT_EQ(y.level(), 2);
  y.observe(rec(22, 0.81), o);  // +1.25%: an improvement that counts
  EXPECT_EQ(y.level(), 0);
  for (std::int64_t n = 23; n <= 32; ++n) y.observe(rec(n, 0.81), o);
  EXPECT_EQ(y.level(), 1);
}

TEST(Stagnation, SmallStepsCountOnceTheyAddUpAndTinyOnesDoNot) {
  const AdaptiveOptions o = stagnation();
  YieldLevel creeping, flat;
  double best = 1.0;
  for (std::int64_t n = 1; n <= 60; ++n) {
    best *= 1.004;  // 0.4% a result: 1% every third result
    creeping.observe(rec(n, best), o);
    flat.observe(rec(n, 1.0 + 1e-6 * static_cast<double>(n)), o);
    ASSERT_EQ(creeping.level(), 0) << "n = " << n;
  }
  EXPECT_EQ(flat.level(), 5) << "59 results without a 1% gain";
}

TEST(Stagnation, MinimisingStudiesImproveDownwards) {
  const AdaptiveOptions o = stagnation(5);
  YieldLevel y;
  for (std::int64_t n = 1; n <= 7; ++n) y.observe(rec(n, -4.0, true), o);
  EXPECT_EQ(y.level(), 1);
  y.observe(rec(8, -4.1, true), o);  // lower is better
  EXPECT_EQ(y.level(), 0);
  for (std::int64_t n = 9; n <= 20; ++n) y.observe(rec(n, -3.0, true), o);  // a worse value is no news
  EXPECT_EQ(y.level(), 2);
}

TEST(Stagnation, RelaxesWhileNobodyWaitsAndStandsAgainWhenSomeoneDoes) {
  const AdaptiveOptions o = stagnation(5);
  YieldLevel y;
  for (std::int64_t n = 1; n <= 16; ++n) y.observe(rec(n, 0.5), o);
  ASSERT_EQ(y.level(), 3);
  y.relax(2 * o.relax_time, 0, o);
  EXPECT_EQ(y.level(), 1);
  y.relax(0, 0, o);
  EXPECT_EQ(y.level(), 3);
}

TEST(Stagnation, TheTrackerKeepsTheBestAcrossARestart) {
  PolicyConfig c = testing_support::fast();
  c.adaptive = stagnation(4);
  auto job = [](std::int64_t n, double best) {
    return std::vector<JobView>{testing_support::pending(
        1, 1, "physics", 1000, format_progress({"s", n, false, {best, best / 2}, {}, {}}))};
  };
  StudyTracker live;
  live.update(10, job(3, 0.9), c.adaptive, true);
  live.update(20, job(6, 0.9), c.adaptive, true);
  StudyTracker restored;
  restored.restore(nlohmann::json::parse(live.save(c.adaptive).dump()), c.adaptive);
  for (StudyTracker* t : {&live, &restored}) t->update(30, job(7, 0.9), c.adaptive, true);
  EXPECT_EQ(live.level(0), 1) << "4 results since n = 3";
  EXPECT_EQ(restored.level(0), live.level(0)) << "the best and when it came survived the restart";

  nlohmann::json bad = live.save(c.adaptive);
  bad.begin().value()["best"] = "high";
  EXPECT_THROW(restored.restore(bad, c.adaptive), std::runtime_error);
  nlohmann::json old = live.save(c.adaptive);  // state written before the rule existed
  old.begin().value().erase("best");
  old.begin().value().erase("best_n");
  EXPECT_NO_THROW(restored.restore(old, c.adaptive));
}

TEST(Stagnation, ConfiguredByName) {
  const auto c = parse_policy_config(
      "adaptive = { estimator = \"stagnation\"; stagnation = { trials = 25; }; };", "x.conf");
  EXPECT_EQ(c.adaptive.estimator(), "stagnation");
  EXPECT_EQ(c.adaptive.setting("stagnation.trials"), 25);
  for (const char* bad : {"adaptive = {\n stagnation = { trials = 0; };\n};",
                          "adaptive = {\n stagnation = { window = 5; };\n};"}) {
    try {
      parse_policy_config(bad, "x.conf");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.line, 2) << e.what();
    }
  }
}

}  // namespace
}  // namespace tune
