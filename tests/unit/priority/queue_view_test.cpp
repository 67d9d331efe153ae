// SPDX-License-Identifier: GPL-2.0-or-later
// What tune queue shows (lib/priority/queue_view), from jobs as libslurm
// lists them: the order they start in, the plugins' summary and the study's
// record read from their comments (hostile ones ignored), the factors of
// priority/multifactor, a study's trial jobs under one heading with the
// limit that holds them, and the note for jobs not scored yet.
#include "priority/queue_view.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tune {
namespace {

std::string record(const std::string& study, StudyRole role) {
  return format_progress({.study = study, .trials = 3, .minimize = true, .top = {0.5}, .role = role});
}

std::vector<QueuedJob> jobs() {
  JobSummary s{
      .tenant = "physics", .dominant_share = 0.25, .factor = 0.5, .study = "lr", .level = 2, .priority = 900};
  return {
      {.id = 10, .user = "ann", .state = "RUNNING", .pending = false, .priority = 5},
      {.id = 11,
       .user = "bob",
       .state = "PENDING",
       .reason = "Priority",
       .pending = true,
       .priority = 100,
       .system_comment = format_summary(s),
       .comment = "my notes " + record("lr", StudyRole::Trial)},
      {.id = 12,
       .user = "bob",
       .state = "PENDING",
       .reason = "QOSMaxJobsPerUserLimit",
       .pending = true,
       .priority = 300,
       .system_comment = format_summary(s),
       .comment = record("lr", StudyRole::Trial)},
      {.id = 13,
       .user = "ann",
       .state = "PENDING",
       .reason = "Resources",
       .pending = true,
       .priority = 200,
       .system_comment = "tune:garbage;;",
       .comment = "tune:study=$(rm -rf /)"},
  };
}

TEST(QueueView, PendingFirstInTheOrderTheyStartThenRunningAndOnlyTheUsersWhenAsked) {
  const auto rows = queue_rows(jobs(), {}, "");
  std::vector<std::uint32_t> order;
  for (const auto& r : rows) order.push_back(r.job.id);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{12, 13, 11, 10}));
  const auto anns = queue_rows(jobs(), {}, "ann");
  ASSERT_EQ(anns.size(), 2u);
  EXPECT_EQ(anns[0].job.id, 13u);
}

TEST(QueueView, SummaryAndRecordFromTheCommentsHostileOnesIgnored) {
  const auto rows = queue_rows(jobs(), {}, "");
  const QueueRow& lr = rows[0];  // job 12
  ASSERT_TRUE(lr.summary);
  EXPECT_EQ(lr.summary->tenant, "physics");
  EXPECT_EQ(lr.role, StudyRole::Trial);
  EXPECT_EQ(lr.study, "lr");
  const QueueRow& hostile = rows[1];  // job 13
  EXPECT_FALSE(hostile.summary);
  EXPECT_EQ(hostile.role, StudyRole::Study);
  EXPECT_EQ(hostile.study, "");
}

TEST(QueueView, FactorsOnPendingJobsOnlyTheFirstPartitionsAndInTheJson) {
  std::vector<PriorityFactors> f = {{.job_id = 12, .partition = "a", .age = 10, .site = -50},
                                    {.job_id = 12, .partition = "b", .age = 99},
                                    {.job_id = 10, .partition = "a", .age = 7}};
  const auto rows = queue_rows(jobs(), f, "");
  ASSERT_TRUE(rows[0].factors);
  EXPECT_EQ(rows[0].factors->partition, "a");
  EXPECT_FALSE(rows[3].factors) << "a running job has no pending factors";
  const nlohmann::json j = queue_json(rows);
  EXPECT_EQ(j[0]["job_id"], 12);
  EXPECT_EQ(j[0]["role"], "trial");
  EXPECT_EQ(j[0]["yield_level"], 2);
  EXPECT_EQ(j[0]["multifactor"]["site"], -50);
  EXPECT_EQ(j[0]["reason"], "QOSMaxJobsPerUserLimit");
  EXPECT_FALSE(j[3].contains("reason")) << "running";
  EXPECT_FALSE(j[1].contains("tenant")) << "no summary";
}

TEST(QueueView, TrialJobsUnderTheirStudysHeadingWithTheLimitThatHoldsThem) {
  const std::string t = queue_table(queue_rows(jobs(), {}, ""), false, "");
  EXPECT_NE(t.find("study lr of bob: 2 trial job(s) pending, 0 running, yield level 2; held by a limit: "
                   "QOSMaxJobsPerUserLimit"),
            std::string::npos)
      << t;
  EXPECT_LT(t.find("\n13 "), t.find("study lr of bob")) << "plain jobs first:\n" << t;
  EXPECT_NE(t.find("\n  12 "), std::string::npos) << "trial jobs indented under it:\n" << t;
  EXPECT_NE(t.find("'-': sched/tune has not scored the job yet"), std::string::npos) << t;
  EXPECT_NE(t.find("DOMSHARE"), std::string::npos);
}

TEST(QueueView, UnderMultifactorTheFactorsAndTheSiteTermAndAnAdminsPriorityAsDashes) {
  std::vector<PriorityFactors> f = {{.job_id = 12, .age = 10, .fairshare = 20, .site = -50},
                                    {.job_id = 13, .direct = true}};
  const std::string t = queue_table(queue_rows(jobs(), f, ""), true, "");
  EXPECT_NE(t.find("FAIRSHARE"), std::string::npos) << t;
  EXPECT_NE(t.find("-50"), std::string::npos) << t;
  const auto at = t.find("\n13 ");
  ASSERT_NE(at, std::string::npos) << t;
  const std::string row13 = t.substr(at + 1, t.find('\n', at + 1) - at - 1);
  EXPECT_EQ(row13.find("  10 "), std::string::npos) << "an admin's priority shows no factors: " << row13;
  EXPECT_NE(queue_table({}, false, "ann").find("(no pending or running jobs of ann)"), std::string::npos);
}

}  // namespace
}  // namespace tune
