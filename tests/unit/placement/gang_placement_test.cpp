// SPDX-License-Identifier: GPL-2.0-or-later
// Gang GPU placement (lib/placement/gang_placement) beside first fit.
#include "placement/gang_placement.hpp"

#include <gtest/gtest.h>

#include "placement/cons_tres_placement.hpp"
#include "placement/description.hpp"
#include "placement/gang_config.hpp"
#include "placement/placements.hpp"

namespace tune {
namespace {

// n nodes x g GPUs x c cores, sockets split in half, switches of `per_switch` nodes.
Topology cluster(int n, int g = 4, int c = 8, int per_switch = 1 << 20) {
  Topology t;
  for (int i = 0; i < n; ++i) {
    NodeCell node;
    node.name = "node" + std::to_string(i + 1);
    node.switch_id = i / per_switch;
    node.cores = node.free_cores = c;
    node.mem_mb = node.free_mem_mb = 16000;
    for (int k = 0; k < g; ++k) node.gpu_socket.push_back(k < g / 2 ? 0 : 1);
    node.gpu_free.assign(g, true);
    t.nodes.push_back(node);
  }
  return t;
}

JobShape gpus_per_node(int g, int nodes = 1, int tasks = 1) {
  JobShape j;
  j.gpus_per_node = g, j.min_nodes = nodes, j.tasks = tasks;
  return j;
}

std::vector<std::string> names(const Topology& t, const Placement& p) {
  std::vector<std::string> out;
  for (const auto& g : p.nodes) out.push_back(t.nodes[g.node].name);
  return out;
}

TEST(GangPlacement, EightOneGpuJobsPackOnTwoNodesAndLeaveTwoWholeNodes) {
  for (const char* policy : {"gang", "first-fit"}) {
    Topology t = cluster(4);
    const auto p = make_placement(policy);
    for (int i = 0; i < 8; ++i) {
      const auto pl = p->place(t, gpus_per_node(1));
      ASSERT_TRUE(pl) << policy;
      apply(t, *pl, gpus_per_node(1));
    }
    EXPECT_EQ(t.nodes[0].free_gpus() + t.nodes[1].free_gpus(), 0) << policy;
    EXPECT_DOUBLE_EQ(gpu_fragmentation(t), 0.0);
    const auto big = p->place(t, gpus_per_node(4));
    ASSERT_TRUE(big) << policy;
  }
}

TEST(GangPlacement, BestFitDoesNotBreakAFreeNodeOrALargerBlock) {
  Topology t = cluster(3);
  t.nodes[0].gpu_free = {false, true, true, true};    // 3 free
  t.nodes[1].gpu_free = {false, false, false, true};  // 1 free
  const auto gang = GangPlacement().place(t, gpus_per_node(1));
  const auto ff = FirstFitPlacement().place(t, gpus_per_node(1));
  ASSERT_TRUE(gang && ff);
  EXPECT_EQ(names(t, *gang), std::vector<std::string>{"node2"}) << "exact fit";
  EXPECT_EQ(names(t, *ff), std::vector<std::string>{"node1"});
  // A 2-GPU job goes to the partly used node with 3 free, not to the free node3.
  EXPECT_EQ(names(t, *GangPlacement().place(t, gpus_per_node(2))), std::vector<std::string>{"node1"});
  // Fragmentation: 4 free GPUs of 8 are on partly used nodes.
  EXPECT_DOUBLE_EQ(gpu_fragmentation(t), 0.5);
}

TEST(GangPlacement, CpuOnlyJobLeavesCoresForFreeGpus) {
  Topology t = cluster(2, 4, 8);
  t.nodes[1].gpu_free.assign(4, false);  // node2: GPUs busy, cores free
  t.nodes[1].free_cores = 3;
  JobShape cpu;
  cpu.tasks = 3;
  EXPECT_EQ(names(t, *GangPlacement().place(t, cpu)), std::vector<std::string>{"node2"});
  EXPECT_EQ(names(t, *FirstFitPlacement().place(t, cpu)), std::vector<std::string>{"node1"});
  // Only node1 can hold 6 cores; that leaves 2 cores for 4 free GPUs, but
  // there is nowhere else: placed there (a preference, not a refusal).
  cpu.tasks = 6;
  EXPECT_EQ(names(t, *GangPlacement().place(t, cpu)), std::vector<std::string>{"node1"});
}

TEST(GangPlacement, MultiNodeJobStaysInOneSwitchOnWholeNodes) {
  Topology t = cluster(4, 4, 8, 2);  // switch 0: node1-2, switch 1: node3-4
  t.nodes[0].gpu_free = {false, true, true, true};
  const auto gang = GangPlacement().place(t, gpus_per_node(4, 2, 2));
  ASSERT_TRUE(gang);
  EXPECT_EQ(names(t, *gang), (std::vector<std::string>{"node3", "node4"}));
  EXPECT_EQ(gang->switches, 1);
  JobShape wide;  // --gpus=12: needs three nodes, two switches
  wide.gpus_per_job = 11;
  wide.tasks = 3;
  const auto w = GangPlacement().place(t, wide);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->nodes.size(), 3u);
  EXPECT_EQ(w->switches, 2);
  int gpus = 0;
  for (const auto& g : w->nodes) gpus += g.gpus;
  EXPECT_EQ(gpus, 11);
}

TEST(GangPlacement, GpusPerTaskUseTheFewestNodes) {
  Topology t = cluster(3);
  t.nodes[0].gpu_free = {false, false, true, true};
  t.nodes[1].gpu_free = {false, false, true, true};
  JobShape j;
  j.tasks = 4, j.gpus_per_task = 1, j.max_nodes = 4;
  const auto gang = GangPlacement().place(t, j);
  ASSERT_TRUE(gang);
  EXPECT_EQ(names(t, *gang), std::vector<std::string>{"node3"});
  const auto ff = FirstFitPlacement().place(t, j);
  EXPECT_EQ(ff->nodes.size(), 2u);
}

TEST(GangPlacement, GpusOnOneSocketFirst) {
  Topology t = cluster(1);  // sockets 0,0,1,1
  t.nodes[0].gpu_free = {false, true, true, true};
  const auto p = GangPlacement().place(t, gpus_per_node(2));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->nodes[0].gpu_indices, (std::vector<int>{2, 3}));
  EXPECT_EQ(FirstFitPlacement().place(t, gpus_per_node(2))->nodes[0].gpu_indices, (std::vector<int>{1, 2}));
}

TEST(GangPlacement, NothingFitsAndUnavailableNodes) {
  Topology t = cluster(2);
  EXPECT_FALSE(GangPlacement().place(t, gpus_per_node(5)));
  t.nodes[0].available = false;
  EXPECT_FALSE(GangPlacement().place(t, gpus_per_node(4, 2, 2)));
  EXPECT_EQ(names(t, *GangPlacement().place(t, gpus_per_node(4))), std::vector<std::string>{"node2"});
  JobShape ex = gpus_per_node(1);
  ex.exclusive = true;
  t.nodes[1].gpu_free[0] = false;
  EXPECT_FALSE(GangPlacement().place(t, ex)) << "exclusive needs a fully free node";
}

TEST(GangPlacement, TiesBreakByNodeOrder) {
  const Topology t = cluster(4);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(names(t, *GangPlacement().place(t, gpus_per_node(2))), std::vector<std::string>{"node1"});
  EXPECT_THROW(make_placement("random"), std::invalid_argument);
}

}  // namespace
}  // namespace tune
