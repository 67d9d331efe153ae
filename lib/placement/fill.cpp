// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/fill.hpp"

#include <algorithm>
#include <map>

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

FitKey fit_key(const NodeCell& n, const JobShape& j, const Capacity& c, const PlacementOptions& o) {
  const bool gpu_job = j.wants_gpus();
  const int cpus = cpus_for(j, c.tasks, c.gpus);
  int strands = 0, has_gpus = 0;
  if (!gpu_job && n.free_gpus() > 0) {
    has_gpus = 1;
    // Taking these cores would leave free GPUs without cores to drive them.
    strands = n.free_cores - cpus < n.free_gpus() * o.cores_per_free_gpu;
  }
  const int left_gpus = n.free_gpus() - (gpu_job ? c.gpus : 0);
  return {strands, has_gpus, n.fully_free() ? 1 : 0, left_gpus, n.free_cores - cpus};
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
    if (j.gpus_per_task)
      g.gpus = g.tasks * j.gpus_per_task;
    else if (j.gpus_per_node)
      g.gpus = j.gpus_per_node;
    else if (j.gpus_per_job)
      g.gpus = std::max(0, std::min(c.gpus, gpus_left));
    if (j.gpus_per_job && g.gpus == 0 && tasks_left <= 0) continue;
    g.cpus = cpus_for(j, g.tasks, g.gpus);
    g.mem_mb = mem_for(j, g.cpus, g.gpus);
    tasks_left -= g.tasks;
    gpus_left -= g.gpus;
    p.nodes.push_back(g);
  }
  if (tasks_left > 0 || gpus_left > 0 || static_cast<int>(p.nodes.size()) < need.min_nodes)
    return std::nullopt;
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

// GPUs to prefer on a node: the socket with the most free GPUs first.
void choose_gpus(const NodeCell& n, NodeGrant& g) {
  std::map<int, std::vector<int>> by_socket;
  for (int i = 0; i < n.gpus(); ++i)
    if (n.gpu_free[i]) by_socket[n.gpu_socket[i]].push_back(i);
  std::vector<std::vector<int>> sockets;
  for (auto& [s, v] : by_socket) sockets.push_back(v);
  // A socket that alone holds the grant, the tightest such; else the fullest first.
  std::stable_sort(sockets.begin(), sockets.end(), [&](const auto& a, const auto& b) {
    const bool fa = static_cast<int>(a.size()) >= g.gpus, fb = static_cast<int>(b.size()) >= g.gpus;
    if (fa != fb) return fa;
    return fa ? a.size() < b.size() : a.size() > b.size();
  });
  g.gpu_indices.clear();
  for (const auto& s : sockets)
    for (int i : s)
      if (static_cast<int>(g.gpu_indices.size()) < g.gpus) g.gpu_indices.push_back(i);
  std::sort(g.gpu_indices.begin(), g.gpu_indices.end());
}

}  // namespace tune::placement_detail
