// SPDX-License-Identifier: GPL-2.0-or-later
// A study's early-stopping rule as its history keeps it, apart from the
// pruners themselves (search/pruner.hpp), so that the history compiles
// without the registry of rules.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "registry/settings.hpp"

namespace tune {

struct PrunerOptions {
  std::string rule = "none";  // a pruners() name
  std::string metric;         // the reported key compared between trials ("objective" for objective=)
  bool minimize = true;       // the metric's direction: the study's
  // The rule's own settings (PrunerEntry::settings), by key: asha's
  // min_resource and reduction_factor, median's min_resource and min_trials.
  Settings settings{};

  // {"rule", "metric", "minimize", and each of the rule's settings}: what the
  // history keeps. Settings not given are written with their defaults.
  nlohmann::json to_json() const;
  // Throws std::invalid_argument naming the bad field.
  static PrunerOptions from_json(const nlohmann::json& j);
  // Throws std::invalid_argument with the flag to fix.
  void validate() const;
};

}  // namespace tune
