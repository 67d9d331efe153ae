// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A placement policy: where on the cluster's nodes a job goes (which nodes,
// how many tasks, CPUs, memory and which GPUs on each), or nowhere now. Each
// policy is a class of its own file (gang_placement.hpp, ...), listed by
// name in placements() (placements.hpp). No Slurm here.
#include <optional>
#include <string>
#include <vector>

#include "placement/topology.hpp"

namespace tune {

struct NodeGrant {
  int node = -1;  // index into Topology::nodes
  int tasks = 0, cpus = 0, gpus = 0;
  double mem_mb = 0;
  std::vector<int> gpu_indices;  // preferred GPUs on the node
};

struct Placement {
  std::vector<NodeGrant> nodes;
  int switches = 0;
};

struct PlacementOptions {
  // Cores per free GPU that a CPU-only job must leave on a node.
  int cores_per_free_gpu = 1;
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::optional<Placement> place(const Topology& t, const JobShape& job) const = 0;
  // Tells the policy a job was submitted (policies that learn the workload's mix).
  virtual void observe(const JobShape& /*job*/) {}
  virtual std::string name() const = 0;
};

// Marks the placement's cores, memory and GPUs used (or free again).
void apply(Topology& t, const Placement& p, const JobShape& job);
void release(Topology& t, const Placement& p);

}  // namespace tune
