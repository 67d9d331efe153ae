// SPDX-License-Identifier: GPL-2.0-or-later
// Asynchronous Hyperband (lib/search/hyperband_pruner): each trial in one
// bracket drawn from its number alone (so a resumed study keeps it), more
// trials where they are judged sooner, bracket k judging first at
// min-resource * eta^k, and trials compared within their bracket only.
#include "search/hyperband_pruner.hpp"

#include <gtest/gtest.h>

#include <map>

namespace tune {
namespace {

PrunerOptions hyperband(int brackets) {
  PrunerOptions o;
  o.rule = "hyperband";
  o.metric = "loss";
  o.settings = Settings({{"min_resource", 1}, {"reduction_factor", 3}, {"brackets", brackets}});
  return o;
}

TEST(Hyperband, BracketsByTrialNumberWeightedAsHyperband) {
  const HyperbandPruner p(hyperband(4));
  const HyperbandPruner again(hyperband(4));
  std::map<std::size_t, int> count;
  for (std::uint64_t t = 0; t < 4000; ++t) {
    ASSERT_EQ(p.bracket(t), again.bracket(t))
        << "a resumed study's pruner puts trial " << t << " where it was";
    ++count[p.bracket(t)];
  }
  // Hyperband with 4 brackets and eta 3 starts 27, 12, 6 and 4 configurations.
  const double shares[] = {27.0 / 49, 12.0 / 49, 6.0 / 49, 4.0 / 49};
  for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(count[k] / 4000.0, shares[k], 0.03) << "bracket " << k;
  EXPECT_EQ(p.bracket_rungs(0).rung_step(0), 1);
  EXPECT_EQ(p.bracket_rungs(3).rung_step(0), 27) << "the last bracket judges first at r * eta^3";
  EXPECT_EQ(HyperbandPruner(hyperband(1)).bracket(5), 0u) << "one bracket is asha";
}

TEST(Hyperband, ATrialIsComparedWithinItsBracketOnly) {
  HyperbandPruner p(hyperband(2));
  // Two trials of bracket 0 and one of bracket 1.
  std::vector<std::uint64_t> zero, one;
  for (std::uint64_t t = 0; zero.size() < 2 || one.empty(); ++t)
    (p.bracket(t) == 0 ? zero : one).push_back(t);
  EXPECT_FALSE(p.report(zero[0], 1, 1.0));
  // Worse at step 1 than bracket 0's first: stopped, the message naming its bracket.
  const auto why = p.report(zero[1], 1, 5.0);
  ASSERT_TRUE(why);
  EXPECT_EQ(why->rfind("hyperband bracket 0: pruned by asha at step 1", 0), 0u) << *why;
  // Bracket 1 judges first at step 3, and not against bracket 0's values.
  EXPECT_FALSE(p.report(one[0], 1, 50.0)) << "before its bracket's first rung";
  EXPECT_FALSE(p.report(one[0], 3, 50.0)) << "alone in its bracket's rung";
}

}  // namespace
}  // namespace tune
