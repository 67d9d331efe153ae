// SPDX-License-Identifier: GPL-2.0-or-later
// Dominant-resource fair share and decayed usage (lib/fairshare/fair_share).
#include "fairshare/fair_share.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "priority/sched_tune_policy.hpp"

namespace tune {
namespace {

// Progressive filling as sched/tune orders it: the next task goes to the
// tenant with the lowest dominant share whose task still fits.
std::map<std::string, int> drf_fill(const Resources& capacity, const std::map<std::string, Resources>& task) {
  std::map<std::string, Resources> held;
  std::map<std::string, int> tasks;
  Resources free = capacity;
  for (;;) {
    std::string pick;
    double lowest = INFINITY;
    for (const auto& [t, demand] : task) {
      const double d = dominant_share(held[t], capacity);
      if (demand.fits_in(free) && d < lowest) lowest = d, pick = t;
    }
    if (pick.empty()) return tasks;
    held[pick] += task.at(pick);
    free += task.at(pick) * -1.0;
    ++tasks[pick];
  }
}

TEST(FairShare, GhodsiExampleGivesAThreeTasksAndBTwo) {
  // DRF paper, section 4: 9 CPUs, 18 GB; A's tasks <1 CPU, 4 GB>, B's <3 CPU, 1 GB>.
  const Resources cluster{9, 18 * 1024.0, 0};
  const auto tasks = drf_fill(cluster, {{"A", {1, 4 * 1024.0, 0}}, {"B", {3, 1 * 1024.0, 0}}});
  EXPECT_EQ(tasks.at("A"), 3);
  EXPECT_EQ(tasks.at("B"), 2);
  // Equal dominant shares of 2/3: A's memory 12/18, B's CPUs 6/9.
  EXPECT_DOUBLE_EQ(dominant_share({3, 12 * 1024.0, 0}, cluster), 2.0 / 3);
  EXPECT_DOUBLE_EQ(dominant_share({6, 2 * 1024.0, 0}, cluster), 2.0 / 3);
}

TEST(FairShare, DominantShareIgnoresAbsentResourcesAndDividesByShare) {
  EXPECT_DOUBLE_EQ(dominant_share({2, 100, 3}, {8, 1000, 0}), 0.25);  // no GPUs in the cluster
  EXPECT_DOUBLE_EQ(dominant_share({2, 100, 3}, {8, 1000, 4}), 0.75);  // GPUs dominate
  EXPECT_DOUBLE_EQ(dominant_share({2, 100, 3}, {8, 1000, 4}, 0.5), 1.5);
}

TEST(FairShare, UsageHalvesEveryHalfLife) {
  DecayedUsage u;
  u.charge({4, 1000, 1}, 100);  // 400 CPU-s, 100,000 MB-s, 100 GPU-s
  u.decay(3600, 3600);
  EXPECT_DOUBLE_EQ(u.resource_seconds().cpus, 200);
  u.decay(7200, 3600);
  EXPECT_DOUBLE_EQ(u.resource_seconds().cpus, 50);
  EXPECT_DOUBLE_EQ(u.resource_seconds().mem_mb, 12500);
  EXPECT_DOUBLE_EQ(u.resource_seconds().gpus, 12.5);
  u.decay(0, 3600);  // no time, no decay
  EXPECT_DOUBLE_EQ(u.resource_seconds().cpus, 50);
}

TEST(FairShare, SteadyUseOfTheWholeClusterConvergesToDominantShareOne) {
  FairShareOptions o;
  o.half_life = 600;
  FairShare fs(o);
  const Resources cluster{16, 8000, 4};
  for (int step = 0; step < 20000; ++step) {  // 20,000 s in 1 s steps
    fs.decay(1);
    fs.charge("a", cluster, 1);
  }
  EXPECT_NEAR(fs.dominant_share("a", cluster, 1.0), 1.0, 0.01);
  EXPECT_DOUBLE_EQ(FairShare::factor(0), 1.0);
  EXPECT_DOUBLE_EQ(FairShare::factor(1), 0.5);
}

}  // namespace
}  // namespace tune
