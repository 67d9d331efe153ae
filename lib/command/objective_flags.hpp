// SPDX-License-Identifier: GPL-2.0-or-later
// --objective, --direction and --target as people type them: one objective
// (reported as objective=), or several named ones, each with its direction
// and target.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "history/history.hpp"

namespace tune {

struct ObjectiveFlags {
  std::vector<ObjectiveSpec> objectives;  // empty: the one objective=
  bool minimize = true;                   // the (first) objective's direction
  std::optional<double> target;           // one objective
  std::vector<double> targets;            // named objectives: one per objective
};

// objective: "" or "loss,latency" (names as the report protocol's keys);
// direction: "min"/"max", or one per objective ("min,max"); target: "" or a
// number per objective. Throws std::invalid_argument naming the flag and the fix.
ObjectiveFlags parse_objective_flags(std::string_view objective, std::string_view direction,
                                     std::string_view target);

// --metric-regex reads one objective from stdout, so it does not go with
// --objective naming several (or one by name). Throws std::invalid_argument.
void check_objective_source(std::string_view objective, std::string_view metric_regex);

// The flags back as text: objective_text and direction_text (history.hpp).

}  // namespace tune
