// SPDX-License-Identifier: GPL-2.0-or-later
// sched/tune's pass over pending jobs (lib/priority/sched_tune_policy): the
// priorities of fair share and the adaptive level, and that a pass is
// strategy-proof.
#include "priority/sched_tune_policy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <limits>
#include <random>

#include "estimators/progress_record.hpp"
#include "estimators/study_progress.hpp"
#include "estimators/yield_level.hpp"
#include "fairshare/fair_share.hpp"
#include "priority/job_summary.hpp"
#include "priority/policy_config.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

JobView job(std::uint32_t id, std::uint32_t uid, std::string tenant, JobView::State st, double eligible,
            std::string comment = "") {
  JobView j;
  j.id = id, j.uid = uid, j.tenant = std::move(tenant), j.state = st, j.eligible = eligible;
  j.started = eligible, j.request = {4, 1000, 0}, j.comment = std::move(comment);
  return j;
}

using testing_support::fast;

const Resources kCluster{16, 8000, 0};
const char* kPlateau = "tune:study=s;n=%d;dir=min;top=1,1,1,1,1";

std::string plateau(int n) {
  char buf[80];
  std::snprintf(buf, sizeof buf, kPlateau, n);
  return buf;
}

TEST(SchedulingPass, PlateauedStudysPendingJobFallsBehindAndRelaxesWhenNobodyWaits) {
  SchedTunePolicy p(fast());
  // bob's pending job is waiting: contention.
  auto d = p.pass(100, kCluster,
                  {job(1, 1, "alice", JobView::State::Pending, 0, plateau(20)),
                   job(2, 2, "bob", JobView::State::Pending, 50)});
  EXPECT_EQ(p.studies().at("1:s").yield.level(), 1);
  EXPECT_LT(*d[0].priority, *d[1].priority);
  d = p.pass(110, kCluster, {job(1, 1, "alice", JobView::State::Pending, 0, plateau(30))});
  EXPECT_EQ(p.studies().at("1:s").yield.level(), 2);
  // Nobody else waits from t = 110 on: one level per relax_time (60 s).
  p.pass(169, kCluster, {job(1, 1, "alice", JobView::State::Pending, 0, plateau(30))});
  EXPECT_EQ(p.studies().at("1:s").yield.level(), 2);
  p.pass(171, kCluster, {job(1, 1, "alice", JobView::State::Pending, 0, plateau(30))});
  EXPECT_EQ(p.studies().at("1:s").yield.level(), 1);
  p.pass(232, kCluster, {job(1, 1, "alice", JobView::State::Pending, 0, plateau(30))});
  EXPECT_EQ(p.studies().at("1:s").yield.level(), 0);
}

TEST(SchedulingPass, YieldSignalsARunningPlateauedStudyOnceOthersWaitedWithCooldown) {
  SchedTunePolicy p(fast());
  auto running = [](int n) { return job(1, 1, "alice", JobView::State::Running, 0, plateau(n)); };
  auto waiting = job(2, 2, "bob", JobView::State::Pending, 100);
  EXPECT_EQ(p.pass(110, kCluster, {running(20), waiting})[0].signal, 0);  // level 1 < 2
  EXPECT_EQ(p.pass(120, kCluster, {running(30), waiting})[0].signal, 0);  // level 2, bob waited 20 s < 30
  EXPECT_EQ(p.pass(131, kCluster, {running(30), waiting})[0].signal, SIGUSR1);
  EXPECT_EQ(p.pass(140, kCluster, {running(30), waiting})[0].signal, 0) << "cooldown";
  EXPECT_EQ(p.pass(232, kCluster, {running(30), waiting})[0].signal, 0)
      << "past the cooldown but no result since the last yield: its trial would be cut again";
  EXPECT_EQ(p.pass(240, kCluster, {running(31), waiting})[0].signal, SIGUSR1);
  // The state keeps it across a slurmctld restart.
  SchedTunePolicy r(fast());
  r.restore(p.save());
  EXPECT_EQ(r.pass(400, kCluster, {running(31), waiting})[0].signal, 0);
  EXPECT_EQ(r.pass(410, kCluster, {running(32), waiting})[0].signal, SIGUSR1);
  // The same tenant's own waiting job is no reason to yield.
  SchedTunePolicy q(fast());
  auto own = job(3, 1, "alice", JobView::State::Pending, 0);
  q.pass(110, kCluster, {running(20), own});
  q.pass(120, kCluster, {running(30), own});
  EXPECT_EQ(q.pass(500, kCluster, {running(30), own})[0].signal, 0);
}

TEST(SchedulingPass, TrialJobsOfAPlateauedStudyFallBehindButAreNeverSignalled) {
  SchedTunePolicy p(fast());
  auto as = [](std::uint32_t id, JobView::State st, int n, const char* role) {
    std::string c = plateau(n);
    return job(id, 1, "alice", st, 0, c + role);
  };
  auto waiting = job(9, 2, "bob", JobView::State::Pending, 100);
  int n = 20;  // the AppCore's results grow; each job carries the record of its time
  for (double now : {110.0, 120.0, 131.0, 232.0}) {
    n += 10;
    const auto d = p.pass(now, kCluster,
                          {as(1, JobView::State::Running, n, ";role=appcore"),
                           as(2, JobView::State::Running, n - 10, ";role=trial"),
                           as(3, JobView::State::Pending, n, ";role=trial"), waiting});
    EXPECT_EQ(d[0].signal, 0) << "the AppCore of trial jobs never yields by signal (t=" << now << ")";
    EXPECT_EQ(d[1].signal, 0) << "a running trial job finishes its trial (t=" << now << ")";
    ASSERT_TRUE(d[2].priority && d[3].priority);
    EXPECT_LT(*d[2].priority, *d[3].priority) << "the plateaued study's pending trial job falls behind bob's";
  }
  EXPECT_GE(p.studies().at("1:s").yield.level(), 2) << "one study, whichever of its jobs carried the record; "
                                                       "a whole study would be signalled at this level";
}

TEST(SchedulingPass, StudyStateIsPerUserAndKey) {
  SchedTunePolicy p(fast());
  p.pass(100, kCluster,
         {job(1, 1, "alice", JobView::State::Running, 0, plateau(20)),
          job(2, 2, "bob", JobView::State::Pending, 0, plateau(40))});
  EXPECT_EQ(p.studies().at("1:s").yield.level(), 1);
  EXPECT_EQ(p.studies().at("2:s").yield.level(), 1);
  // A requeued alice job with the same record inherits level 1 and adds nothing.
  p.pass(110, kCluster, {job(3, 1, "alice", JobView::State::Pending, 105, plateau(20))});
  EXPECT_EQ(p.studies().at("1:s").yield.level(), 1);
}

// Strategy-proof: whatever a job's owner writes in its Comment, the job's
// priority is never above the priority the same job gets with no Comment.
std::string hostile(std::mt19937_64& rng) {
  static const std::vector<std::string> pieces = {"tune:",
                                                  "study=",
                                                  "s",
                                                  "x",
                                                  ";",
                                                  "n=",
                                                  "dir=min",
                                                  "dir=max",
                                                  "top=",
                                                  "1",
                                                  "-1",
                                                  "0.5",
                                                  "nan",
                                                  "inf",
                                                  "1e308",
                                                  "-1e308",
                                                  "99999999999",
                                                  ",",
                                                  "=",
                                                  " ",
                                                  "\n",
                                                  "\xff",
                                                  std::string(1, '\0'),
                                                  "tune:study=s;n=50;dir=min;top=1,1,1,1,1",
                                                  "tune:study=s;n=50;dir=max;top=9,8,7,6,5",
                                                  ";tgt=",
                                                  ";tgt=1e300",
                                                  ";left=0",
                                                  ";left=1000000000",
                                                  "0.9",
                                                  "tune:study=s;n=50;dir=max;top=0.9,0.9,0.9;tgt=0.5;left=99",
                                                  "tune:study=s;n=50;dir=min;top=1,2,3;tgt=-1e308;left=0",
                                                  "level=0",
                                                  "prio=4294967295",
                                                  std::string(300, 'a')};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1), len(0, 24);
  std::string out;
  for (std::size_t i = 0, n = len(rng); i < n; ++i) out += pieces[pick(rng)];
  if (!out.empty() && rng() % 4 == 0)  // and flip random bytes
    for (int i = 0; i < 8; ++i) out[rng() % out.size()] = static_cast<char>(rng() % 256);
  return out.substr(0, 1024);
}

TEST(SchedulingPass, NoCommentEverRaisesAJobsPriority) {
  std::mt19937_64 rng(2026);
  for (int round = 0; round < 600; ++round) {
    PolicyConfig c = fast();
    const auto names = estimators().names();  // every estimator in turn
    c.adaptive.use(names[static_cast<std::size_t>(round) % names.size()]);
    SchedTunePolicy with(c), without(c);
    std::vector<JobView> a, b;
    const int jobs = 2 + static_cast<int>(rng() % 8);
    for (int i = 0; i < jobs; ++i) {
      const auto uid = static_cast<std::uint32_t>(1 + rng() % 3);
      const auto st = rng() % 3 ? JobView::State::Pending : JobView::State::Running;
      JobView j = job(static_cast<std::uint32_t>(i + 1), uid, "t" + std::to_string(uid), st,
                      static_cast<double>(rng() % 100));
      b.push_back(j);
      j.comment = hostile(rng);
      a.push_back(j);
    }
    // Several passes, so that studies accumulate levels and usage differs by time.
    for (int pass = 0; pass < 4; ++pass) {
      const double now = 100 + pass * 40;
      for (auto& j : a)
        if (rng() % 2) j.comment = hostile(rng);
      const auto da = with.pass(now, kCluster, a), db = without.pass(now, kCluster, b);
      for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(da[i].priority.has_value(), db[i].priority.has_value());
        if (da[i].priority) {
          ASSERT_LE(*da[i].priority, *db[i].priority) << "comment: " << a[i].comment;
          ASSERT_GE(*da[i].priority, 1u);
        }
      }
    }
  }
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
