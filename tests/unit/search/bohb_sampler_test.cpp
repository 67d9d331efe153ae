// SPDX-License-Identifier: GPL-2.0-or-later
// BOHB's model per budget (lib/search/bohb_sampler): which budget it models,
// and that it learns from runs a pruner cut short, which TPE cannot, and
// from those cut short below the budget it models.
#include "search/bohb_sampler.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "search/tpe_sampler.hpp"

namespace tune {
namespace {

SearchSpace line() {
  return SearchSpace::parse(R"({"parameters": [{"name": "x", "type": "bound", "value": [0, 1]}]})");
}

double loss(const Assignment& a) {
  return std::pow(std::get<double>(a[0]) - 0.2, 2);
}

TEST(Bohb, ModelsTheLargestBudgetThatEnoughTrialsReached) {
  const auto space = line();  // one parameter: a budget needs 1 + 3 trials
  BohbSampler s(space, 1, true);
  EXPECT_FALSE(s.model_budget());
  // Six trials reach step 1, four of them step 3, two step 9.
  for (std::uint64_t k = 0; k < 6; ++k) {
    const Assignment a{0.1 * static_cast<double>(k)};
    const std::int64_t last = k < 2 ? 9 : k < 4 ? 3 : 1;
    for (std::int64_t step = 1; step <= last; step += 2) s.observe_progress({k, step, loss(a), a});
    s.observe({k, a, std::nullopt, true});
  }
  ASSERT_TRUE(s.model_budget());
  EXPECT_EQ(s.model_budget()->step, 3);
  EXPECT_EQ(s.model_budget()->trials, 4u);
  // A trial that failed takes its reports with it.
  const Assignment bad{0.9};
  for (std::uint64_t k = 6; k < 8; ++k) {
    s.observe_progress({k, 9, 0.0, bad});
    s.observe({k, bad, std::nullopt, false});
  }
  EXPECT_EQ(s.model_budget()->step, 3);
  // Two more that ran to step 9: now 4 reached it.
  for (std::uint64_t k = 8; k < 10; ++k) {
    const Assignment a{0.5};
    for (std::int64_t step = 1; step <= 9; step += 2) s.observe_progress({k, step, loss(a), a});
    s.observe({k, a, loss(a), false});
  }
  EXPECT_EQ(s.model_budget()->step, 9);
}

TEST(Bohb, ATrialWithoutStepsCountsAtTheFinalBudget) {
  const auto space = line();
  BohbSampler s(space, 1, true);
  for (std::uint64_t k = 0; k < 4; ++k) {
    const Assignment a{0.2 * static_cast<double>(k)};
    s.observe({k, a, loss(a), false});
  }
  ASSERT_TRUE(s.model_budget());
  EXPECT_EQ(s.model_budget()->trials, 4u);
}

// Every trial stopped at its first rung, as Hyperband's most aggressive
// bracket stops most: TPE sees only pruned trials and cannot tell them
// apart; BOHB models their values at that rung and proposes near the best.
TEST(Bohb, LearnsFromRunsAPrunerCutShort) {
  const auto space = line();
  BohbSampler bohb(space, 7, true);
  TpeSampler tpe(space, 7, true);
  for (std::uint64_t k = 0; k < 30; ++k) {
    const Assignment a{(static_cast<double>((k * 7) % 30) + 0.5) / 30};  // spread, in no order
    bohb.observe_progress({k, 1, loss(a), a});
    const Observation o{k, a, std::nullopt, true};
    bohb.observe(o);
    tpe.observe(o);
  }
  double bohb_far = 0, tpe_far = 0;
  const int n = 90;
  for (int k = 30; k < 30 + n; ++k) {
    bohb_far += std::abs(std::get<double>((*bohb.propose(k, {}))[0]) - 0.2) / n;
    tpe_far += std::abs(std::get<double>((*tpe.propose(k, {}))[0]) - 0.2) / n;
  }
  // Uniform proposals lie 0.34 from 0.2 on average; TPE's good set is its
  // first trials (pruned ones tie), BOHB's a third uniform, the rest near 0.2.
  EXPECT_LT(bohb_far, 0.2);
  EXPECT_LT(bohb_far, 0.7 * tpe_far) << "tpe: " << tpe_far;
}

// The densities at a budget learn from the trials the pruner stopped below
// it (as worse than any value there); a trial still running, or one that
// ended by itself, short of the budget tells nothing about it.
TEST(Bohb, ModelsTheRunsPrunedBelowItsBudgetAsWorse) {
  const auto space = line();
  BohbSampler s(space, 5, true);
  for (std::uint64_t k = 0; k < 4; ++k) {  // reach step 3
    const Assignment a{0.1 + 0.1 * static_cast<double>(k)};
    for (std::int64_t step = 1; step <= 3; ++step) s.observe_progress({k, step, loss(a), a});
    s.observe({k, a, loss(a), false});
  }
  const Assignment pruned{0.9}, running{0.8}, ended{0.7}, failed{0.6};
  s.observe_progress({4, 1, loss(pruned), pruned});
  s.observe({4, pruned, std::nullopt, true});
  s.observe_progress({5, 1, loss(running), running});
  s.observe_progress({6, 1, loss(ended), ended});
  s.observe({6, ended, loss(ended), false});
  s.observe_progress({7, 1, loss(failed), failed});
  s.observe({7, failed, std::nullopt, false});
  ASSERT_TRUE(s.model_budget());
  ASSERT_EQ(s.model_budget()->step, 3);
  const auto seen = s.model_observations(3);
  ASSERT_EQ(seen.size(), 5u);
  for (const auto& o : seen) {
    if (o.trial < 4) {
      EXPECT_FALSE(o.pruned);
      ASSERT_TRUE(o.objective);
      EXPECT_DOUBLE_EQ(*o.objective, loss(o.params));
    } else {
      EXPECT_EQ(o.trial, 4u);
      EXPECT_TRUE(o.pruned);
      EXPECT_FALSE(o.objective);
    }
  }
  // At step 1 every trial that reported there counts by its value, the
  // running one too.
  EXPECT_EQ(s.model_observations(1).size(), 7u);
}

TEST(Bohb, MaximisesWhenTheStudyDoes) {
  const auto space = line();
  BohbSampler s(space, 3, false);
  for (std::uint64_t k = 0; k < 20; ++k) {
    const Assignment a{(static_cast<double>(k) + 0.5) / 20};
    s.observe_progress({k, 2, -loss(a), a});
    s.observe({k, a, std::nullopt, true});
  }
  double far = 0;
  for (int k = 20; k < 80; ++k) far += std::abs(std::get<double>((*s.propose(k, {}))[0]) - 0.2) / 60;
  EXPECT_LT(far, 0.2);
}

}  // namespace
}  // namespace tune
