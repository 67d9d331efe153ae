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
