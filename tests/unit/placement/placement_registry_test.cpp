// SPDX-License-Identifier: GPL-2.0-or-later
// One suite over every registered placement policy (placements()): a policy
// added to the registry is tested here with no test edited.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "placement/placements.hpp"

namespace tune {
namespace {

// Six nodes of 4 GPUs and 16 cores on two switches; node 4 is drained.
Topology cluster() {
  Topology t;
  for (int i = 0; i < 6; ++i)
    t.nodes.push_back(idle_node("node" + std::to_string(i + 1), i / 3, 16, 64000, 4));
  t.nodes[3].available = false;
  return t;
}

// A mix of the shapes Slurm jobs take: one-node GPU jobs, multi-node gangs,
// per-task GPUs, CPU-only jobs; drawn by hand from the seed (std
// distributions differ between standard libraries).
JobShape draw(std::mt19937& rng) {
  JobShape j;
  switch (rng() % 5) {
    case 0: j.gpus_per_node = 1 + static_cast<int>(rng() % 4); break;
    case 1: j.gpus_per_node = 2 + static_cast<int>(rng() % 3), j.min_nodes = 2; break;
    case 2: j.gpus_per_task = 1, j.tasks = 1 + static_cast<int>(rng() % 6); break;
    case 3: j.gpus_per_job = 1 + static_cast<int>(rng() % 8); break;
    default: j.tasks = 1 + static_cast<int>(rng() % 8), j.cpus_per_task = 2; break;
  }
  j.mem_per_cpu_mb = 1000;
  return j;
}

class EveryPlacement : public testing::TestWithParam<std::string> {};

// What a policy hands out is free on available nodes, each node once, with
// the GPUs asked for; and releasing every job leaves the cluster as it was.
TEST_P(EveryPlacement, NeverOversubscribesAndReleasesToTheStart) {
  const Topology start = cluster();
  Topology t = start;
  const auto policy = make_placement(GetParam());
  EXPECT_EQ(policy->name(), GetParam());
  std::mt19937 rng(17);
  std::vector<Placement> running;
  int placed = 0;
  for (int i = 0; i < 300; ++i) {
    const JobShape job = draw(rng);
    policy->observe(job);
    if (!running.empty() && rng() % 3 == 0) {  // a job ends
      const std::size_t k = rng() % running.size();
      release(t, running[k]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
    const auto p = policy->place(t, job);
    if (!p) continue;
    ++placed;
    std::set<int> nodes;
    int gpus = 0, tasks = 0;
    for (const auto& g : p->nodes) {
      ASSERT_TRUE(nodes.insert(g.node).second) << "job " << i << ": node " << g.node << " granted twice";
      const NodeCell& n = t.nodes[g.node];
      ASSERT_TRUE(n.available) << "job " << i << " placed on drained " << n.name;
      ASSERT_LE(g.cpus, n.free_cores) << "job " << i << " on " << n.name;
      ASSERT_LE(g.mem_mb, n.free_mem_mb) << "job " << i << " on " << n.name;
      ASSERT_EQ(static_cast<int>(g.gpu_indices.size()), g.gpus) << "job " << i << " on " << n.name;
      for (int k : g.gpu_indices)
        ASSERT_TRUE(n.gpu_free[k]) << "job " << i << ": GPU " << k << " of " << n.name;
      gpus += g.gpus, tasks += g.tasks;
    }
    EXPECT_GE(static_cast<int>(nodes.size()), job.min_nodes) << "job " << i;
    EXPECT_GE(gpus, job.total_gpus()) << "job " << i;
    EXPECT_GE(tasks, job.tasks) << "job " << i;
    apply(t, *p, job);
    running.push_back(*p);
  }
  EXPECT_GT(placed, 50) << "the mix fits often on an emptying cluster";
  for (const auto& p : running) release(t, p);
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    EXPECT_EQ(t.nodes[n].free_cores, start.nodes[n].free_cores) << t.nodes[n].name;
    EXPECT_DOUBLE_EQ(t.nodes[n].free_mem_mb, start.nodes[n].free_mem_mb) << t.nodes[n].name;
    EXPECT_EQ(t.nodes[n].gpu_free, start.nodes[n].gpu_free) << t.nodes[n].name;
  }
}

// A job larger than the cluster is refused, not squeezed in.
TEST_P(EveryPlacement, RefusesWhatNoNodeSetHolds) {
  const Topology t = cluster();
  const auto policy = make_placement(GetParam());
  JobShape wide;
  wide.gpus_per_node = 4, wide.min_nodes = 6;  // one of the six is drained
  EXPECT_FALSE(policy->place(t, wide));
  JobShape fat;
  fat.gpus_per_node = 5;
  EXPECT_FALSE(policy->place(t, fat));
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryPlacement, testing::ValuesIn(placements().names()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace tune
