// SPDX-License-Identifier: GPL-2.0-or-later
// The progress record (lib/estimators/progress_record): the line a study keeps in its
// job's Comment, its fields (tgt, left) and what it refuses.
#include "estimators/progress_record.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <random>

#include "estimators/study_progress.hpp"
#include "estimators/tail_estimate.hpp"
#include "estimators/yield_level.hpp"
#include "priority/job_summary.hpp"
#include "priority/policy_config.hpp"
#include "priority/sched_tune_policy.hpp"
#include "priority/study_tracker.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

using testing_support::fast;

const Resources kCluster{16, 8000, 0};

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

ProgressRecord maxrec(std::int64_t n, std::vector<double> top, std::optional<double> target = {},
                      std::optional<std::int64_t> left = {}) {
  ProgressRecord r{"s", n, false, std::move(top)};
  r.target = target, r.left = left;
  return r;
}

TEST(ProgressRecord, TargetAndTrialsLeftRoundTripAndAreBounded) {
  ProgressRecord r = maxrec(12, {0.9, 0.8}, 0.95, 18);
  r.role = StudyRole::Trial;
  EXPECT_EQ(format_progress(r), "tune:study=s;n=12;dir=max;top=0.9,0.8;tgt=0.95;left=18;role=trial");
  EXPECT_EQ(parse_progress(format_progress(r)), r);
  const auto without = parse_progress("tune:study=s;n=12;dir=max;top=0.9");
  ASSERT_TRUE(without);
  EXPECT_FALSE(without->target);
  EXPECT_FALSE(without->left);
  for (const char* bad :
       {"tune:study=s;n=5;dir=min;top=1;tgt=", "tune:study=s;n=5;dir=min;top=1;tgt=nan",
        "tune:study=s;n=5;dir=min;top=1;tgt=1e400", "tune:study=s;n=5;dir=min;top=1;tgt=1;tgt=2",
        "tune:study=s;n=5;dir=min;top=1;left=-1", "tune:study=s;n=5;dir=min;top=1;left=1000000001",
        "tune:study=s;n=5;dir=min;top=1;left=2.5", "tune:study=s;n=5;dir=min;top=1;left=1;left=1"})
    EXPECT_FALSE(parse_progress(bad)) << bad;
}

}  // namespace
}  // namespace tune
