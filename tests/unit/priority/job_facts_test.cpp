// SPDX-License-Identifier: GPL-2.0-or-later
// What the plugins' C shims used to decide, now in lib/: the tenant, whether
// a pending job waits for the cluster, the SystemComment merge, and the one
// order of a GPU request's count (both plugins and the simulator).
#include "priority/job_facts.hpp"

#include <gtest/gtest.h>

#include "placement/topology.hpp"

namespace tune {
namespace {

TEST(JobFacts, TheTenantIsTheAccountElseTheUser) {
  EXPECT_EQ(tenant_of("physics", "alice"), "physics");
  EXPECT_EQ(tenant_of("", "alice"), "user:alice");
  EXPECT_EQ(tenant_of("", ""), "");
  EXPECT_EQ(tenant_of("", "", "default"), "default");
}

TEST(JobView, TheAccountIsTheTenantOnlyWhereSlurmValidatesIt) {
  // Without AccountingStorageEnforce=associations anyone may name any
  // account: a fresh one to escape their usage, or another's to charge it.
  JobFacts f;
  f.uid = 1002, f.user_name = "bob", f.account = "alices-lab";
  EXPECT_EQ(job_view(f).tenant, "user:bob");
  EXPECT_EQ(job_view(f, TenantBy::User).tenant, "user:bob");
  EXPECT_EQ(job_view(f, TenantBy::Account).tenant, "alices-lab") << "the site says accounts are checked";
  f.accounts_validated = true;
  EXPECT_EQ(job_view(f).tenant, "alices-lab");
  EXPECT_EQ(job_view(f, TenantBy::User).tenant, "user:bob");
  // No user name to go by (a uid with no passwd entry): the uid.
  f.user_name = "", f.accounts_validated = false;
  EXPECT_EQ(job_view(f).tenant, "uid:1002");
}

TEST(JobFacts, OnlyNoReasonPriorityAndResourcesMeanWaitingForTheCluster) {
  for (const char* r : {"", "None", "Priority", "Resources"}) EXPECT_TRUE(waits_for_cluster(r, false)) << r;
  for (const char* r : {"Dependency", "BeginTime", "JobHeldUser", "JobHeldAdmin", "QOSMaxJobsPerUserLimit",
                        "AssocGrpCpuLimit", "ReqNodeNotAvail", "resources"})
    EXPECT_FALSE(waits_for_cluster(r, false)) << r;
  EXPECT_FALSE(waits_for_cluster("Resources", true));  // held (priority 0)
}

TEST(JobFacts, TheSummaryReplacesTuneTextAndKeepsTheSitesInFront) {
  EXPECT_EQ(merge_summary("", "tune:tenant=a;x=1"), "tune:tenant=a;x=1");
  EXPECT_EQ(merge_summary("site note", "tune:tenant=a;x=1"), "site note tune:tenant=a;x=1");
  EXPECT_EQ(merge_summary("site note  tune:tenant=a;x=0", "tune:tenant=a;x=1"),
            "site note tune:tenant=a;x=1");
  EXPECT_EQ(merge_summary("tune:tenant=a;x=0", "tune:tenant=b;x=2"), "tune:tenant=b;x=2");
  EXPECT_FALSE(
      merge_summary("site note tune:tenant=a;x=1", "tune:tenant=a;x=1"));  // unchanged: nothing to write
  EXPECT_FALSE(merge_summary("tune:tenant=a;x=1", "tune:tenant=a;x=1"));
}

TEST(JobView, OneBuilderForThePluginsAndTheSimulator) {
  EXPECT_TRUE(may_set_priority(true, false, false));
  EXPECT_FALSE(may_set_priority(false, false, false)) << "running";
  EXPECT_FALSE(may_set_priority(true, true, false)) << "held: priority 0";
  EXPECT_FALSE(may_set_priority(true, false, true)) << "set by an admin by hand";
  JobFacts f;
  f.id = 7, f.uid = 1001, f.user_name = "alice", f.comment = "tune:study=x", f.reason = "Priority";
  f.eligible = 100, f.request = {4, 8000, 1};
  JobView v = job_view(f);
  EXPECT_EQ(v.tenant, "user:alice") << "no account";
  EXPECT_EQ(v.comment, "tune:study=x");
  EXPECT_EQ(v.state, JobView::State::Pending);
  EXPECT_TRUE(v.may_set);
  EXPECT_TRUE(v.waiting);
  EXPECT_EQ(v.request.gpus, 1);
  f.reason = "Dependency";
  EXPECT_FALSE(job_view(f).waiting);
  f.held = true, f.reason = "Priority";
  v = job_view(f);
  EXPECT_FALSE(v.may_set);
  EXPECT_FALSE(v.waiting);
  f.held = false, f.running = true, f.account = "physics", f.accounts_validated = true;
  v = job_view(f);
  EXPECT_EQ(v.tenant, "physics");
  EXPECT_EQ(v.state, JobView::State::Running);
  EXPECT_FALSE(v.may_set);
  EXPECT_FALSE(v.waiting);
}

TEST(GpuRequest, OneOrderJobThenTaskThenNodeThenSocket) {
  EXPECT_EQ(gpu_count({4, 0, 0, 0}, 2, 8), 4);
  EXPECT_EQ(gpu_count({4, 2, 1, 1}, 2, 8), 4);  // --gpus wins
  EXPECT_EQ(gpu_count({0, 2, 1, 0}, 2, 8), 8);  // per task before per node
  EXPECT_EQ(gpu_count({0, 2, 0, 0}, 3, 8), 6);
  EXPECT_EQ(gpu_count({0, 0, 0, 2}, 3, 8), 6);  // per socket: one socket a node
  EXPECT_EQ(gpu_count({0, 2, 0, 0}, 0, 0), 2);  // at least one node and task
  EXPECT_EQ(gpu_count({}, 4, 4), 0);
  // JobShape counts the same way, and takes per socket as per node.
  JobShape s;
  s.min_nodes = 2, s.tasks = 8;
  s.set_gpus({0, 2, 1, 0});
  EXPECT_EQ(s.total_gpus(), gpu_count({0, 2, 1, 0}, 2, 8));
  s.set_gpus({0, 0, 0, 3});
  EXPECT_EQ(s.gpus_per_node, 3);
  EXPECT_EQ(s.total_gpus(), 6);
}

}  // namespace
}  // namespace tune
