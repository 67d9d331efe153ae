// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/fragmentation_placement.hpp"

#include <algorithm>
#include <cmath>

#include "placement/fill.hpp"

namespace tune {

using namespace placement_detail;

void WorkloadMix::observe(const JobShape& j) {
  if (!j.wants_gpus()) return;  // a CPU-only job uses no GPU: it measures no GPU as lost
  // The demand on one node of the job.
  const int nodes = std::max(1, j.min_nodes);
  const int tasks = (j.tasks + nodes - 1) / nodes;
  int gpus = j.gpus_per_node;
  if (j.gpus_per_task > 0) gpus = tasks * j.gpus_per_task;
  if (j.gpus_per_job > 0) gpus = (j.gpus_per_job + nodes - 1) / nodes;
  const int cpus = cpus_for(j, tasks, gpus);
  const double mem = std::ceil(mem_for(j, cpus, gpus) / 1024) * 1024;  // classes by whole GiB
  const double keep = 1 - 1 / horizon_;
  // Weighted by GPUs: a class counts by its share of the GPU demand, so the
  // rare 8-GPU job is not outvoted by many 1-GPU jobs (weighted by count,
  // openb's multi-GPU jobs waited 1.5x as long at 80% load).
  const double w = gpus * nodes;
  for (auto& c : classes_) c.weight *= keep;
  total_ = total_ * keep + w;
  auto it = std::find_if(classes_.begin(), classes_.end(),
                         [&](const Class& c) { return c.gpus == gpus && c.cpus == cpus && c.mem_mb == mem; });
  if (it != classes_.end()) {
    it->weight += w;
    return;
  }
  if (classes_.size() >= max_classes_) {  // forget the rarest
    auto rare = std::min_element(classes_.begin(), classes_.end(),
                                 [](const Class& a, const Class& b) { return a.weight < b.weight; });
    total_ -= rare->weight;
    classes_.erase(rare);
  }
  classes_.push_back({gpus, cpus, mem, w});
}

double WorkloadMix::fragmentation(int free_gpus, int free_cores, double free_mem_mb) const {
  if (free_gpus <= 0 || total_ <= 0) return 0;
  double lost = 0;
  for (const auto& c : classes_)
    if (c.gpus > free_gpus || c.cpus > free_cores || c.mem_mb > free_mem_mb + 1e-9) lost += c.weight;
  return free_gpus * lost / total_;
}

std::optional<Placement> FragmentationPlacement::place(const Topology& t, const JobShape& j) const {
  if (mix_.empty() || need_of(j).min_nodes > 1) return gang_.place(t, j);
  std::optional<Placement> best;
  std::pair<double, FitKey> best_key;
  for (int i = 0; i < static_cast<int>(t.nodes.size()); ++i) {
    const NodeCell& n = t.nodes[i];
    const Capacity c = capacity(n, j);
    if (c.tasks == 0) continue;
    auto p = fill(t, j, {i});
    if (!p) continue;
    const NodeGrant& g = p->nodes.front();
    const double before = mix_.fragmentation(n.free_gpus(), n.free_cores, n.free_mem_mb);
    const double after =
        mix_.fragmentation(n.free_gpus() - g.gpus, n.free_cores - g.cpus, n.free_mem_mb - g.mem_mb);
    const std::pair<double, FitKey> key{after - before, fit_key(n, j, c, options_)};
    if (!best || key < best_key) best = std::move(p), best_key = key;
  }
  if (!best) return gang_.place(t, j);  // several nodes after all
  for (auto& g : best->nodes) choose_gpus(t.nodes[g.node], g);
  return best;
}

}  // namespace tune
