#include "placement/fill.hpp"

#include <algorithm>

namespace tune::placement_detail {

double mem_for(const JobShape& j, int cpus, int gpus) {
  if (j.mem_per_node_mb > 0) return j.mem_per_node_mb;
  return cpus * j.mem_per_cpu_mb + gpus * j.mem_per_gpu_mb;
}

int cpus_for(const JobShape& j, int tasks, int gpus) {
  return std::max(tasks * j.cpus_per_task, gpus * j.cpus_per_gpu);
}

Capacity capacity(const NodeCell& n, const JobShape& j) {
  Capacity c;
  if (!n.available || (j.exclusive && !n.fully_free())) return c;
  const int free_gpus = n.free_gpus();
  auto fits = [&](int tasks, int gpus) {
    const int cpus = cpus_for(j, tasks, gpus);
    return cpus <= n.free_cores && gpus <= free_gpus && mem_for(j, cpus, gpus) <= n.free_mem_mb + 1e-9;
  };
  if (j.gpus_per_task > 0) {
    int k = 0;
    while (k < j.tasks && fits(k + 1, (k + 1) * j.gpus_per_task)) ++k;
    return {k, k * j.gpus_per_task};
  }
  if (j.gpus_per_node > 0) {
    int k = 0;
    while (k < j.tasks && fits(k + 1, j.gpus_per_node)) ++k;
    return {k, k ? j.gpus_per_node : 0};
  }
  if (j.gpus_per_job > 0) {  // at least one task; as many GPUs as fit
    if (!fits(1, 1)) return c;
    int g = 1;
    while (g < std::min(free_gpus, j.gpus_per_job) && fits(1, g + 1)) ++g;
    int k = 1;
    while (k < j.tasks && fits(k + 1, g)) ++k;
    return {k, g};
  }
  int k = 0;
  while (k < j.tasks && fits(k + 1, 0)) ++k;
  return {k, 0};
}


Need need_of(const JobShape& j) {
  return {j.tasks, j.gpus_per_job, std::max(1, j.min_nodes), j.max_nodes > 0 ? j.max_nodes : 1 << 30};
}

// Assign tasks and GPUs to an ordered node list; nullopt if they do not hold the job.
std::optional<Placement> fill(const Topology& t, const JobShape& j, const std::vector<int>& order) {
  Need need = need_of(j);
  Placement p;
  int tasks_left = need.tasks, gpus_left = need.gpus;
  for (int i : order) {
    if (static_cast<int>(p.nodes.size()) >= need.max_nodes) break;
    if (tasks_left <= 0 && gpus_left <= 0 && static_cast<int>(p.nodes.size()) >= need.min_nodes) break;
    const Capacity c = capacity(t.nodes[i], j);
    if (c.tasks == 0) continue;
    NodeGrant g;
    g.node = i;
    // Keep one task for each node still needed to reach min_nodes.
    const int reserve = std::max(0, need.min_nodes - static_cast<int>(p.nodes.size()) - 1);
    g.tasks = std::max(1, std::min(c.tasks, tasks_left - reserve));
    if (j.gpus_per_task) g.gpus = g.tasks * j.gpus_per_task;
    else if (j.gpus_per_node) g.gpus = j.gpus_per_node;
    else if (j.gpus_per_job) g.gpus = std::max(0, std::min(c.gpus, gpus_left));
    if (j.gpus_per_job && g.gpus == 0 && tasks_left <= 0) continue;
    g.cpus = cpus_for(j, g.tasks, g.gpus);
    g.mem_mb = mem_for(j, g.cpus, g.gpus);
    tasks_left -= g.tasks;
    gpus_left -= g.gpus;
    p.nodes.push_back(g);
  }
  if (tasks_left > 0 || gpus_left > 0 || static_cast<int>(p.nodes.size()) < need.min_nodes) return std::nullopt;
  std::vector<int> sw;
  for (const auto& g : p.nodes) sw.push_back(t.nodes[g.node].switch_id);
  std::sort(sw.begin(), sw.end());
  p.switches = static_cast<int>(std::unique(sw.begin(), sw.end()) - sw.begin());
  return p;
}

void lowest_free_gpus(const Topology& t, Placement& p) {
  for (auto& g : p.nodes)
    for (int i = 0; i < t.nodes[g.node].gpus() && static_cast<int>(g.gpu_indices.size()) < g.gpus; ++i)
      if (t.nodes[g.node].gpu_free[i]) g.gpu_indices.push_back(i);
}

}  // namespace tune::placement_detail
