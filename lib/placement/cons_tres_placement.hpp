// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// select/cons_tres's choices, the baselines gang placement is measured
// against and what select/cons_tres_gang falls back on.
#include <optional>
#include <string>

#include "placement/placement_policy.hpp"

namespace tune {

// What select/cons_tres does without weights: the first nodes in node order
// that can hold the job.
class FirstFitPlacement : public PlacementPolicy {
 public:
  std::optional<Placement> place(const Topology& t, const JobShape& job) const override;
  std::string name() const override { return "first-fit"; }
};

// select/cons_tres's own choice (see cons_tres_placement.cpp): the tightest
// run of consecutive usable nodes, and in it, for a one-node job, the node
// with the fewest available CPUs. What the simulator compares gang against.
class ConsTresPlacement : public PlacementPolicy {
 public:
  std::optional<Placement> place(const Topology& t, const JobShape& job) const override;
  std::string name() const override { return "cons_tres"; }
};

}  // namespace tune
