// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What the placement policies share: what one node can give a job, and the
// assignment of a job's tasks and GPUs to an ordered list of nodes. No Slurm.
#include <optional>
#include <tuple>
#include <vector>

#include "placement/placement_policy.hpp"

namespace tune::placement_detail {

// What one node can give this job: tasks, and GPUs for a per-job GPU count.
struct Capacity {
  int tasks = 0;
  int gpus = 0;  // GPUs the node would give (per node / per task), or can give (per job)
};

double mem_for(const JobShape& j, int cpus, int gpus);
int cpus_for(const JobShape& j, int tasks, int gpus);
Capacity capacity(const NodeCell& n, const JobShape& j);

// Done when the chosen nodes hold every task and every GPU.
struct Need {
  int tasks, gpus, min_nodes, max_nodes;
};
Need need_of(const JobShape& j);

// Gang's best-fit key for giving a node this capacity; smaller is better:
// (strands free GPUs without cores, a CPU-only job on a node with free GPUs,
// breaks a fully free node, GPUs left, cores left).
using FitKey = std::tuple<int, int, int, int, int>;
FitKey fit_key(const NodeCell& n, const JobShape& j, const Capacity& c, const PlacementOptions& o);

// Assign tasks and GPUs to an ordered node list; nullopt if they do not hold the job.
std::optional<Placement> fill(const Topology& t, const JobShape& j, const std::vector<int>& order);

// A grant's GPUs as gang placement prefers them: the socket that alone holds
// the grant, the tightest such, else the sockets with the most free GPUs first.
void choose_gpus(const NodeCell& n, NodeGrant& g);

// Each grant's GPUs: the lowest free indices on its node, as cons_tres picks them.
void lowest_free_gpus(const Topology& t, Placement& p);

}  // namespace tune::placement_detail
