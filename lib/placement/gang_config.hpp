// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// select_gang.conf: the settings of select/cons_tres_gang (libconfig format).
// A missing file gives the defaults; a syntax error, an unknown name or a value
// out of range throws std::runtime_error "FILE:LINE: reason".
#include <set>
#include <string>

#include "placement/placement_policy.hpp"

namespace tune {

struct GangConfig {
  bool enabled = true;
  std::set<std::string> partitions;  // empty: all
  std::string placement = "gang";    // a name plugin_placement_names() lists: gang or fgd
  PlacementOptions options;

  bool applies_to(const std::string& partition) const {
    return enabled && (partitions.empty() || partitions.count(partition));
  }
};

GangConfig load_gang_config(const std::string& path);
GangConfig parse_gang_config(const std::string& text, const std::string& name);

}  // namespace tune
