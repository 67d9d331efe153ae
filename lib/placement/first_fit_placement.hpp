// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
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

}  // namespace tune
