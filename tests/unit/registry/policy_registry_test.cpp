// SPDX-License-Identifier: GPL-2.0-or-later
// One suite over every registered yield estimator (estimators()) and every
// priority policy (priority_policies()): an entry added to either registry
// is tested here with no test edited. And every kind's registry is well formed.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "estimators/yield_level.hpp"
#include "placement/placements.hpp"
#include "priority/priority_policy.hpp"
#include "search/pruner.hpp"
#include "search/sampler.hpp"
#include "search/sampler_registry.hpp"
#include "simulation/ordering.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

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
    o.use(GetParam());
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
  YieldLevel restored = YieldLevel::restore(live.save(o), o);
  for (std::int64_t n = 71; n <= 160; ++n) {
    ASSERT_EQ(live.observe(at(n), o), restored.observe(at(n), o)) << "n = " << n;
    ASSERT_EQ(live.level(), restored.level()) << "n = " << n;
    if (n % 20 == 0) live.relax(), restored.relax();
  }
}

// Its settings are read from sched_tune.conf's adaptive group by their
// paths, at both ends of their ranges, and a value out of range is refused
// on its line.
TEST_P(EveryEstimator, ReadsItsOwnSettingsFromTheAdaptiveGroup) {
  for (const auto& owned : AdaptiveOptions().estimator_settings()) {
    if (owned.estimator != estimators().at(GetParam()).name) continue;
    const auto& s = owned.setting;
    const auto dot = s.path.find('.');
    auto conf = [&](double v) {
      std::ostringstream value;
      value.precision(17);
      value << v;
      if (!s.whole && value.str().find_first_of(".e") == std::string::npos) value << ".0";
      const std::string leaf = dot == std::string::npos ? s.path : s.path.substr(dot + 1);
      const std::string setting = leaf + " = " + value.str() + ";";
      return "adaptive = {\n estimator = \"" + GetParam() + "\";\n" +
             (dot == std::string::npos ? setting : s.path.substr(0, dot) + " = { " + setting + " };") +
             "\n};";
    };
    for (double v : {s.lo, s.hi}) {
      const auto c = parse_policy_config(conf(v), "x.conf");
      EXPECT_EQ(c.adaptive.estimator(), estimators().at(GetParam()).name);
      EXPECT_DOUBLE_EQ(c.adaptive.setting(s.path), v) << s.path;
    }
    EXPECT_GE(s.value, s.lo) << s.path << ": its default in its range";
    EXPECT_LE(s.value, s.hi) << s.path;
    EXPECT_FALSE(s.doc.empty()) << s.path << " is described for sched_tune.conf(5)";
    try {
      parse_policy_config(conf(s.hi + 1), "x.conf");
      ADD_FAILURE() << s.path << " above its range accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.line, 3) << e.what();
      EXPECT_NE(std::string(e.what()).find(s.path), std::string::npos) << e.what();
    }
  }
}

// State another estimator saved (an admin switched estimators), hostile
// numbers and wrong types: restored within the options, or refused with a
// runtime_error, never a crash or a level out of range.
TEST_P(EveryEstimator, RestoresAnyStateWithinItsOptions) {
  const AdaptiveOptions mine = options();
  for (const auto& other : estimators().names()) {
    AdaptiveOptions theirs;
    theirs.use(other);
    YieldLevel y;
    for (std::int64_t n = 1; n <= 40; ++n) y.observe(plateau(n), theirs);
    YieldLevel back = YieldLevel::restore(y.save(theirs), mine);
    EXPECT_LE(back.level(), mine.max_level) << other << "'s state";
    EXPECT_EQ(back.trials_seen(), 40) << other << "'s state";
    back.observe(plateau(41), mine);
  }
  YieldLevel y;
  for (std::int64_t n = 1; n <= 40; ++n) y.observe(plateau(n), mine);
  nlohmann::json hostile = y.save(mine);
  for (auto& [key, v] : hostile.items())
    if (v.is_number()) v = key == "last_n" ? 40 : 1e18;
  hostile["level"] = -5;
  const YieldLevel back = YieldLevel::restore(hostile, mine);
  EXPECT_GE(back.level(), 0);
  EXPECT_LE(back.level(), mine.max_level);
  const nlohmann::json saved = y.save(mine);
  for (const auto& [key, v] : saved.items()) {
    nlohmann::json wrong = saved;
    wrong[key] = "high";
    EXPECT_THROW(YieldLevel::restore(wrong, mine), std::runtime_error) << key;
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
// record: a higher priority, or a positive SITE term; under every
// estimator.
class EveryPolicyAndEstimator : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(EveryPolicyAndEstimator, NeverRaisesAStudysPriority) {
  PolicyConfig c = fast();
  c.adaptive.use(std::get<1>(GetParam()));
  auto lowered = make_priority_policy(std::get<0>(GetParam()), c),
       plain = make_priority_policy(std::get<0>(GetParam()), c);
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

INSTANTIATE_TEST_SUITE_P(Registry, EveryPolicyAndEstimator,
                         testing::Combine(testing::ValuesIn(priority_policies().names()),
                                          testing::ValuesIn(estimators().names())),
                         [](const testing::TestParamInfo<std::tuple<std::string, std::string>>& p) {
                           std::string n = std::get<0>(p.param) + "_" + std::get<1>(p.param);
                           for (char& c : n)
                             if (c == '/') c = '_';
                           return n;
                         });

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
