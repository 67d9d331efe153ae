// SPDX-License-Identifier: GPL-2.0-or-later
// select/cons_tres's own node choice (Slurm 22.05, job_test.c _eval_nodes,
// for nodes of equal weight and no topology.conf): the usable nodes fall into
// runs of consecutive nodes; the run that holds the job with the fewest CPUs
// is chosen (if none holds it, the run with the most CPUs first, then the
// next); a job that fits on one node gets, in that run, the node with the
// fewest available CPUs that holds it (first in node order on a tie).
#include "placement/cons_tres_placement.hpp"

#include <algorithm>

#include "placement/fill.hpp"

namespace tune {

using namespace placement_detail;

std::optional<Placement> ConsTresPlacement::place(const Topology& t, const JobShape& j) const {
  struct Run {
    int first, last;
    long cpus = 0, nodes = 0, gpus = 0;
    bool used = false;
  };
  const int n = static_cast<int>(t.nodes.size());
  std::vector<int> avail(n, 0), gpus(n, 0), tasks(n, 0);
  std::vector<Run> runs;
  for (int i = 0; i < n; ++i) {
    const Capacity c = capacity(t.nodes[i], j);
    if (c.tasks > 0) {
      avail[i] = t.nodes[i].free_cores;
      gpus[i] = c.gpus;
      tasks[i] = c.tasks;
      if (runs.empty() || runs.back().last != i - 1) runs.push_back({i, i});
      Run& r = runs.back();
      r.last = i;
      r.cpus += avail[i], r.nodes += 1, r.gpus += gpus[i];
    }
  }
  const Need need = need_of(j);
  long rem_cpus = cpus_for(j, need.tasks, j.total_gpus());
  long rem_nodes = need.min_nodes, rem_gpus = j.gpus_per_job;
  std::vector<int> order;
  while (true) {
    int best = -1;
    bool best_sufficient = false;
    for (int r = 0; r < static_cast<int>(runs.size()); ++r) {
      if (runs[r].used) continue;
      const bool sufficient =
          runs[r].cpus >= rem_cpus && runs[r].nodes >= rem_nodes && runs[r].gpus >= rem_gpus;
      bool better = best < 0;
      if (!better)
        better = (sufficient && !best_sufficient) || (sufficient && runs[r].cpus < runs[best].cpus) ||
                 (!sufficient && runs[r].cpus > runs[best].cpus);
      if (better) best = r, best_sufficient = sufficient;
    }
    if (best < 0) break;
    Run& r = runs[best];
    r.used = true;
    int single = -1;
    if (rem_nodes <= 1)
      for (int i = r.first; i <= r.last; ++i)
        if (avail[i] >= rem_cpus && gpus[i] >= rem_gpus && tasks[i] >= need.tasks &&
            (single < 0 || avail[i] < avail[single]))
          single = i;
    if (single >= 0) {
      order.push_back(single);
      break;
    }
    for (int i = r.first; i <= r.last; ++i) order.push_back(i);
    rem_cpus -= r.cpus, rem_nodes -= r.nodes, rem_gpus -= r.gpus;
    if (rem_cpus <= 0 && rem_nodes <= 0 && rem_gpus <= 0) break;
  }
  auto p = fill(t, j, order);
  if (p) lowest_free_gpus(t, *p);
  return p;
}

std::optional<Placement> FirstFitPlacement::place(const Topology& t, const JobShape& j) const {
  std::vector<int> order(t.nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  auto p = fill(t, j, order);
  if (p) lowest_free_gpus(t, *p);
  return p;
}

}  // namespace tune
