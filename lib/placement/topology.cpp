// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/topology.hpp"

#include <algorithm>
#include <set>

namespace tune {

int NodeCell::free_gpus() const {
  return static_cast<int>(std::count(gpu_free.begin(), gpu_free.end(), true));
}

NodeCell idle_node(const std::string& name, int switch_id, int cores, double mem_mb, int gpus) {
  NodeCell n;
  n.name = name;
  n.switch_id = switch_id;
  n.cores = n.free_cores = cores;
  n.mem_mb = n.free_mem_mb = mem_mb;
  for (int g = 0; g < gpus; ++g) n.gpu_socket.push_back(g < (gpus + 1) / 2 ? 0 : 1);
  n.gpu_free.assign(gpus, true);
  return n;
}

int Topology::switches() const {
  std::set<int> s;
  for (const auto& n : nodes) s.insert(n.switch_id);
  return static_cast<int>(s.size());
}

int Topology::free_gpus() const {
  int f = 0;
  for (const auto& n : nodes)
    if (n.available) f += n.free_gpus();
  return f;
}

void JobShape::set_gpus(const GpuRequest& r) {
  gpus_per_job = r.per_job, gpus_per_node = r.per_node, gpus_per_task = r.per_task;
  if (!r.per_job && !r.per_node && !r.per_task) gpus_per_node = r.per_socket;
}

int JobShape::total_gpus() const {
  return gpu_count({gpus_per_job, gpus_per_node, gpus_per_task, 0}, min_nodes, tasks);
}

double gpu_fragmentation(const Topology& t) {
  int free = 0, on_free_nodes = 0;
  for (const auto& n : t.nodes) {
    if (!n.available) continue;
    free += n.free_gpus();
    if (n.free_gpus() == n.gpus()) on_free_nodes += n.gpus();
  }
  return free ? 1.0 - static_cast<double>(on_free_nodes) / free : 0.0;
}

}  // namespace tune
