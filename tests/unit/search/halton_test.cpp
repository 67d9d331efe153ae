// SPDX-License-Identifier: GPL-2.0-or-later
// The scrambled Halton sequence (lib/search/halton) the qmc and bayes samplers start from.
#include "search/halton.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <set>

#include "search/bayes_sampler.hpp"
#include "search/cmaes_sampler.hpp"
#include "search/gaussian_process.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {
namespace {

TEST(ScrambledHalton, PointsFillTheCubeAndDependOnTheSeed) {
  const ScrambledHalton a(3, 7), b(3, 7), c(3, 8);
  EXPECT_EQ(a.point(5), b.point(5));
  EXPECT_NE(a.point(5), c.point(5));
  // Low discrepancy: 64 points leave every half of every axis between 24 and 40 points.
  for (int j = 0; j < 3; ++j) {
    int low = 0;
    for (int i = 0; i < 64; ++i) {
      const double v = a.point(i)[j];
      ASSERT_GE(v, 0.0);
      ASSERT_LT(v, 1.0);
      low += v < 0.5;
    }
    EXPECT_GE(low, 24);
    EXPECT_LE(low, 40);
  }
}

}  // namespace
}  // namespace tune
