// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/sampler.hpp"

#include <gtest/gtest.h>

#include <set>

#include "search/grid_sampler.hpp"
#include "search/random_sampler.hpp"
#include "search/sampler_registry.hpp"

namespace tune {
namespace {

SearchSpace source_design_space() {
  return SearchSpace::parse(R"({"parameters": [
      {"name": "momentum", "type": "bound", "value": [0.1, 0.3]},
      {"name": "learningRate", "type": "number", "value": [0.1, 0.2, 0.3]}]})");
}

TEST(GridSampler, CoversListedValuesTimesGridPoints) {
  GridSampler grid(source_design_space(), 3);
  ASSERT_EQ(grid.size(), 9u);
  std::set<std::pair<double, double>> seen;
  for (std::uint64_t k = 0; k < 9; ++k) {
    auto a = grid.propose(k, {});
    ASSERT_TRUE(a);
    seen.emplace(std::get<double>((*a)[0]), std::get<double>((*a)[1]));
  }
  EXPECT_EQ(seen.size(), 9u);
  EXPECT_TRUE(seen.count({0.1, 0.1}));
  EXPECT_TRUE(seen.count({0.2, 0.3}));
  EXPECT_TRUE(seen.count({0.3, 0.2}));
  EXPECT_FALSE(grid.propose(9, {}));  // exhausted
}

TEST(GridSampler, UsesEveryIntegerOfASmallRangeAndLogSpacing) {
  auto space = SearchSpace::parse(R"({"parameters": [
      {"name": "layers", "type": "int", "value": [1, 3]},
      {"name": "lr", "type": "bound", "value": [0.001, 0.1], "log": true}]})");
  GridSampler grid(space, 3);
  ASSERT_EQ(grid.size(), 9u);
  auto last = grid.propose(8, {});
  EXPECT_EQ(std::get<std::int64_t>((*last)[0]), 3);
  EXPECT_NEAR(std::get<double>((*last)[1]), 0.1, 1e-12);
  EXPECT_NEAR(std::get<double>((*grid.propose(1, {}))[1]), 0.01, 1e-12);
}

TEST(GridSampler, RefusesAnAbsurdGrid) {
  auto space = SearchSpace::parse(R"({"parameters": [
      {"name": "a", "type": "bound", "value": [0, 1]}, {"name": "b", "type": "bound", "value": [0, 1]},
      {"name": "c", "type": "bound", "value": [0, 1]}]})");
  EXPECT_THROW(GridSampler(space, 1000), SpaceError);
  EXPECT_THROW(GridSampler(space, 0), SpaceError);
}

TEST(RandomSampler, IsReproducibleAndDependsOnlyOnSeedAndTrial) {
  const auto space = source_design_space();
  RandomSampler a(space, 42), b(space, 42), c(space, 43);
  // b asks in another order: trial 5's parameters are still trial 5's.
  const auto b5 = b.propose(5, {});
  for (std::uint64_t k = 0; k < 5; ++k) a.propose(k, {});
  EXPECT_EQ(a.propose(5, {}), b5);
  EXPECT_NE(c.propose(5, {}), b5);
}

TEST(RandomSampler, StaysInsideTheSpaceAndSpreadsOverIt) {
  const auto space = source_design_space();
  RandomSampler s(space, 7);
  int low_half = 0;
  std::set<double> lrs;
  for (std::uint64_t k = 0; k < 2000; ++k) {
    const auto a = *s.propose(k, {});
    const double m = std::get<double>(a[0]);
    ASSERT_GE(m, 0.1);
    ASSERT_LE(m, 0.3);
    low_half += m < 0.2;
    lrs.insert(std::get<double>(a[1]));
  }
  EXPECT_NEAR(low_half, 1000, 120);  // about 6 sigma
  EXPECT_EQ(lrs, (std::set<double>{0.1, 0.2, 0.3}));
}

// Each name makes its sampler: sampler_registry_test.cpp, over every entry.
TEST(MakeSampler, NamesEveryChoiceForAnUnknownName) {
  try {
    make_sampler("annealing", source_design_space(), {});
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with("unknown search algorithm 'annealing'; choose one of: grid, random"))
        << what;
    for (const auto& name : samplers().names()) EXPECT_NE(what.find(name), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace tune
