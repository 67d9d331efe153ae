// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Fragmentation-aware placement (after Weng et al., "Beware of
// Fragmentation", USENIX ATC '23, FGD): a node's fragmentation, measured by
// the workload's mix of job sizes, is its free GPUs weighted by the share of
// the GPU demand whose jobs could not use them (not enough GPUs, cores or
// memory left there).
// A one-node job goes where its placement raises that the least (or lowers
// it the most); ties, and jobs of several nodes, follow gang placement. The
// mix is learned from the jobs the policy is shown (observe), decayed so that
// the last `horizon` jobs count most. No Slurm here.
#include <vector>

#include "placement/gang_placement.hpp"

namespace tune {

// Job sizes seen, as one-node demands (GPUs, cores, memory on the node), each
// weighted by the GPUs its jobs asked for, exponentially decayed so that the
// last `horizon` jobs count most; at most `max_classes` classes (the rarest
// is forgotten first). CPU-only jobs are not counted: they use no GPU.
class WorkloadMix {
 public:
  explicit WorkloadMix(double horizon = 2000, std::size_t max_classes = 256)
      : horizon_(horizon), max_classes_(max_classes) {}
  void observe(const JobShape& job);
  // Free GPUs that the mix's jobs could not use on a node left with these
  // free GPUs, cores and memory, weighted by the share of such jobs.
  double fragmentation(int free_gpus, int free_cores, double free_mem_mb) const;
  bool empty() const { return classes_.empty(); }

  struct Class {
    int gpus, cpus;
    double mem_mb, weight;
  };
  const std::vector<Class>& classes() const { return classes_; }

 private:
  double horizon_;
  std::size_t max_classes_;
  std::vector<Class> classes_;
  double total_ = 0;
};

class FragmentationPlacement : public PlacementPolicy {
 public:
  explicit FragmentationPlacement(PlacementOptions o = {}, double horizon = 2000)
      : options_(o), gang_(o), mix_(horizon) {}
  std::optional<Placement> place(const Topology& t, const JobShape& job) const override;
  void observe(const JobShape& job) override { mix_.observe(job); }
  std::string name() const override { return "fgd"; }
  const WorkloadMix& mix() const { return mix_; }

 private:
  PlacementOptions options_;
  GangPlacement gang_;
  WorkloadMix mix_;
};

}  // namespace tune
