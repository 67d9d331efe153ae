// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/first_fit_placement.hpp"

#include "placement/fill.hpp"

namespace tune {
using namespace placement_detail;

std::optional<Placement> FirstFitPlacement::place(const Topology& t, const JobShape& j) const {
  std::vector<int> order(t.nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  auto p = fill(t, j, order);
  if (p) lowest_free_gpus(t, *p);
  return p;
}

}  // namespace tune
