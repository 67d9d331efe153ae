// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/placements.hpp"

#include "placement/cons_tres_placement.hpp"
#include "placement/fragmentation_placement.hpp"
#include "placement/gang_placement.hpp"

namespace tune {

const Registry<PlacementEntry>& placements() {
  static const Registry<PlacementEntry> registry(
      "placement policy",
      {
          {"gang",
           {},
           "all GPUs of a job at once on the fewest switches and nodes, best fit",
           [](const PlacementOptions& o) { return std::make_unique<GangPlacement>(o); },
           true},
          {"fgd",
           {},
           "fragmentation-aware over the mix of jobs seen (one-node jobs), gang otherwise",
           [](const PlacementOptions& o) { return std::make_unique<FragmentationPlacement>(o); },
           true},
          {"cons_tres",
           {},
           "select/cons_tres's own choice",
           [](const PlacementOptions&) { return std::make_unique<ConsTresPlacement>(); }},
          {"first-fit",
           {},
           "the first nodes in node order that hold the job",
           [](const PlacementOptions&) { return std::make_unique<FirstFitPlacement>(); }},
      });
  return registry;
}

std::vector<std::string> plugin_placement_names() {
  std::vector<std::string> names;
  for (const auto& p : placements().entries())
    if (p.in_plugin) names.push_back(p.name);
  return names;
}

std::unique_ptr<PlacementPolicy> make_placement(std::string_view name, PlacementOptions options) {
  return placements().at(name).make(options);
}

}  // namespace tune
