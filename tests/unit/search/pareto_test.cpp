// SPDX-License-Identifier: GPL-2.0-or-later
// Several objectives' dominance and hypervolume (lib/search/pareto).
#include "search/pareto.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <numeric>
#include <random>

#include "command/objective_flags.hpp"
#include "history/history.hpp"
#include "search/sampler.hpp"
#include "search/scalarised_sampler.hpp"
#include "study/front.hpp"
#include "study/study.hpp"
#include "study/warm_start.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tune {
namespace {

TEST(Pareto, DominanceAndTheFront) {
  EXPECT_TRUE(dominates({1, 2}, {2, 2}));
  EXPECT_FALSE(dominates({1, 2}, {1, 2}));  // equal: neither
  EXPECT_FALSE(dominates({1, 3}, {2, 2}));
  const std::vector<ObjectivePoint> pts = {{1, 5}, {2, 2}, {3, 3}, {5, 1}, {2, 2}, {4, 4}};
  EXPECT_EQ(pareto_front(pts), (std::vector<std::size_t>{0, 1, 3, 4}));
}

TEST(Pareto, HypervolumeIsExact) {
  // Two objectives: the staircase under (4, 4) of (1,3), (2,2), (3,1) is 3 + 2 + 1.
  EXPECT_DOUBLE_EQ(hypervolume({{1, 3}, {2, 2}, {3, 1}}, {4, 4}), 6.0);
  EXPECT_DOUBLE_EQ(hypervolume({{1, 3}, {2, 2}, {3, 1}, {3, 3}, {5, 0}}, {4, 4}),
                   6.0);  // dominated and outside: nothing
  EXPECT_DOUBLE_EQ(hypervolume({}, {1, 1}), 0.0);
  // Three objectives: one point is a box; two overlapping boxes by inclusion-exclusion.
  EXPECT_DOUBLE_EQ(hypervolume({{0, 0, 0}}, {1, 2, 3}), 6.0);
  // boxes [0.5,1]x[0,1]x[0,1] and [0,1]x[0.5,1]x[0,1] (ref 1): 0.5 + 0.5 - 0.25.
  EXPECT_DOUBLE_EQ(hypervolume({{0.5, 0, 0}, {0, 0.5, 0}}, {1, 1, 1}), 0.75);
  // Against a Monte Carlo estimate on random 3- and 4-objective sets.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t d : {3u, 4u}) {
    std::vector<ObjectivePoint> pts(12, ObjectivePoint(d));
    for (auto& p : pts)
      for (auto& x : p) x = u(rng);
    int in = 0;
    const int n = 200000;
    for (int k = 0; k < n; ++k) {
      ObjectivePoint z(d);
      for (auto& x : z) x = u(rng);
      for (const auto& p : pts)
        if (dominates(p, z) || p == z) {
          ++in;
          break;
        }
    }
    EXPECT_NEAR(hypervolume(pts, ObjectivePoint(d, 1.0)), static_cast<double>(in) / n, 0.005) << d;
  }
}

TEST(Pareto, RanksAreTheFrontsPeeledOffOneByOne) {
  // The two-objective sweep and the peeling of three objectives against the
  // definition, on coarse grids (many ties and identical points) and on
  // continuous values.
  // The oracle, by definition: a point's rank is 0 when nothing dominates it,
  // else one more than the highest rank among the points that do (a point
  // that dominates another has the smaller sum, so sums order the work).
  auto by_definition = [](const std::vector<ObjectivePoint>& pts) {
    std::vector<std::size_t> order(pts.size()), rank(pts.size(), 0);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto sum = [&](std::size_t i) { return std::accumulate(pts[i].begin(), pts[i].end(), 0.0); };
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return sum(a) < sum(b); });
    for (std::size_t k = 0; k < order.size(); ++k)
      for (std::size_t q = 0; q < k; ++q)
        if (dominates(pts[order[q]], pts[order[k]]))
          rank[order[k]] = std::max(rank[order[k]], rank[order[q]] + 1);
    return rank;
  };
  std::mt19937_64 rng(11);
  for (int round = 0; round < 60; ++round) {
    const std::size_t dims = round % 6 == 5 ? 3 : 2;
    const int levels = round % 3 == 0 ? 4 : round % 3 == 1 ? 20 : 0;  // 0: continuous
    std::uniform_int_distribution<int> grid(0, std::max(levels - 1, 0));
    std::uniform_real_distribution<double> real(-1, 1);
    std::vector<ObjectivePoint> pts(1 + round * 7);
    for (auto& p : pts)
      for (std::size_t d = 0; d < dims; ++d) p.push_back(levels ? grid(rng) : real(rng));
    ASSERT_EQ(pareto_ranks(pts), by_definition(pts)) << "round " << round << ", " << pts.size() << " points";
  }
  EXPECT_EQ(pareto_ranks({{1, 1}, {1, 1}, {0, 2}, {2, 0}, {2, 2}, {1, 2}}),
            (std::vector<std::size_t>{0, 0, 0, 0, 2, 1}));
  EXPECT_TRUE(pareto_ranks({}).empty());
}

}  // namespace
}  // namespace tune
