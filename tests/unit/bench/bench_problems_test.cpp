// SPDX-License-Identifier: GPL-2.0-or-later
// The broad search benchmark's problems (bench/bbob.hpp, bench/problems.hpp):
// each is 0 at its stated minimum and nowhere below it, so a study's regret
// is the true value of its best trial; the noise is the same for every
// sampler at the same seed and trial.
#include <gtest/gtest.h>

#include <random>

#include "bench/problems.hpp"

using namespace tune;

TEST(BenchProblems, EveryBbobFunctionIsZeroAtItsOptimumInsideTheBoxAndNowhereBelow) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-5, 5);
  for (int d : {2, 5, 10})
    for (int fid = 1; fid <= 24; ++fid) {
      const bench::bbob::Function f(fid, d, 1);
      const auto xo = f.optimum();
      SCOPED_TRACE(std::string(bench::bbob::Function::name(fid)) + " in " + std::to_string(d) + "d");
      EXPECT_NEAR(f(xo), 0, 1e-6);
      for (double v : xo) EXPECT_LE(std::fabs(v), 5);
      double lowest = 1e300;
      for (int k = 0; k < 300; ++k) {
        std::vector<double> x(d);
        for (auto& v : x) v = u(rng);
        lowest = std::min(lowest, f(x));
      }
      EXPECT_GT(lowest, f(xo));
    }
  // Instances differ: another instance moves the optimum.
  EXPECT_NE(bench::bbob::Function(1, 5, 1).optimum(), bench::bbob::Function(1, 5, 2).optimum());
}

TEST(BenchProblems, MixedSpacesHaveTheirStatedMinimumAndNoiseIsSharedBySeedAndTrial) {
  const auto all = bench::problems({.dims = {2}, .functions = {1}, .noisy = true, .mixed = true});
  auto find = [&](const std::string& name) {
    for (const auto& p : all)
      if (p.name == name) return p;
    throw std::runtime_error("no problem " + name);
  };
  const auto mlp = find("mlp-mixed"), gbm = find("gbm-mixed"), sphere = find("f1-sphere-2d-noisy");
  const Assignment mlp_best = {1e-3, std::int64_t{128}, std::int64_t{3}, std::string("adam"), 0.25, 1e-4};
  EXPECT_NEAR(mlp.f(mlp_best), 0, 1e-12);
  Assignment worse = mlp_best;
  worse[3] = std::string("sgd");
  EXPECT_GT(mlp.f(worse), 0.1);
  EXPECT_NEAR(gbm.f({0.05, std::int64_t{400}, std::int64_t{6}, 0.8, std::string("gbtree")}), 0, 1e-12);
  // Both spaces parse, and their parameter order matches the functions'.
  EXPECT_EQ(SearchSpace::parse(mlp.space_json).parameters()[3].name, "optimizer");
  EXPECT_EQ(SearchSpace::parse(gbm.space_json).parameters()[4].name, "booster");
  const Assignment x = {1.0, 2.0};
  double truth = -1;
  const double a = bench::observe(sphere, x, 3, 10, &truth);
  EXPECT_EQ(a, bench::observe(sphere, x, 3, 10));
  EXPECT_NE(a, bench::observe(sphere, x, 3, 11));
  EXPECT_NE(a, truth);
  EXPECT_EQ(bench::observe(find("f1-sphere-2d"), x, 3, 10), truth);
}
