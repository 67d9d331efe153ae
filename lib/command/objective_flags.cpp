// SPDX-License-Identifier: GPL-2.0-or-later
#include "command/objective_flags.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>

#include "command/text_input.hpp"

namespace tune {
namespace {

std::vector<std::string> items(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool metric_key(const std::string& s) {
  if (s.empty() || s.size() > 64 || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return true;
}

bool direction_of(const std::string& d, bool& minimize) {
  if (d == "min")
    minimize = true;
  else if (d == "max")
    minimize = false;
  else
    return false;
  return true;
}

}  // namespace

ObjectiveFlags parse_objective_flags(std::string_view objective, std::string_view direction,
                                     std::string_view target) {
  ObjectiveFlags out;
  const auto dirs = items(direction);
  if (objective.empty()) {
    if (dirs.size() != 1 || !direction_of(dirs[0], out.minimize))
      throw std::invalid_argument(
          "--direction: give min or max" +
          std::string(dirs.size() > 1 ? " (one per objective needs --objective with their names)" : ""));
    if (!target.empty()) {
      if (items(target).size() > 1)
        throw std::invalid_argument(
            "--target: one value for the one objective (several need --objective with their names)");
      out.target = parse_number(std::string(target), "--target");
    }
    return out;
  }
  std::set<std::string> seen;
  for (const auto& name : items(objective)) {
    if (!metric_key(name))
      throw std::invalid_argument(
          "--objective: '" + name +
          "' is not a report key (letters, digits, _ and ., not starting with a digit); "
          "give the names the program reports, e.g. --objective loss,latency");
    if (name == "step") throw std::invalid_argument("--objective: 'step' is the report's step, not a value");
    if (!seen.insert(name).second) throw std::invalid_argument("--objective: '" + name + "' is named twice");
    out.objectives.push_back({name, true});
  }
  if (dirs.size() != 1 && dirs.size() != out.objectives.size())
    throw std::invalid_argument(
        "--direction: give one (min or max, for every objective) or one per objective (" +
        std::to_string(out.objectives.size()) + "), e.g. --direction min,max");
  for (std::size_t i = 0; i < out.objectives.size(); ++i)
    if (!direction_of(dirs[dirs.size() == 1 ? 0 : i], out.objectives[i].minimize))
      throw std::invalid_argument("--direction: '" + dirs[dirs.size() == 1 ? 0 : i] +
                                  "' is neither min nor max");
  out.minimize = out.objectives[0].minimize;
  if (!target.empty()) {
    const auto ts = items(target);
    if (ts.size() != out.objectives.size())
      throw std::invalid_argument("--target: give one value per objective (" +
                                  std::to_string(out.objectives.size()) +
                                  "); the study stops once one trial meets them all");
    for (const auto& t : ts) out.targets.push_back(parse_number(t, "--target"));
    if (out.objectives.size() == 1) out.target = out.targets[0], out.targets.clear();
  }
  return out;
}

void check_objective_source(std::string_view objective, std::string_view metric_regex) {
  if (!objective.empty() && !metric_regex.empty())
    throw std::invalid_argument(
        "--metric-regex reads one objective from stdout; with --objective the program reports each by name");
}

}  // namespace tune
