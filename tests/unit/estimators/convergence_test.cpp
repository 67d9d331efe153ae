// SPDX-License-Identifier: GPL-2.0-or-later
// The convergence stop (lib/estimators/convergence): whether the trials a
// study's budget has left are unlikely to improve its best by a margin.
#include "estimators/convergence.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace tune {
namespace {

ProgressRecord maxrec(std::int64_t n, std::vector<double> top, std::optional<std::int64_t> left,
                      std::optional<double> target = {}) {
  ProgressRecord r{"s", n, false, std::move(top), {}, {}};
  r.left = left, r.target = target;
  return r;
}

// Accuracy on 500 examples: a study whose best is tied by many results and
// one still spreading upwards.
const std::vector<double> kCeiling = {0.962, 0.962, 0.962, 0.962, 0.962, 0.960, 0.958, 0.956, 0.95, 0.94};
const std::vector<double> kSpreading = {0.95, 0.91, 0.88, 0.86, 0.82, 0.80, 0.77, 0.71, 0.66, 0.6};

TEST(Convergence, NotJudgedWithoutABudgetTooFewResultsOrATargetMet) {
  const ConvergenceRule rule{0.01};
  EXPECT_FALSE(convergence_check(maxrec(30, kCeiling, std::nullopt), rule))
      << "no --trials: nothing left to judge";
  EXPECT_FALSE(convergence_check(maxrec(30, kCeiling, 0), rule));
  EXPECT_FALSE(convergence_check(maxrec(4, {0.9, 0.8, 0.7, 0.6}, 50), rule));
  EXPECT_FALSE(convergence_check(maxrec(30, kCeiling, 50, 0.95), rule)) << "its target ends it";
  EXPECT_TRUE(convergence_check(maxrec(30, kCeiling, 50), rule));
}

TEST(Convergence, AStudyAtItsCeilingHasConvergedOneStillSpreadingHasNot) {
  const ConvergenceRule rule{0.004};  // two examples of 500
  const auto ceiling = convergence_check(maxrec(60, kCeiling, 40), rule);
  const auto spreading = convergence_check(maxrec(60, kSpreading, 40), rule);
  ASSERT_TRUE(ceiling && spreading);
  EXPECT_TRUE(converged(*ceiling, rule)) << ceiling->p;
  EXPECT_FALSE(converged(*spreading, rule)) << spreading->p;
  EXPECT_EQ(ceiling->left, 40);
}

TEST(Convergence, MoreTrialsLeftOrASmallerMarginMeanMoreChance) {
  const ProgressRecord few = maxrec(30, kSpreading, 5), many = maxrec(30, kSpreading, 500);
  const ConvergenceRule small{0.001}, large{0.05};
  EXPECT_LT(convergence_check(few, small)->p, convergence_check(many, small)->p);
  EXPECT_LT(convergence_check(many, large)->p, convergence_check(many, small)->p);
}

TEST(Convergence, ATargetInReachKeepsAStudyGoing) {
  // Beating its best by 0.1 is unlikely enough for a 25% rule, but a target
  // 0.002 above its best is not.
  const ConvergenceRule rule{0.1, 0.25};
  const auto without = convergence_check(maxrec(60, kSpreading, 40), rule);
  const auto with = convergence_check(maxrec(60, kSpreading, 40, 0.952), rule);
  ASSERT_TRUE(without && with);
  EXPECT_TRUE(converged(*without, rule)) << without->p;
  EXPECT_FALSE(converged(*with, rule)) << with->p_target;
  EXPECT_GT(with->p_target, 0);
}

TEST(Convergence, TheLineSaysWhatWasJudged) {
  const ConvergenceRule rule{0.004};
  const ProgressRecord r = maxrec(60, kCeiling, 40);
  const std::string line = convergence_line(r, *convergence_check(r, rule), rule);
  EXPECT_TRUE(line.starts_with("converged: the 40 trials left have a ")) << line;
  EXPECT_NE(line.find("chance of beating the best (0.962) by 0.004 (--converged)"), std::string::npos)
      << line;
  EXPECT_NE(line.find("below 5% (--converged-chance)"), std::string::npos) << line;
}

TEST(Convergence, ARuleOutOfRangeIsRefusedByItsFlag) {
  const auto refusal = [](ConvergenceRule r) {
    try {
      check_convergence_rule(r);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal({0.01, 0.05}), "");
  EXPECT_EQ(refusal({-1}),
            "--converged: -1 is not a number above 0 (an improvement, in the objective's units)");
  EXPECT_EQ(refusal({0}),
            "--converged: 0 is not a number above 0 (an improvement, in the objective's units)");
  EXPECT_EQ(refusal({0.01, 1}), "--converged-chance: 1 is not a chance between 0 and 1");
  EXPECT_EQ(refusal({0.01, 0}), "--converged-chance: 0 is not a chance between 0 and 1");
}

}  // namespace
}  // namespace tune
