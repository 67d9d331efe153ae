// SPDX-License-Identifier: GPL-2.0-or-later
// The tail estimator (lib/estimators/tail_estimate): the chance that a study
// still reaches its target or improves.
#include "estimators/tail_estimate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "estimators/progress_record.hpp"
#include "estimators/study_progress.hpp"
#include "estimators/yield_level.hpp"
#include "priority/policy_config.hpp"
#include "priority/study_tracker.hpp"

namespace tune {
namespace {

ProgressRecord maxrec(std::int64_t n, std::vector<double> top, std::optional<double> target = {},
                      std::optional<std::int64_t> left = {}) {
  ProgressRecord r{"s", n, false, std::move(top)};
  r.target = target, r.left = left;
  return r;
}

TEST(TailEstimate, NotJudgedWithTooFewResultsOrNoTrialsLeft) {
  const TailOptions o;  // min_results 5
  EXPECT_FALSE(tail_estimate(maxrec(4, {0.9, 0.8, 0.7, 0.6}), o, 0.01));
  EXPECT_FALSE(tail_estimate(maxrec(9, {0.9}), o, 0.01));
  EXPECT_FALSE(tail_estimate(maxrec(9, {0.9, 0.8, 0.7}, std::nullopt, 0), o, 0.01));
  EXPECT_TRUE(tail_estimate(maxrec(5, {0.9, 0.8, 0.7, 0.6, 0.5}), o, 0.01));
}

TEST(TailEstimate, ResultsTiedAtTheBestMeanACeilingSpreadOnesAStudyStillImproving) {
  const TailOptions o;
  const auto spread = tail_estimate(maxrec(12, {0.90, 0.84, 0.80, 0.71, 0.66, 0.6}), o, 0.01);
  const auto tied_fewer = tail_estimate(maxrec(12, {0.85, 0.85, 0.85, 0.80, 0.71, 0.6}), o, 0.01);
  ASSERT_TRUE(spread && tied_fewer);
  EXPECT_LT(tied_fewer->p, spread->p) << "ties at the best lower the chance";
  ASSERT_TRUE(spread);
  EXPECT_GT(spread->p, o.p_min);
  EXPECT_EQ(tail_level(spread->p, o, 8), 0);
  const auto tied = tail_estimate(maxrec(12, {0.85, 0.85, 0.85, 0.85, 0.85, 0.71}), o, 0.01);
  ASSERT_TRUE(tied);
  EXPECT_EQ(tied->p, 0);
  EXPECT_EQ(tail_level(tied->p, o, 8), 8);
  // The same with minimisation: the sign is the record's direction.
  ProgressRecord low{"s", 8, true, {0.10, 0.16, 0.20, 0.29, 0.34}};
  EXPECT_NEAR(tail_estimate(low, o, 0.01)->p_improve,
              tail_estimate(maxrec(8, {-0.10, -0.16, -0.20, -0.29, -0.34}), o, 0.01)->p_improve, 1e-12);
}

TEST(TailEstimate, TiesAtTheBestOfAFineMetricMeanACeilingOfACoarseOneByHowTheyPileUp) {
  const TailOptions o;
  // Fine values (5 decimals, gaps down to 0.00042): two results at 0.85
  // would almost never tie under a continuous tail.
  const auto fine_tied = tail_estimate(maxrec(12, {0.85, 0.85, 0.83112, 0.83070, 0.76, 0.70}), o, 0.01);
  const auto fine_apart = tail_estimate(maxrec(12, {0.85, 0.84980, 0.83112, 0.83070, 0.76, 0.70}), o, 0.01);
  ASSERT_TRUE(fine_tied && fine_apart);
  EXPECT_LT(fine_tied->p, o.p_min);
  EXPECT_GT(fine_apart->p, o.p_min);
  // A coarse metric (accuracy on 200 examples, steps of 0.005): its results
  // tie by its resolution. Two at the best over a sparse tail are little
  // evidence of a ceiling...
  const auto two = tail_estimate(maxrec(12, {0.85, 0.85, 0.83, 0.825, 0.76, 0.70}), o, 0.01);
  ASSERT_TRUE(two);
  EXPECT_GT(two->p, o.p_min);
  // ...results piling up at the best, more than one step below holds, are
  // (a tail that decays smoothly holds less at its top than below it).
  const std::vector<double> piled{0.85, 0.85, 0.85, 0.845, 0.845, 0.835, 0.83, 0.82, 0.8, 0.78};
  const auto pile = tail_estimate(maxrec(20, piled, 0.86, 20), o, 0.01);
  ASSERT_TRUE(pile);
  EXPECT_LT(pile->p, o.p_min);
  TailOptions without = o;
  without.coarse_ties = 0;
  EXPECT_GT(tail_estimate(maxrec(20, piled, 0.86, 20), without, 0.01)->p, o.p_min)
      << "coarse_ties = 0: a coarse metric's ties are not evidence";
  // The same ties over a tail that holds more one step below: weaker.
  const std::vector<double> decaying{0.85,  0.85,  0.85,  0.845, 0.845, 0.845, 0.845,
                                     0.845, 0.845, 0.835, 0.83,  0.82,  0.8,   0.78};
  const auto decay = tail_estimate(maxrec(20, decaying, 0.86, 20), o, 0.01);
  ASSERT_TRUE(decay);
  EXPECT_GT(decay->p, pile->p);
}

TEST(TailEstimate, FewerTrialsLeftAndAFartherTargetLowerTheChance) {
  TailOptions o;
  o.target_horizon = 0;  // the chance within all the trials left
  const std::vector<double> top{0.88, 0.87, 0.85, 0.80};
  double last = 2;
  for (std::int64_t left : {40, 20, 10, 5, 2, 1}) {
    const double p = tail_estimate(maxrec(12, top, 0.95, left), o, 0.01)->p_target;
    EXPECT_LT(p, last) << left;
    last = p;
  }
  EXPECT_GT(tail_estimate(maxrec(12, top, 0.89, 10), o, 0.01)->p_target,
            tail_estimate(maxrec(12, top, 0.95, 10), o, 0.01)->p_target);
  EXPECT_EQ(tail_estimate(maxrec(12, top, 0.88, 10), o, 0.01)->p, 1) << "target met: the study is ending";
  // A study that cannot improve soon but may still reach its target is kept.
  const auto e = tail_estimate(maxrec(12, {0.88, 0.8799, 0.86, 0.80}, 0.885, 200), o, 0.01);
  EXPECT_GE(e->p, e->p_target);
}

TEST(TailEstimate, TheTargetsChanceCountsTheResultsWithinTheTargetHorizon) {
  const TailOptions o;  // target_horizon 10
  const std::vector<double> top{0.88, 0.87, 0.85, 0.80};
  TailOptions budget = o;
  budget.target_horizon = 0;
  const double soon = tail_estimate(maxrec(12, top, 0.95, 10), budget, 0.01)->p_target;
  for (std::int64_t left : {10, 40, 400})
    EXPECT_DOUBLE_EQ(tail_estimate(maxrec(12, top, 0.95, left), o, 0.01)->p_target, soon) << left;
  EXPECT_LT(tail_estimate(maxrec(12, top, 0.95, 5), o, 0.01)->p_target, soon)
      << "fewer left than the horizon";
  EXPECT_GT(tail_estimate(maxrec(12, top, 0.95, 400), budget, 0.01)->p_target, soon)
      << "target_horizon 0: the whole budget";
}

TEST(TailEstimate, LevelHalvesThePerChanceBelowPMin) {
  const TailOptions o;  // p_min 0.05
  EXPECT_EQ(tail_level(0.05, o, 8), 0);
  EXPECT_EQ(tail_level(0.049, o, 8), 1);
  EXPECT_EQ(tail_level(0.024, o, 8), 2);
  EXPECT_EQ(tail_level(1e-9, o, 8), 8);
  EXPECT_EQ(tail_level(0, o, 3), 3);
}

// Studies drawn at random from a continuous bounded distribution (random
// search on a smooth problem): how often the estimator lowers one that then
// improves its best by more than 1% within its next 10 results; and a
// study capped at a ceiling (15% of its results at it), how soon it is
// lowered. The first must stay rare, the second must happen.
TEST(TailEstimate, RarelyLowersAStudyThatGoesOnToImproveAndLowersOneAtItsCeiling) {
  std::mt19937_64 rng(7);
  std::gamma_distribution<double> g(2.0, 1.0);
  auto draw = [&] {
    const double a = g(rng), b = g(rng);
    return 0.5 + 0.47 * a / (a + b);
  };  // beta(2,2) on [0.5, 0.97]
  AdaptiveOptions o;
  o.use("tail");
  int lowered = 0, false_lowered = 0, ceiling_found = 0;
  for (int study = 0; study < 300; ++study) {
    std::vector<double> free, capped;
    for (int i = 0; i < 50; ++i) {
      double x = draw();
      // A third of the studies report a coarse metric (steps of 0.005, as
      // accuracy on 200 examples), whose ties are no ceiling.
      if (study % 3 == 0) x = std::round(x * 200) / 200;
      free.push_back(x);
      capped.push_back(std::min(x, 0.82));  // P(x > 0.82) ~ 15%
    }
    YieldLevel y, z;
    bool found = false;
    for (int n = 1; n <= 40; ++n) {
      const auto top = [&](const std::vector<double>& v) {
        std::vector<double> t(v.begin(), v.begin() + n);
        std::sort(t.rbegin(), t.rend());
        t.resize(std::min<std::size_t>(t.size(), 10));
        return t;
      };
      y.observe(maxrec(n, top(free), std::nullopt, 50 - n), o);
      if (y.level() > 0) {
        ++lowered;
        const double best = *std::max_element(free.begin(), free.begin() + n);
        if (*std::max_element(free.begin() + n, free.begin() + n + 10) > best * 1.01) ++false_lowered;
      }
      z.observe(maxrec(n, top(capped), std::nullopt, 50 - n), o);
      if (n <= 30 && z.level() > 0) found = true;
    }
    ceiling_found += found;
  }
  EXPECT_LE(false_lowered, 0.05 * std::max(lowered, 1)) << lowered << " lowerings";
  EXPECT_GE(ceiling_found, 200) << "of 300 capped studies lowered within 30 results";
}

TEST(TailEstimate, YieldLevelFollowsTheEstimateAndRecoversWithIt) {
  AdaptiveOptions o;
  o.use("tail");
  YieldLevel y;
  EXPECT_TRUE(y.observe(maxrec(12, {0.85, 0.85, 0.85, 0.85, 0.85, 0.7}), o));
  EXPECT_EQ(y.level(), o.max_level);
  EXPECT_FALSE(y.observe(maxrec(12, {0.85, 0.85, 0.85, 0.85, 0.85, 0.7}), o))
      << "a repeated record is not judged again";
  EXPECT_FALSE(y.observe(maxrec(13, {0.95, 0.85, 0.85, 0.85, 0.85, 0.85}), o)) << "a new best well above";
  EXPECT_EQ(y.level(), 0);
  EXPECT_GT(y.last_chance(), o.setting("tail.p_min"));
}

JobView pending_job(std::uint32_t id, std::uint32_t uid, const std::string& tenant, std::string comment) {
  JobView j;
  j.id = id, j.uid = uid, j.tenant = tenant, j.comment = std::move(comment), j.eligible = 0;
  return j;
}

TEST(TailEstimate, RelaxesWhileNobodyElseWaitsAndStandsAgainWhenSomeoneDoes) {
  AdaptiveOptions o;
  o.use("tail");
  o.relax_time = 60;
  const std::string ceiling = "tune:study=s;n=12;dir=max;top=0.85,0.85,0.85,0.85,0.85,0.7";
  const JobView mine = pending_job(1, 1000, "physics", ceiling), other = pending_job(2, 1001, "bio", "");
  StudyTracker t;
  t.update(100, {mine, other}, o, true);
  EXPECT_EQ(t.level(0), o.max_level);
  ASSERT_EQ(t.changes().size(), 1u);
  EXPECT_TRUE(t.changes()[0].judged);
  EXPECT_EQ(t.changes()[0].results, 12);
  EXPECT_EQ(t.changes()[0].chance, 0);
  t.update(130, {mine}, o, true);  // nobody else waits, for less than relax_time
  EXPECT_EQ(t.level(0), o.max_level);
  t.update(170, {mine}, o, true);
  EXPECT_EQ(t.level(0), o.max_level - 1);
  ASSERT_EQ(t.changes().size(), 1u);
  EXPECT_FALSE(t.changes()[0].judged);
  t.update(230, {mine}, o, true);
  EXPECT_EQ(t.level(0), o.max_level - 2);
  t.update(240, {mine, other}, o, true);  // someone waits again: the estimate stands
  EXPECT_EQ(t.level(0), o.max_level);
  ASSERT_EQ(t.changes().size(), 1u);
  EXPECT_FALSE(t.changes()[0].judged) << "not a new decision: the earlier one standing again";
  // The state keeps the estimate across a restart.
  StudyTracker back;
  back.restore(t.save(o), o);
  back.update(250, {mine}, o, true);
  EXPECT_EQ(back.level(0), o.max_level);
}

}  // namespace
}  // namespace tune
