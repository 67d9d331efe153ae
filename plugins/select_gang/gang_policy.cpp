// SPDX-License-Identifier: GPL-2.0-or-later
// The C face of lib/placement's GangPlacement for select/cons_tres_gang.
#include "gang_policy.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <unordered_set>

#include "../c_boundary.hpp"
#include "placement/gang_config.hpp"
#include "placement/placements.hpp"

struct gang_settings {
  explicit gang_settings(tune::GangConfig c)
      : config(std::move(c)), policy(tune::make_placement(config.placement, config.options)) {}
  tune::GangConfig config;
  std::unique_ptr<tune::PlacementPolicy> policy;
  // Jobs the policy has been shown (fgd learns the mix from each job once), oldest first.
  std::unordered_set<unsigned> seen;
  std::deque<unsigned> seen_order;
};

using tune::c_boundary;

extern "C" {

gang_settings_t* gang_settings_load(const char* path, char* err, size_t errlen) {
  return c_boundary<gang_settings_t*>(err, errlen, nullptr,
                                      [&] { return new gang_settings(tune::load_gang_config(path)); });
}

void gang_settings_free(gang_settings_t* s) {
  delete s;
}

const char* gang_placement_name(const gang_settings_t* s) {
  return s->config.placement.c_str();
}

int gang_enabled_for(const gang_settings_t* s, const char* partition) {
  return s->config.applies_to(partition ? partition : "");
}

int gang_place(gang_settings_t* s, const gang_node_t* nodes, int n, const gang_job_t* job, int* chosen,
               char* err, size_t errlen) {
  return c_boundary(err, errlen, -1, [&] {
    tune::Topology t;
    t.nodes.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      auto& c = t.nodes[static_cast<std::size_t>(i)];
      const auto& g = nodes[i];
      c.name = std::to_string(i);
      c.switch_id = g.switch_id;
      c.cores = g.cores, c.free_cores = std::max(0, g.free_cores);
      c.mem_mb = g.mem_mb, c.free_mem_mb = std::max(0.0, g.free_mem_mb);
      c.gpu_socket.assign(g.gpu_socket, g.gpu_socket + g.gpus);
      c.gpu_free.resize(static_cast<std::size_t>(g.gpus));
      for (int k = 0; k < g.gpus; ++k) c.gpu_free[static_cast<std::size_t>(k)] = g.gpu_free[k] != 0;
    }
    tune::JobShape j;
    j.min_nodes = job->min_nodes, j.max_nodes = job->max_nodes, j.tasks = std::max(1, job->tasks);
    j.cpus_per_task = std::max(1, job->cpus_per_task);
    j.set_gpus({job->gpus_per_job, job->gpus_per_node, job->gpus_per_task, job->gpus_per_socket});
    j.cpus_per_gpu = job->cpus_per_gpu;
    j.mem_per_cpu_mb = job->mem_per_cpu_mb, j.mem_per_gpu_mb = job->mem_per_gpu_mb,
    j.mem_per_node_mb = job->mem_per_node_mb;
    j.exclusive = job->exclusive;
    if (job->job_id && s->seen.insert(job->job_id).second) {
      s->policy->observe(j);
      s->seen_order.push_back(job->job_id);
      if (s->seen_order.size() > 100000) {  // bounded: job ids are not reused soon
        s->seen.erase(s->seen_order.front());
        s->seen_order.pop_front();
      }
    }
    const auto p = s->policy->place(t, j);
    std::fill(chosen, chosen + n, 0);
    if (!p) return 0;
    for (const auto& g : p->nodes) chosen[g.node] = 1;
    return static_cast<int>(p->nodes.size());
  });
}

}  // extern "C"
