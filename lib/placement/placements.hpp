// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The placement policies by name, in one list (placements.cpp): what tune
// place, tune simulate and select_gang.conf's `placement` accept.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "placement/placement_policy.hpp"
#include "registry/registry.hpp"

namespace tune {

// The plugin runs those marked in_plugin; cons_tres and first-fit are what
// it falls back on.
struct PlacementEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::function<std::unique_ptr<PlacementPolicy>(const PlacementOptions&)> make;
  bool in_plugin = false;
};
const Registry<PlacementEntry>& placements();
// The names the plugin runs (in_plugin).
std::vector<std::string> plugin_placement_names();
// The policy by name; UnknownName naming the known ones otherwise.
std::unique_ptr<PlacementPolicy> make_placement(std::string_view name, PlacementOptions options = {});

}  // namespace tune
