// SPDX-License-Identifier: GPL-2.0-or-later
// The adaptive priority by name (lib/priority/priority_policy): the one list
// both plugins and tune simulate make their policy from, and the one
// interface they drive it through.
#include "priority/priority_policy.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>

#include "priority/sched_tune_policy.hpp"
#include "priority/site_factor_policy.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

using testing_support::fast;
using testing_support::pending;

TEST(PriorityPolicies, EachPluginsPolicyByNameWithItsConfigurationFile) {
  ASSERT_EQ(priority_policies().entries().size(), 2u);
  EXPECT_TRUE(priority_policy("sched/tune").rules.fairshare);
  EXPECT_FALSE(priority_policy("site_factor/tune").rules.fairshare);
  EXPECT_NE(dynamic_cast<SchedTunePolicy*>(make_priority_policy("sched/tune", fast()).get()), nullptr);
  EXPECT_NE(dynamic_cast<SiteFactorPolicy*>(make_priority_policy("site_factor/tune", fast()).get()), nullptr);
  try {
    make_priority_policy("priority/tune", fast());
    FAIL() << "an unknown name was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown tune priority plugin 'priority/tune'; choose one of: sched/tune, site_factor/tune");
  }
}

TEST(PriorityPolicies, ThroughTheInterfaceAPlateauedStudyFallsBehindUnderBoth) {
  const std::string plateau = "tune:study=s;n=20;dir=min;top=1,1,1,1,1";
  const std::vector<JobView> jobs = {pending(1, 1, "physics", 20000, plateau), pending(2, 2, "bio", 15000)};
  for (const auto& spec : priority_policies().entries()) {
    SCOPED_TRACE(spec.name);
    const std::unique_ptr<PriorityPolicy> p = spec.make(fast());
    const auto d = p->pass(100, {64, 256000, 8}, jobs);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].id, 1u);
    EXPECT_EQ(p->studies().at("1:s").yield.level(), 1);
    ASSERT_EQ(p->changes().size(), 1u);
    EXPECT_EQ(p->changes()[0].to, 1);
    if (spec.name == "sched/tune") {
      // Its own priorities, for every settable job; no SITE terms.
      ASSERT_TRUE(d[0].priority && d[1].priority);
      EXPECT_LT(*d[0].priority, *d[1].priority);
      EXPECT_FALSE(d[0].site || d[1].site);
      EXPECT_GT(p->max_points(), 0);
      EXPECT_FALSE(p->site_for(3, 1, plateau));
    } else {
      // A SITE term on the study's job only; multifactor keeps the priorities.
      ASSERT_TRUE(d[0].site);
      EXPECT_LT(20000 + *d[0].site, 15000);
      EXPECT_FALSE(d[1].site);
      EXPECT_FALSE(d[0].priority || d[1].priority);
      EXPECT_EQ(p->max_points(), 0);
      EXPECT_TRUE(p->site_for(3, 1, plateau)) << "a new job of the yielding study starts with its term";
    }
    // Its state survives a save and restore through the interface.
    const auto saved = p->save();
    const std::unique_ptr<PriorityPolicy> q = spec.make(fast());
    q->restore(saved);
    EXPECT_EQ(q->studies().at("1:s").yield.level(), 1);
  }
}

}  // namespace
}  // namespace tune
