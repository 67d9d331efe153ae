// SPDX-License-Identifier: GPL-2.0-or-later
// The job summaries a priority pass reads (lib/priority/job_summary).
#include "priority/job_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <random>

#include "estimators/progress_record.hpp"
#include "estimators/study_progress.hpp"
#include "estimators/yield_level.hpp"
#include "priority/policy_config.hpp"
#include "priority/sched_tune_policy.hpp"
#include "tests/unit/priority/priority_fixture.hpp"

namespace tune {
namespace {

using testing_support::fast;

const Resources kCluster{16, 8000, 0};

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

}  // namespace
}  // namespace tune
