// SPDX-License-Identifier: GPL-2.0-or-later
// Algorithm 1 (lib/estimators), the progress record, the strategy-proof
// property of a pass, and sched_tune.conf.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <random>

#include "estimators/progress_record.hpp"
#include "estimators/yield_level.hpp"
#include "priority/job_summary.hpp"
#include "priority/policy_config.hpp"
#include "priority/sched_tune_policy.hpp"
#include "priority_fixture.hpp"

namespace tune {
namespace {

ProgressRecord rec(std::int64_t n, std::vector<double> top, bool minimize = true) {
  return {"s", n, minimize, std::move(top)};
}

TEST(YieldLevel, NeedsMoreThanKTimesMResults) {
  AdaptiveOptions o = testing_support::algorithm1();  // k = 2, m = 5
  YieldLevel y;
  EXPECT_FALSE(y.observe(rec(10, {1, 1, 1, 1, 1}), o));  // n = k*m: not yet
  EXPECT_EQ(y.level(), 0);
  EXPECT_TRUE(y.observe(rec(11, {1, 1, 1, 1, 1}), o));
  EXPECT_EQ(y.level(), 1);
}

TEST(YieldLevel, PlateauRaisesImprovementDoesNot) {
  AdaptiveOptions o = testing_support::algorithm1();
  o.thresholds = {0.01, 0.005};
  YieldLevel y;
  // Improving study: the top values move and are well apart (gaps >= 5%).
  const std::vector<std::vector<double>> improving = {
      {0.50, 0.60, 0.70, 0.80, 0.90}, {0.30, 0.50, 0.60, 0.70, 0.80}, {0.10, 0.30, 0.50, 0.60, 0.70}};
  std::int64_t n = 11;  // judged once per m = 5 results
  for (const auto& top : improving) EXPECT_FALSE(y.observe(rec(n += 5, top), o)) << top[0];
  EXPECT_EQ(y.level(), 0);
  // Plateau: the best values crowd together (relative gap 0.2% < 1%).
  EXPECT_TRUE(y.observe(rec(n += 5, {0.100, 0.1002, 0.101, 0.102, 0.12}), o));
  EXPECT_EQ(y.level(), 1);
  EXPECT_EQ(y.save(o).at("j"), 1) << "the threshold moved to G_1";
  // The same top again: g equals the mean of the earlier g? No (the mean holds
  // the improving gaps), but g < G_1 = 0.5% still: up again.
  EXPECT_TRUE(y.observe(rec(n += 5, {0.100, 0.1002, 0.101, 0.102, 0.12}), o));
  EXPECT_EQ(y.level(), 2);
}

TEST(YieldLevel, GapNearItsMeanCountsAsAPlateau) {
  AdaptiveOptions o = testing_support::algorithm1();
  o.thresholds = {0.001};
  o.set("tolerance", 0.05);
  YieldLevel y;
  // Gaps of about 10%, far above G, but the same each time: g ~ g'.
  EXPECT_FALSE(y.observe(rec(11, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_TRUE(y.observe(rec(16, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_NEAR(y.save(o).at("gap_sum").get<double>() / y.save(o).at("gaps").get<double>(), 0.1, 1e-12);
  EXPECT_FALSE(y.observe(rec(21, {0.5, 0.8, 1.0, 1.1, 1.2}), o))
      << "an improvement: g = 20% of 0.5, not ~ 10%";
  EXPECT_EQ(y.level(), 1);
}

TEST(YieldLevel, JudgedOncePerMResultsSoResultsOutsideTheTopDoNotRaiseEachTime) {
  AdaptiveOptions o = testing_support::algorithm1();  // k = 2, m = 5
  o.thresholds = {0.001};
  YieldLevel y;
  // Gaps of 10%, far above G. Results that miss the top 5 leave it as it was,
  // so g is exactly g' at each of them; judged at every result, n = 12 would
  // already rise. Judged at n = 11, then not before n = 16.
  EXPECT_FALSE(y.observe(rec(11, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  for (int n = 12; n <= 15; ++n) EXPECT_FALSE(y.observe(rec(n, {1.0, 1.1, 1.2, 1.3, 1.4}), o)) << n;
  EXPECT_EQ(y.trials_judged(), 11);
  EXPECT_EQ(y.level(), 0);
  // m results with nothing entering the top: g ~ g', up one.
  EXPECT_TRUE(y.observe(rec(16, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_EQ(y.trials_judged(), 16);
  // A record that jumps many results is judged once.
  EXPECT_TRUE(y.observe(rec(60, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_FALSE(y.observe(rec(61, {1.0, 1.1, 1.2, 1.3, 1.4}), o));
  EXPECT_EQ(y.level(), 2);
}

TEST(YieldLevel, RestoreKeepsTheJudgedCount) {
  AdaptiveOptions o = testing_support::algorithm1();
  YieldLevel y;
  EXPECT_TRUE(y.observe(rec(11, {1, 1, 1, 1, 1}), o));
  auto r = YieldLevel::restore(y.save(o), o);
  EXPECT_EQ(r.trials_judged(), 11);
  EXPECT_FALSE(r.observe(rec(15, {1, 1, 1, 1, 1}), o));
  EXPECT_TRUE(r.observe(rec(16, {1, 1, 1, 1, 1}), o));
  // Out of range: a judged count above the results seen is clamped.
  nlohmann::json bad = y.save(o);
  bad["judged_n"] = 1000;
  EXPECT_EQ(YieldLevel::restore(bad, o).trials_judged(), 11);
}

TEST(YieldLevel, MaximiseUsesTheSameGapsAndRepeatedRecordsDoNothing) {
  AdaptiveOptions o = testing_support::algorithm1();
  YieldLevel y;
  EXPECT_TRUE(y.observe(rec(20, {0.95, 0.95, 0.949, 0.948, 0.947}, false), o));
  EXPECT_FALSE(y.observe(rec(20, {0.95, 0.95, 0.949, 0.948, 0.947}, false), o))
      << "a requeued job repeats its Comment";
  EXPECT_FALSE(y.observe(rec(5, {0.95, 0.95, 0.949, 0.948, 0.947}, false), o));
  EXPECT_EQ(y.level(), 1);
}

TEST(YieldLevel, LevelIsCappedAndRelaxes) {
  AdaptiveOptions o = testing_support::algorithm1();
  o.max_level = 2;
  YieldLevel y;
  for (int n = 11; n < 40; n += 5) y.observe(rec(n, {1, 1, 1, 1, 1}), o);
  EXPECT_EQ(y.level(), 2);
  EXPECT_DOUBLE_EQ(y.multiplier(o), 0.25);
  y.relax();
  y.relax();
  y.relax();
  EXPECT_EQ(y.level(), 0);
  EXPECT_DOUBLE_EQ(y.multiplier(o), 1.0);
}

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

TEST(ProgressRecord, RoundTripsAndKeepsTheUsersText) {
  const ProgressRecord r{"digits-1a2b3c4d", 42, false, {0.97, 0.96, 0.95}};
  EXPECT_EQ(format_progress(r), "tune:study=digits-1a2b3c4d;n=42;dir=max;top=0.97,0.96,0.95");
  EXPECT_EQ(parse_progress(format_progress(r)), r);
  const auto merged = merge_progress("my notes: run 3", r);
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, "my notes: run 3 " + format_progress(r));
  EXPECT_EQ(parse_progress(*merged), r);
  ProgressRecord r2 = r;
  r2.trials = 43;
  EXPECT_EQ(*merge_progress(*merged, r2), "my notes: run 3 " + format_progress(r2))
      << "replaced, not appended";
  EXPECT_EQ(user_text(*merged), "my notes: run 3");
  EXPECT_FALSE(merge_progress(std::string(1020, 'x'), r)) << "would exceed Slurm's 1,024 characters";
}

TEST(ProgressRecord, RoleOfTheJobRoundTrips) {
  ProgressRecord r{"s", 4, true, {1, 2}};
  EXPECT_EQ(parse_progress(format_progress(r))->role, StudyRole::Study);
  r.role = StudyRole::Trial;
  EXPECT_EQ(format_progress(r), "tune:study=s;n=4;dir=min;top=1,2;role=trial");
  EXPECT_EQ(parse_progress(format_progress(r)), r);
  r.role = StudyRole::AppCore;
  EXPECT_EQ(parse_progress(format_progress(r)), r);
  for (const char* bad :
       {"tune:study=s;n=4;dir=min;top=1;role=boss", "tune:study=s;n=4;dir=min;top=1;role=trial;role=trial",
        "tune:study=s;n=4;dir=min;top=1;role="})
    EXPECT_FALSE(parse_progress(bad)) << bad;
}

TEST(ProgressRecord, RejectsAnythingMalformed) {
  for (const char* bad : {
           "",
           "tune:",
           "tune:study=s",
           "tune:study=s;n=5;dir=min",
           "tune:study=s;n=5;dir=up;top=1",
           "tune:study=s;n=5;dir=min;top=nan",
           "tune:study=s;n=5;dir=min;top=inf,1",
           "tune:study=s;n=5;dir=min;top=1e400",
           "tune:study=s;n=-1;dir=min;top=",
           "tune:study=s;n=99999999999;dir=min;top=1",
           "tune:study=s;n=1;dir=min;top=1,2",
           "tune:study=s;n=5;dir=min;top=2,1",
           "tune:study=s;n=5;dir=max;top=1,2",
           "tune:study=a b;n=5;dir=min;top=1",
           "tune:study=s/..;n=5;dir=min;top=1",
           "tune:study=s;study=t;n=5;dir=min;top=1",
           "tune:study=s;n=5;dir=min;top=1;x=1",
           "tune:study=s;n=5;dir=min;top=1,",
           "tune:study=s;n=5;dir=min;top=1 trailing",
           "xtune:study=s;n=5;dir=min;top=1",
           "tune:study=;n=5;dir=min;top=1",
           "tune:study=s;n=0x5;dir=min;top=1",
       })
    EXPECT_FALSE(parse_progress(bad)) << bad;
  EXPECT_FALSE(parse_progress("tune:study=" + std::string(65, 'k') + ";n=5;dir=min;top=1"));
  std::string many = "tune:study=s;n=100;dir=min;top=1";
  for (int i = 0; i < 16; ++i) many += ",1";
  EXPECT_FALSE(parse_progress(many)) << "17 values";
  EXPECT_TRUE(parse_progress("note tune:study=s;n=5;dir=min;top="));
}

TEST(JobSummary, RoundTrips) {
  JobSummary s;
  s.tenant = "physics", s.dominant_share = 0.3125, s.factor = 0.805, s.study = "k-1", s.level = 2,
  s.priority = 80512;
  const auto back = parse_summary("admin text " + format_summary(s));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->tenant, "physics");
  EXPECT_DOUBLE_EQ(back->dominant_share.value(), 0.3125);
  EXPECT_EQ(back->study, "k-1");
  EXPECT_EQ(back->level, 2);
  EXPECT_EQ(back->priority, 80512u);
  EXPECT_FALSE(back->site);
  EXPECT_FALSE(parse_summary("nothing here"));

  JobSummary m;  // site_factor/tune's: no fair share of its own, a SITE term
  m.tenant = "bio", m.study = "s", m.level = 1, m.site = -4000;
  EXPECT_EQ(format_summary(m), "tune:tenant=bio;study=s;level=1;site=-4000");
  const auto mb = parse_summary(format_summary(m));
  ASSERT_TRUE(mb);
  EXPECT_FALSE(mb->dominant_share);
  EXPECT_EQ(mb->site, -4000);
}

TEST(PolicyConfig, DefaultsAndEverySetting) {
  const auto c = parse_policy_config("", "empty.conf");
  EXPECT_EQ(c.interval, 30);
  EXPECT_EQ(c.yield.signal, SIGUSR1);
  const auto d = parse_policy_config(R"(
    interval = 5;
    state_file = "/var/tmp/x.state";
    fairshare = { half_life = 3600.0; weight = 1000; age_weight = 10; max_age = 60; shares = { physics = 2.5; bio = 1; }; };
    adaptive = { enabled = false; k = 3; m = 4; thresholds = [0.1, 0.05]; tolerance = 0.2; yield_factor = 0.25;
                 max_level = 4; relax_time = 120; };
    yield = { enabled = false; level = 3; signal = "SIGUSR2"; wait = 10; cooldown = 20; };
  )",
                                     "full.conf");
  EXPECT_EQ(d.interval, 5);
  EXPECT_EQ(d.state_file, "/var/tmp/x.state");
  EXPECT_EQ(d.fairshare.half_life, 3600);
  EXPECT_EQ(d.fairshare.share_of("physics"), 2.5);
  EXPECT_EQ(d.fairshare.share_of("bio"), 1);
  EXPECT_EQ(d.fairshare.share_of("other"), 1);
  EXPECT_EQ(d.weights.fairshare, 1000);
  EXPECT_FALSE(d.adaptive_enabled);
  EXPECT_EQ(d.adaptive.setting("m"), 4);
  EXPECT_EQ(d.adaptive.thresholds, (std::vector<double>{0.1, 0.05}));
  EXPECT_EQ(d.yield.signal, signal_number("USR2"));
  EXPECT_EQ(d.yield.cooldown, 20);
}

TEST(PolicyConfig, ErrorsNameTheLineAndTheFix) {
  struct Case {
    const char* text;
    int line;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"interval = 5;\nfairshare = = {};", 2, "syntax error"},
           {"\n\ninterval = 0;", 3, "out of range"},
           {"intervall = 5;", 1, "unknown setting 'intervall'"},
           {"fairshare = {\n  half_life = \"long\";\n};", 2, "must be a number"},
           {"adaptive = {\n m = 40;\n};", 2, "out of range"},
           {"adaptive = {\n k = 2.5;\n};", 2, "whole number"},
           {"adaptive = {\n thresholds = [];\n};", 2, "1 to 32"},
           {"yield = {\n\n signal = \"KILL\";\n};", 3, "is not a signal"},
           {"fairshare = {\n shares = { a = -1; };\n};", 2, "out of range"},
           {"fairshare = 3;", 1, "must be a group"},
           {"adaptive = { enabled = 1; };", 1, "true or false"},
       }) {
    try {
      parse_policy_config(c.text, "sched_tune.conf");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.line, c.line) << c.text << " -> " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("sched_tune.conf:", 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(load_policy_config("/nonexistent/sched_tune.conf"), ConfigError);
}

}  // namespace
}  // namespace tune

#include "estimators/study_progress.hpp"

namespace tune {
namespace {

TEST(StudyProgress, RecordHoldsFinishedResultsBestFirstAndAParsableKey) {
  std::vector<Trial> trials;
  auto add = [&](TrialState st, std::optional<double> v) {
    Trial t;
    t.id = trials.size(), t.state = st, t.objective = v;
    trials.push_back(t);
  };
  for (double v : {0.5, 0.2, 0.9, 0.1}) add(TrialState::Ok, v);
  add(TrialState::Failed, std::nullopt);
  add(TrialState::Running, std::nullopt);
  add(TrialState::Ok, std::nan(""));
  const auto key = study_key("my study/1", "/data/runs/s.h5");
  EXPECT_EQ(key.rfind("my_study_1-", 0), 0u) << key;
  EXPECT_EQ(key, study_key("my study/1", "/data/runs/./s.h5")) << "same file, same key";
  EXPECT_NE(key, study_key("my study/1", "/data/runs/t.h5"));
  const auto r = progress_of(key, trials, true, {}, 3);
  EXPECT_EQ(r.trials, 4);
  EXPECT_EQ(r.top, (std::vector<double>{0.1, 0.2, 0.5}));
  const auto back = parse_progress(format_progress(r));
  ASSERT_TRUE(back) << format_progress(r);
  EXPECT_EQ(back->study, key);
  EXPECT_EQ(progress_of(key, trials, false, {}, 2).top, (std::vector<double>{0.9, 0.5}));
}

}  // namespace
}  // namespace tune
