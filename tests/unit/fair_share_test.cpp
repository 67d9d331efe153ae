// SPDX-License-Identifier: GPL-2.0-or-later
// DRF and decayed usage (lib/fairshare), and the priorities of a pass.
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

PolicyConfig quick_config() {
  PolicyConfig c;
  c.fairshare.half_life = 600;
  c.weights = {100000, 10000, 3600};
  return c;
}

JobView pending(std::uint32_t id, std::uint32_t uid, std::string tenant, double eligible,
                Resources r = {4, 1000, 0}) {
  JobView j;
  j.id = id, j.uid = uid, j.tenant = std::move(tenant), j.eligible = eligible, j.request = r;
  return j;
}

TEST(SchedulingPass, TenantThatUsedTheClusterRanksBelowAFreshOne) {
  SchedTunePolicy p(quick_config());
  const Resources cluster{16, 8000, 0};
  JobView run = pending(1, 1001, "alice", 0, cluster);
  run.state = JobView::State::Running, run.started = 1000;
  p.pass(1000, cluster, {run});
  p.pass(1600, cluster, {run});  // alice held everything for 600 s
  const auto d = p.pass(1601, cluster, {pending(2, 1001, "alice", 1590), pending(3, 1002, "bob", 1600)});
  ASSERT_TRUE(d[0].priority && d[1].priority);
  EXPECT_GT(*d[1].priority, *d[0].priority) << "bob (no usage) must come before alice";
  EXPECT_EQ(*d[1].priority, 100000u + 2u);  // factor 1, 1 s of age: 10000 * 1/3600 -> floor
}

TEST(SchedulingPass, SharesScaleTheDominantShare) {
  PolicyConfig c = quick_config();
  c.fairshare.shares = {{"big", 3.0}};
  SchedTunePolicy p(c);
  const Resources cluster{16, 8000, 0};
  JobView a = pending(1, 1, "big", 0, {8, 100, 0}), b = pending(2, 2, "small", 0, {8, 100, 0});
  a.state = b.state = JobView::State::Running;
  p.pass(10, cluster, {a, b});
  p.pass(310, cluster, {a, b});  // equal use for 300 s
  const double big = p.fair_share().dominant_share("big", cluster, 4.0);
  const double small = p.fair_share().dominant_share("small", cluster, 4.0);
  EXPECT_NEAR(small / big, 3.0, 1e-9);
}

TEST(SchedulingPass, PriorityStaysWithinOneAndTheWeights) {
  PolicyConfig c = quick_config();
  c.weights = {1e9 - 1, 1, 1};
  SchedTunePolicy p(c);
  EXPECT_EQ(p.fair_share_priority(0, 1e12), 1000000000u);
  EXPECT_EQ(p.fair_share_priority(1e300, 0), 1u);
  EXPECT_EQ(p.fair_share_priority(INFINITY, -5), 1u);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> ds(0, 50), age(-1e6, 1e9);
  for (int i = 0; i < 10000; ++i) {
    const auto v = p.fair_share_priority(ds(rng), age(rng));
    EXPECT_GE(v, 1u);
    EXPECT_LE(v, 1000000000u);
  }
}

TEST(SchedulingPass, HeldAndAdminSetJobsGetNoPriority) {
  SchedTunePolicy p(quick_config());
  JobView held = pending(1, 1, "a", 0);
  held.may_set = false;
  const auto d = p.pass(100, {16, 8000, 0}, {held, pending(2, 1, "a", 0)});
  EXPECT_FALSE(d[0].priority);
  EXPECT_TRUE(d[1].priority);
  EXPECT_NE(d[0].summary.find("tune:tenant=a"), std::string::npos);
}

TEST(SchedulingPass, StateSurvivesSaveAndRestore) {
  SchedTunePolicy p(quick_config());
  const Resources cluster{16, 8000, 0};
  JobView run = pending(1, 1001, "alice", 0, {8, 4000, 0});
  run.state = JobView::State::Running;
  run.comment = "tune:study=s1;n=20;dir=min;top=1,1,1,1,1";
  p.pass(1000, cluster, {run});
  p.pass(1200, cluster, {run});  // within relax_time: the level stays
  const int level = p.studies().at("1001:s1").yield.level();
  ASSERT_GT(level, 0) << "five equal results: a plateau by every estimator";
  SchedTunePolicy q(quick_config());
  q.restore(nlohmann::json::parse(p.save().dump()));
  EXPECT_DOUBLE_EQ(q.fair_share().dominant_share("alice", cluster, 1),
                   p.fair_share().dominant_share("alice", cluster, 1));
  ASSERT_EQ(q.studies().count("1001:s1"), 1u);
  EXPECT_EQ(q.studies().at("1001:s1").yield.level(), level);
  for (const char* bad :
       {"[]", "{\"version\":2}", "{\"version\":1,\"tenants\":{\"a\":[1,2]},\"studies\":{},\"last_pass\":0}",
        "{\"version\":1,\"tenants\":{},\"studies\":{\"x:y\":{}},\"last_pass\":0}"})
    EXPECT_THROW(q.restore(nlohmann::json::parse(bad)), std::runtime_error) << bad;
  EXPECT_EQ(q.studies().at("1001:s1").yield.level(), level) << "a failed restore keeps the state";
}

TEST(SchedulingPass, SlurmPrioritiesKeepTheOrderAboveWhatPriorityBasicGives) {
  // priority/basic starts new jobs at 0xffff0000 and counts down.
  const double top = 110000;
  EXPECT_EQ(slurm_priority(1, top), kSlurmBandLow);
  EXPECT_EQ(slurm_priority(110000, top), kSlurmBandHigh);
  EXPECT_EQ(slurm_priority(5000000, top), kSlurmBandHigh);  // clamped
  EXPECT_EQ(slurm_priority(0, top), kSlurmBandLow);
  EXPECT_GT(kSlurmBandLow, 0xffff0000u);
  EXPECT_LT(kSlurmBandHigh, 0xfffffffeu);  // NO_VAL, INFINITE
  std::uint32_t last = 0;
  for (std::uint32_t p = 1; p <= 110000; p += 97) {
    const std::uint32_t s = slurm_priority(p, top);
    EXPECT_GE(s, last) << p;
    last = s;
  }
  // A level-8 study (1/256 of the priority) still ranks below a fresh one.
  EXPECT_LT(slurm_priority(100000 / 256, top), slurm_priority(100000, top));
  EXPECT_LT(slurm_priority(1000, top), slurm_priority(2000, top));
}

}  // namespace
}  // namespace tune
