// SPDX-License-Identifier: GPL-2.0-or-later
// site_factor/tune's policy: the SITE term from the same study tracker as
// sched/tune, never positive, 0 at level 0, kept for Slurm's recomputes.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>

#include "priority/priority_policy.hpp"
#include "priority/site_factor_policy.hpp"
#include "priority_fixture.hpp"

namespace tune {
namespace {

JobView job(std::uint32_t id, std::uint32_t uid, std::string tenant, JobView::State st, double eligible,
            double base, std::string comment = "") {
  JobView j;
  j.id = id, j.uid = uid, j.tenant = std::move(tenant), j.state = st, j.eligible = eligible;
  j.started = eligible, j.request = {4, 1000, 0}, j.comment = std::move(comment), j.base_priority = base;
  return j;
}

std::string plateau(int n) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "tune:study=s;n=%d;dir=min;top=1,1,1,1,1", n);
  return buf;
}

using testing_support::fast;

constexpr auto P = JobView::State::Pending;
constexpr auto R = JobView::State::Running;

TEST(SiteFactor, TermHalvesThePriorityPerLevelAndIsNeverPositive) {
  SiteFactorPolicy p(fast());
  EXPECT_EQ(p.site_factor(10000, 0), 0);
  EXPECT_EQ(p.site_factor(10000, 1), -5000);
  EXPECT_EQ(p.site_factor(10000, 2), -7500);
  EXPECT_EQ(p.site_factor(0, 3), 0);
  EXPECT_EQ(p.site_factor(-5, 3), 0) << "a negative base (a site term larger than the rest) gets nothing";
  EXPECT_EQ(p.site_factor(4294967295.0, 30), SiteFactorPolicy::kMostNegative)
      << "clamped to what slurmctld stores";
}

TEST(SiteFactor, PlateauedStudysPendingJobsFallBehindOthersUntouched) {
  SiteFactorPolicy p(fast());
  // alice's study is plateaued; bob's plain job waits (contention).
  auto d = p.pass(100, {job(1, 1, "physics", P, 0, 20000, plateau(20)), job(2, 2, "bio", P, 50, 15000)});
  ASSERT_EQ(p.studies().at("1:s").yield.level(), 1);
  ASSERT_TRUE(d[0].site);
  EXPECT_EQ(*d[0].site, -10000);
  EXPECT_LT(20000 + *d[0].site, 15000) << "the plateaued job falls behind";
  EXPECT_FALSE(d[1].site) << "a job of no study is left alone";
  EXPECT_NE(d[0].summary.find("study=s;level=1;site=-10000"), std::string::npos) << d[0].summary;
  EXPECT_EQ(d[0].summary.find("ds="), std::string::npos) << "no fair share of its own under multifactor";
}

TEST(SiteFactor, HostileCommentsNeverRaiseAJob) {
  SiteFactorPolicy p(fast());
  // Improving values, a study that claims progress, garbage: never a positive term.
  for (const char* c :
       {"tune:study=s;n=30;dir=min;top=1,2,3,4,5", "tune:study=s;n=99999999;dir=max;top=9e300",
        "tune:study=../x;n=5;dir=min;top=1", "tune:tenant=x;site=99999", "junk"}) {
    const auto d = p.pass(100, {job(1, 1, "physics", P, 0, 20000, c), job(2, 2, "bio", P, 0, 10)});
    if (d[0].site) EXPECT_LE(*d[0].site, 0) << c;
  }
  // Another user cannot lower (or raise) alice's study by naming it.
  p.pass(200, {job(1, 1, "physics", P, 0, 20000, plateau(20)), job(3, 2, "bio", P, 0, 20000, plateau(20))});
  EXPECT_EQ(p.studies().count("1:s"), 1u);
  EXPECT_EQ(p.studies().count("2:s"), 1u) << "bob's record makes bob's own study, keyed by his uid";
}

TEST(SiteFactor, HeldJobsGetNoTermAndTermsRelaxWhenNobodyWaits) {
  SiteFactorPolicy p(fast());
  auto held = job(1, 1, "physics", P, 0, 20000, plateau(20));
  held.may_set = false;
  auto d = p.pass(100, {held, job(2, 2, "bio", P, 50, 100)});
  EXPECT_FALSE(d[0].site) << "held: left as it is";
  d = p.pass(110, {job(1, 1, "physics", P, 0, 20000, plateau(20))});
  EXPECT_EQ(*d[0].site, -10000);
  d = p.pass(171, {job(1, 1, "physics", P, 0, 20000, plateau(20))});
  EXPECT_EQ(*d[0].site, 0) << "relaxed after relax_time with nobody else waiting";
}

TEST(SiteFactor, SlurmsRecomputeGetsTheSameTermAndNewJobsStartBelow) {
  SiteFactorPolicy p(fast());
  p.pass(100, {job(1, 1, "physics", P, 10, 20000, plateau(20)),
               job(2, 1, "physics", P, 20, 18000, plateau(20)), job(9, 2, "bio", P, 0, 100)});
  EXPECT_EQ(p.site_for(1, 1, plateau(20)), -10000);
  EXPECT_EQ(p.site_for(2, 1, plateau(20)), -9000);
  // Job 3 was submitted since: its study's newest pending job's term.
  EXPECT_EQ(p.site_for(3, 1, plateau(21)), -9000);
  EXPECT_FALSE(p.site_for(4, 2, plateau(21))) << "another user's study of the same name does not yield";
  EXPECT_FALSE(p.site_for(5, 1, "no record"));
}

TEST(SiteFactor, SignalsARunningWholeAllocationStudy) {
  SiteFactorPolicy p(fast());
  auto running = [](int n) { return job(1, 1, "physics", R, 0, 0, plateau(n)); };
  auto waiting = job(2, 2, "bio", P, 100, 500);
  EXPECT_EQ(p.pass(110, {running(20), waiting})[0].signal, 0);  // level 1 < 2
  EXPECT_EQ(p.pass(120, {running(25), waiting})[0].signal, 0);  // bob waited 20 s < 30
  EXPECT_EQ(p.pass(140, {running(30), waiting})[0].signal, SIGUSR1);
}

TEST(SiteFactor, StateSurvivesSaveAndRestoreAndRejectsPositiveTerms) {
  SiteFactorPolicy p(fast());
  p.pass(100, {job(1, 1, "physics", P, 0, 20000, plateau(20)), job(2, 2, "bio", P, 50, 100)});
  SiteFactorPolicy q(fast());
  q.restore(p.save());
  EXPECT_EQ(q.studies().at("1:s").yield.level(), 1);
  EXPECT_EQ(q.site_for(1, 1, plateau(20)), -10000);
  auto bad = p.save();
  bad["given"]["1"] = 5;
  EXPECT_THROW(q.restore(bad), std::runtime_error);
  EXPECT_EQ(q.site_for(1, 1, plateau(20)), -10000) << "a failed restore keeps the state";
  auto sched_state = nlohmann::json{{"version", 1}, {"last_pass", 0}, {"tenants", {}}, {"studies", {}}};
  EXPECT_THROW(q.restore(sched_state), std::runtime_error) << "sched/tune's state is not site_factor/tune's";
}

TEST(SiteFactor, ConfigRefusesTheFairShareGroup) {
  EXPECT_NO_THROW(parse_policy_config("interval = 2; adaptive = { m = 3; };", "s.conf",
                                      priority_policy("site_factor/tune").rules));
  try {
    parse_policy_config("fairshare = { weight = 5; };", "s.conf", priority_policy("site_factor/tune").rules);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.line, 1);
    EXPECT_NE(std::string(e.what()).find("PriorityWeightFairshare"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(parse_policy_config("fairshare = { weight = 5; };", "s.conf"));
}

}  // namespace
}  // namespace tune
