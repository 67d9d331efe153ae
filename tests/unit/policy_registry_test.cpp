// SPDX-License-Identifier: GPL-2.0-or-later
// One suite over every registered yield estimator (estimators()) and every
// priority policy (priority_policies()): an entry added to either registry
// is tested here with no test edited. And every kind's registry is well formed.
#include <gtest/gtest.h>

#include <set>

#include "adaptive/yield_level.hpp"
#include "placement/gang_placement.hpp"
#include "priority/priority_policy.hpp"
#include "priority_fixture.hpp"
#include "search/pruner.hpp"
#include "search/sampler.hpp"
#include "simulation/ordering.hpp"

namespace tune {
namespace {

using testing_support::fast;
using testing_support::pending;

ProgressRecord record(std::int64_t n, std::vector<double> top) {
  return {"s", n, true, std::move(top), {}, {}};
}

// A study that stopped improving: its top five the same for 150 results.
ProgressRecord plateau(std::int64_t n) {
  return record(n, {1, 1, 1, 1, 1});
}

class EveryEstimator : public testing::TestWithParam<std::string> {
 protected:
  AdaptiveOptions options() const {
    AdaptiveOptions o;
    o.estimator = estimators().at(GetParam()).name;
    return o;
  }
};

TEST_P(EveryEstimator, LowersAPlateauWithinItsLevels) {
  const AdaptiveOptions o = options();
  YieldLevel y;
  for (std::int64_t n = 1; n <= 150; ++n) {
    y.observe(plateau(n), o);
    ASSERT_GE(y.level(), 0);
    ASSERT_LE(y.level(), o.max_level);
    ASSERT_GT(y.multiplier(o), 0);
    ASSERT_LE(y.multiplier(o), 1) << "a yield level never raises a priority";
  }
  EXPECT_GT(y.level(), 0) << "150 equal results did not lower the study";
}

// Saved mid-study (as the plugin does at every pass) and restored, it goes
// on exactly as the one never saved.
TEST_P(EveryEstimator, ARestoredLevelGoesOnAsTheSavedOne) {
  const AdaptiveOptions o = options();
  YieldLevel live;
  // Improving at first (a new best every third result), then flat.
  auto at = [](std::int64_t n) {
    const double best = n < 60 ? 10.0 / static_cast<double>(1 + n / 3) : 10.0 / 20;
    return record(n, {best, best * 1.01, best * 1.02, best * 1.05, best * 1.1});
  };
  for (std::int64_t n = 1; n <= 70; ++n) live.observe(at(n), o);
  YieldLevel restored = YieldLevel::restore(live.save(), o);
  for (std::int64_t n = 71; n <= 160; ++n) {
    ASSERT_EQ(live.observe(at(n), o), restored.observe(at(n), o)) << "n = " << n;
    ASSERT_EQ(live.level(), restored.level()) << "n = " << n;
    if (n % 20 == 0) live.relax(), restored.relax();
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryEstimator, testing::ValuesIn(estimators().names()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

class EveryPriorityPolicy : public testing::TestWithParam<std::string> {};

std::string safe_name(const testing::TestParamInfo<std::string>& p) {
  std::string n = p.param;
  for (char& c : n)
    if (c == '/') c = '_';
  return n;
}

const Resources kCluster{64, 256000, 8};

std::vector<JobView> jobs(std::int64_t results) {
  return {pending(1, 1, "physics", 20000, format_progress(plateau(results))), pending(2, 2, "bio", 15000),
          pending(3, 1, "physics", 18000)};
}

// A plateaued study's job never gets more than the same job without its
// record: a higher priority, or a positive SITE term.
TEST_P(EveryPriorityPolicy, NeverRaisesAStudysPriority) {
  auto lowered = make_priority_policy(GetParam(), fast()), plain = make_priority_policy(GetParam(), fast());
  auto without = jobs(0);
  without[0].comment.clear();
  for (int pass = 0; pass < 5; ++pass) {
    const double now = 100 + 60.0 * pass;
    const auto d = lowered->pass(now, kCluster, jobs(20 + 10 * pass));
    const auto p = plain->pass(now, kCluster, without);
    ASSERT_EQ(d.size(), 3u);
    ASSERT_EQ(p.size(), 3u);
    if (d[0].priority) {
      ASSERT_TRUE(p[0].priority);
      EXPECT_LE(*d[0].priority, *p[0].priority) << "pass " << pass;
    }
    if (d[0].site) {
      EXPECT_LE(*d[0].site, 0) << "pass " << pass;
    }
    for (const auto& one : d) EXPECT_EQ(one.signal, 0) << "nothing runs: no job is asked to yield";
  }
}

// State saved by one slurmctld and restored by the next: the next pass
// decides as the uninterrupted policy does.
TEST_P(EveryPriorityPolicy, ARestoredPolicyDecidesAsTheSavedOne) {
  auto live = make_priority_policy(GetParam(), fast());
  for (int pass = 0; pass < 4; ++pass) live->pass(100 + 60.0 * pass, kCluster, jobs(20 + 10 * pass));
  auto restored = make_priority_policy(GetParam(), fast());
  restored->restore(live->save());
  EXPECT_EQ(restored->save(), live->save());
  const auto a = live->pass(400, kCluster, jobs(70)), b = restored->pass(400, kCluster, jobs(70));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].priority, b[i].priority) << "job " << a[i].id;
    EXPECT_EQ(a[i].site, b[i].site) << "job " << a[i].id;
    EXPECT_EQ(a[i].summary, b[i].summary) << "job " << a[i].id;
  }
}

TEST_P(EveryPriorityPolicy, RefusesAnotherPolicysState) {
  auto mine = make_priority_policy(GetParam(), fast());
  for (const auto& other : priority_policies().names()) {
    if (other == GetParam()) continue;
    auto theirs = make_priority_policy(other, fast());
    theirs->pass(100, kCluster, jobs(20));
    EXPECT_THROW(mine->restore(theirs->save()), std::runtime_error) << other << "'s state";
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryPriorityPolicy, testing::ValuesIn(priority_policies().names()),
                         safe_name);

// Every kind's registry: names and aliases unique, each described.
template <class R>
void expect_well_formed(const R& registry) {
  std::set<std::string> names;
  for (const auto& e : registry.entries()) {
    EXPECT_TRUE(names.insert(e.name).second) << registry.kind() << " " << e.name;
    for (const auto& a : e.aliases) EXPECT_TRUE(names.insert(a).second) << registry.kind() << " " << a;
    EXPECT_FALSE(e.description.empty()) << registry.kind() << " " << e.name;
  }
  try {
    registry.at("no-such-policy");
    ADD_FAILURE() << registry.kind();
  } catch (const UnknownName& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown " + registry.kind() + " 'no-such-policy'; choose one of: " + registry.choices());
  }
}

TEST(Registries, EveryKindIsWellFormed) {
  expect_well_formed(samplers());
  expect_well_formed(pruners());
  expect_well_formed(placements());
  expect_well_formed(estimators());
  expect_well_formed(priority_policies());
  expect_well_formed(sim::ordering_policies());
}

}  // namespace
}  // namespace tune
