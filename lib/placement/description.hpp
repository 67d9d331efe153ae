// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Cluster and job descriptions for `tune place` and tests: JSON (or the
// Tiresias cluster_spec CSV for a shape). Errors name the input and the fix.
#include <stdexcept>
#include <string>
#include <vector>

#include "placement/topology.hpp"

namespace tune {

struct DescriptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// {"switches": S, "nodes_per_switch": N, "gpus_per_node": G, "cpus_per_node": C, "mem_gb_per_node": M}
// or {"nodes": [{"name", "switch", "cpus", "mem_mb", "gpus", "gpu_sockets", "busy_gpus", "busy_cpus",
//                "busy_mem_mb", "available"}, ...]}
// or the CSV "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node" with one row.
Topology parse_topology(const std::string& text, const std::string& source);

struct NamedJob {
  std::string name;
  JobShape shape;
};
// [{"name": "a", "gpus": 4}, {"gpus_per_node": 2, "nodes": 2}, {"gpus_per_task": 1, "tasks": 4},
//  {"cpus": 8}, ...]: see tune(1), tune place.
std::vector<NamedJob> parse_jobs(const std::string& text, const std::string& source);

}  // namespace tune
