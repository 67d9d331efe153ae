// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/placement_policy.hpp"

#include <stdexcept>

namespace tune {

void apply(Topology& t, const Placement& p, const JobShape& /*job*/) {
  for (const auto& g : p.nodes) {
    NodeCell& n = t.nodes[g.node];
    n.free_cores -= g.cpus;
    n.free_mem_mb -= g.mem_mb;
    for (int i : g.gpu_indices) {
      if (!n.gpu_free[i])
        throw std::logic_error("GPU " + std::to_string(i) + " of " + n.name + " is not free");
      n.gpu_free[i] = false;
    }
  }
}

void release(Topology& t, const Placement& p) {
  for (const auto& g : p.nodes) {
    NodeCell& n = t.nodes[g.node];
    n.free_cores += g.cpus;
    n.free_mem_mb += g.mem_mb;
    for (int i : g.gpu_indices) n.gpu_free[i] = true;
  }
}

}  // namespace tune
