// SPDX-License-Identifier: GPL-2.0-or-later
// site_factor/tune's policy: the SITE term from the same study tracker as
// sched/tune, never positive, 0 at level 0, kept for Slurm's recomputes; a
// yielding study's jobs below every other waiting job (the band) or at a
// fraction of their priority.
#include "priority/site_factor_policy.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>

#include "priority/priority_policy.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

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

PolicyConfig fraction() {
  PolicyConfig c = fast();
  c.lowering = SiteLowering::Fraction;
  return c;
}

constexpr auto P = JobView::State::Pending;
constexpr auto R = JobView::State::Running;

TEST(SiteFactor, FractionHalvesThePriorityPerLevelAndIsNeverPositive) {
  SiteFactorPolicy p(fraction());
  EXPECT_EQ(p.site_factor(10000, 0), 0);
  EXPECT_EQ(p.site_factor(10000, 1), -5000);
  EXPECT_EQ(p.site_factor(10000, 2), -7500);
  EXPECT_EQ(p.site_factor(0, 3), 0);
  EXPECT_EQ(p.site_factor(-5, 3), 0) << "a negative base (a site term larger than the rest) gets nothing";
  EXPECT_EQ(p.site_factor(4294967295.0, 30), SiteFactorPolicy::kMostNegative)
      << "clamped to what slurmctld stores";
}

TEST(SiteFactor, BandIsMaxLevelPlusOneLessTheLevelAndBelowEveryOtherWaitingJob) {
  SiteFactorPolicy p(fast());
  ASSERT_EQ(fast().adaptive.max_level, 8);
  EXPECT_EQ(p.site_factor(10000, 0), 0);
  EXPECT_EQ(p.site_factor(10000, 1), -(10000 - 8));
  EXPECT_EQ(p.site_factor(10000, 8), -(10000 - 1));
  EXPECT_EQ(p.site_factor(10000, 30), -(10000 - 1)) << "never below Slurm's floor of 1";
  EXPECT_EQ(p.site_factor(10000, 1, 5.0), -(10000 - 4)) << "below a waiting job at 5";
  EXPECT_EQ(p.site_factor(10000, 1, 1.0), -(10000 - 1)) << "a job at 1 can only be tied";
  EXPECT_EQ(p.site_factor(6, 1), 0) << "already below the band: never raised";
  EXPECT_EQ(p.site_factor(0, 3), 0);
}

TEST(SiteFactor, PlateauedStudysPendingJobsFallBehindOthersUntouched) {
  SiteFactorPolicy p(fast());
  // alice's study is plateaued and its account's fair share is high (it has
  // been held back); bob's plain job waits with less (contention).
  auto d = p.pass(100, {job(1, 1, "physics", P, 0, 20000, plateau(20)), job(2, 2, "bio", P, 50, 15000)});
  ASSERT_EQ(p.studies().at("1:s").yield.level(), 1);
  ASSERT_TRUE(d[0].site);
  EXPECT_EQ(*d[0].site, -(20000 - 8));
  EXPECT_LT(20000 + *d[0].site, 15000) << "the plateaued job falls behind";
  EXPECT_FALSE(d[1].site) << "a job of no study is left alone";
  EXPECT_NE(d[0].summary.find("study=s;level=1;site=-19992"), std::string::npos) << d[0].summary;
  EXPECT_EQ(d[0].summary.find("ds="), std::string::npos) << "no fair share of its own under multifactor";
}

TEST(SiteFactor, FairShareCannotLiftAYieldingJobOverAnImprovingOne) {
  // Whatever the weights: bob's improving study has used the cluster (its
  // priority 40), alice's yielding one has not (60000): as a fraction at
  // level 1 alice's job stays on top; in the band it goes below.
  const std::vector<JobView> jobs{job(1, 1, "physics", P, 0, 60000, plateau(20)),
                                  job(2, 2, "bio", P, 0, 40, "tune:study=t;n=20;dir=min;top=1,2,3,4,5")};
  SiteFactorPolicy f(fraction()), b(fast());
  const auto df = f.pass(100, jobs), db = b.pass(100, jobs);
  ASSERT_EQ(f.studies().at("1:s").yield.level(), 1);
  ASSERT_EQ(f.studies().at("2:t").yield.level(), 0);
  EXPECT_GT(60000 + *df[0].site, 40) << "fair share outweighs the fraction";
  EXPECT_EQ(60000 + *db[0].site, 8) << "the band: max_level + 1 - level";
  EXPECT_EQ(*db[1].site, 0) << "the improving study is not lowered";
  // With bob's job at 5, alice's goes to 4.
  const auto low = b.pass(110, {jobs[0], job(2, 2, "bio", P, 0, 5, jobs[1].comment)});
  EXPECT_EQ(60000 + *low[0].site, 4);
}

TEST(SiteFactor, AStudyGainsNoFairShareFromHavingYielded) {
  SiteFactorPolicy p(fast());
  auto with_share = [](JobView j, double fs) {
    j.fairshare = fs;
    return j;
  };
  const std::string flat = plateau(20);
  // alice's study yields while its fair-share term is 3000 ...
  p.pass(100, {with_share(job(1, 1, "physics", P, 0, 3000, flat), 3000), job(2, 2, "bio", P, 0, 5000)});
  ASSERT_EQ(p.studies().at("1:s").yield.level(), 1);
  // ... it waits, its account's usage decays (fair-share term 9000), and its
  // level relaxes (nobody else waits): its jobs keep the fair share it had,
  // not the credit, now that bob's job is back.
  p.pass(200, {with_share(job(1, 1, "physics", P, 0, 9000, flat), 9000)});
  ASSERT_EQ(p.studies().at("1:s").yield.level(), 0);
  auto d =
      p.pass(201, {with_share(job(1, 1, "physics", P, 0, 9000, flat), 9000), job(2, 2, "bio", P, 0, 5000)});
  ASSERT_EQ(p.studies().at("1:s").yield.level(), 0);
  EXPECT_EQ(*d[0].site, -6000) << "9000 - 3000 of fair share gained by waiting";
  EXPECT_EQ(p.site_for(7, 1, plateau(21)), -6000)
      << "a job submitted since gets the same until the next pass";
  // The cap survives a restart.
  SiteFactorPolicy q(fast());
  q.restore(p.save());
  d = q.pass(210, {with_share(job(1, 1, "physics", P, 0, 8000, flat), 8000), job(2, 2, "bio", P, 0, 5000)});
  EXPECT_EQ(*d[0].site, -5000);
  // Once it has run and its fair share is back below, it owes nothing more.
  d = q.pass(215, {with_share(job(1, 1, "physics", P, 0, 2500, flat), 2500), job(2, 2, "bio", P, 0, 5000)});
  EXPECT_EQ(*d[0].site, 0);
  d = q.pass(220, {with_share(job(1, 1, "physics", P, 0, 9000, flat), 9000), job(2, 2, "bio", P, 0, 5000)});
  EXPECT_EQ(*d[0].site, 0) << "the cap is gone";
  auto bad = p.save();
  bad["held_share"]["1:s"] = -1;
  EXPECT_THROW(q.restore(bad), std::runtime_error);
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
  EXPECT_EQ(*d[0].site, -(20000 - 8));
  d = p.pass(171, {job(1, 1, "physics", P, 0, 20000, plateau(20))});
  EXPECT_EQ(*d[0].site, 0) << "relaxed after relax_time with nobody else waiting";
}

TEST(SiteFactor, SlurmsRecomputeGetsTheSameTermAndNewJobsStartBelow) {
  SiteFactorPolicy p(fraction());
  p.pass(100, {job(1, 1, "physics", P, 10, 20000, plateau(20)),
               job(2, 1, "physics", P, 20, 18000, plateau(20)), job(9, 2, "bio", P, 0, 100)});
  EXPECT_EQ(p.site_for(1, 1, plateau(20)), -10000);
  EXPECT_EQ(p.site_for(2, 1, plateau(20)), -9000);
  // Job 3 was submitted since: its study's newest pending job's term.
  EXPECT_EQ(p.site_for(3, 1, plateau(21)), -9000);
  EXPECT_FALSE(p.site_for(4, 2, plateau(21))) << "another user's study of the same name does not yield";
  EXPECT_FALSE(p.site_for(5, 1, "no record"));
}

TEST(SiteFactor, InTheBandAJobSubmittedBetweenPassesWaitsAtTheBottom) {
  SiteFactorPolicy p(fast());
  // The study has no pending job at the pass: its next trial job, submitted
  // the moment one ends, must not start above bob's before the next pass.
  p.pass(100, {job(1, 1, "physics", R, 10, 0, plateau(20)), job(9, 2, "bio", P, 0, 100)});
  ASSERT_EQ(p.studies().at("1:s").yield.level(), 1);
  EXPECT_EQ(p.site_for(3, 1, plateau(21)), SiteFactorPolicy::kMostNegative);
  EXPECT_FALSE(p.site_for(4, 2, plateau(21))) << "another user's study of the same name does not yield";
  EXPECT_FALSE(p.site_for(9, 2, "")) << "a job of no study";
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
  SiteFactorPolicy p(fraction());
  p.pass(100, {job(1, 1, "physics", P, 0, 20000, plateau(20)), job(2, 2, "bio", P, 50, 100)});
  SiteFactorPolicy q(fraction());
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

TEST(SiteFactor, ConfigReadsTheLoweringAndSchedTuneRefusesIt) {
  const auto& rules = priority_policy("site_factor/tune").rules;
  EXPECT_EQ(parse_policy_config("", "s.conf", rules).lowering, SiteLowering::Band);
  EXPECT_EQ(parse_policy_config("lowering = \"fraction\";", "s.conf", rules).lowering,
            SiteLowering::Fraction);
  EXPECT_EQ(parse_policy_config("lowering = \"band\";", "s.conf", rules).lowering, SiteLowering::Band);
  for (const char* bad : {"lowering = \"bottom\";", "lowering = 1;"}) {
    try {
      parse_policy_config(bad, "s.conf", rules);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.line, 1);
      EXPECT_NE(std::string(e.what()).find("lowering"), std::string::npos) << e.what();
    }
  }
  try {
    parse_policy_config("lowering = \"band\";", "t.conf");
    ADD_FAILURE() << "sched/tune accepted lowering";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("site_factor/tune only"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tune
