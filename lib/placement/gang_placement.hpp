// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Gang GPU placement: the node set that holds the whole job at once and, in
// order, spans the fewest switches, then the fewest nodes, then leaves the
// least fragmentation (best fit: prefer nodes whose free GPUs match the need;
// do not break a fully free node for a job a partly used one can hold). A
// CPU-only job does not take the cores a node's free GPUs need. Ties break by
// node order. Also: which GPU indices to prefer on each node (same socket
// first). No Slurm here.
#include <optional>
#include <string>

#include "placement/placement_policy.hpp"

namespace tune {

// The policy described above.
class GangPlacement : public PlacementPolicy {
 public:
  explicit GangPlacement(PlacementOptions o = {}) : options_(o) {}
  std::optional<Placement> place(const Topology& t, const JobShape& job) const override;
  std::string name() const override { return "gang"; }

 private:
  PlacementOptions options_;
};

}  // namespace tune
