// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/warm_start.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace tune {

namespace {

using json = nlohmann::json;

// A value of parameter `p` from JSON, or nothing when its type is wrong.
std::optional<ParamValue> value_from_json(const json& v, const Parameter& p) {
  if (p.kind == ParamKind::Choice) {
    if (!v.is_string()) return std::nullopt;
    return ParamValue{v.get<std::string>()};
  }
  if (!v.is_number()) return std::nullopt;
  if (p.kind == ParamKind::Int) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15) return std::nullopt;
    return ParamValue{static_cast<std::int64_t>(d)};
  }
  return ParamValue{v.get<double>()};
}

const char* expected_type(const Parameter& p) {
  switch (p.kind) {
    case ParamKind::Choice: return "one of its strings";
    case ParamKind::Int: return "a whole number";
    default: return "a number";
  }
}

// The same value as the type parameter `p` holds (an old study may have
// stored 3 where the new space has a real interval, or 3.0 for an integer).
std::optional<ParamValue> convert(const ParamValue& v, const Parameter& p) {
  if (p.kind == ParamKind::Choice) {
    if (std::holds_alternative<std::string>(v)) return v;
    return std::nullopt;
  }
  double d;
  if (const auto* i = std::get_if<std::int64_t>(&v))
    d = static_cast<double>(*i);
  else if (const auto* x = std::get_if<double>(&v))
    d = *x;
  else
    return std::nullopt;
  return value_from_json(json(d), p);
}

}  // namespace

std::vector<Assignment> parse_enqueued(const std::string& json_text, const SearchSpace& space,
                                       const std::string& source) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw WarmStartError(
        source + ": not valid JSON (" + e.what() +
        "); give a list of objects, one per trial, e.g. [{\"lr\": 0.01, \"optimizer\": \"sgd\"}]");
  }
  if (!doc.is_array())
    throw WarmStartError(
        source + ": expected a JSON list of parameter sets, e.g. [{\"lr\": 0.01, \"optimizer\": \"sgd\"}]");
  std::vector<Assignment> out;
  for (std::size_t k = 0; k < doc.size(); ++k) {
    const json& entry = doc[k];
    const std::string where = source + ": entry " + std::to_string(k + 1);
    if (!entry.is_object()) throw WarmStartError(where + " is not an object of parameter values");
    for (const auto& [name, value] : entry.items()) {
      bool known = false;
      for (const auto& p : space.parameters()) known = known || p.name == name;
      if (!known)
        throw WarmStartError(where + " names '" + name +
                             "', which is not a parameter of the space; remove it");
    }
    Assignment a;
    for (const auto& p : space.parameters()) {
      // A conditional parameter may be left out (or null, as tune export
      // writes it): whether it must be there is checked below.
      if (!entry.contains(p.name) || (!p.when.empty() && entry.at(p.name).is_null())) {
        if (p.when.empty())
          throw WarmStartError(where + " has no value for '" + p.name +
                               "'; give every parameter of the space");
        a.emplace_back(std::monostate{});
        continue;
      }
      const auto v = value_from_json(entry.at(p.name), p);
      if (!v)
        throw WarmStartError(where + ": '" + p.name + "' must be " + expected_type(p) + ", not " +
                             entry.at(p.name).dump());
      try {
        (void)p.encode(*v);
      } catch (const SpaceError& e) {
        throw WarmStartError(where + ": " + e.what());
      }
      a.push_back(*v);
    }
    if (space.conditional()) {
      try {
        space.check(a, where);
      } catch (const SpaceError& e) {
        throw WarmStartError(e.what());
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<Assignment> read_enqueued(const std::string& path, const SearchSpace& space,
                                      std::optional<std::uint64_t> trials) {
  std::ifstream in(path);
  if (!in) throw WarmStartError("--enqueue " + path + ": cannot read the file: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  auto sets = parse_enqueued(text.str(), space, "--enqueue " + path);
  if (trials && sets.size() > *trials)
    throw WarmStartError("--enqueue " + path + " lists " + std::to_string(sets.size()) +
                         " parameter sets but --trials is " + std::to_string(*trials) +
                         "; enqueued trials count towards --trials: raise it or list fewer");
  return sets;
}

std::string enqueued_to_json(const std::vector<Assignment>& sets, const SearchSpace& space) {
  json doc = json::array();
  for (const auto& a : sets) {
    json entry = json::object();
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!is_absent(a[i])) entry[space.parameters()[i].name] = to_json(a[i]);
    doc.push_back(std::move(entry));
  }
  return doc.dump();
}

std::vector<Assignment> enqueued_from_json(const std::string& json_text, const SearchSpace& space) {
  return parse_enqueued(json_text, space, "the history's enqueued attribute");
}

Imported import_trials(const HistorySnapshot& old, const std::string& old_path, const SearchSpace& space,
                       bool minimize, const std::vector<ObjectiveSpec>& objectives) {
  const auto aim = [](const std::vector<ObjectiveSpec>& objs, bool min) {
    return (objs.empty() ? std::string("objective") : objective_text(objs)) + ", " +
           direction_text(objs, min);
  };
  if (aim(old.study.objectives, old.study.minimize) != aim(objectives, minimize) &&
      (!old.study.objectives.empty() || !objectives.empty()))
    throw WarmStartError("--warm-start " + old_path + ": that study's objectives (" +
                         aim(old.study.objectives, old.study.minimize) + ") differ from this one's (" +
                         aim(objectives, minimize) + "); its results would mislead the search");
  if (old.study.minimize != minimize)
    throw WarmStartError(
        "--warm-start " + old_path + ": that study " + (old.study.minimize ? "minimised" : "maximised") +
        " its objective and this one " + (minimize ? "minimises" : "maximises") +
        "; its results would mislead the search (give the same --direction, or no --warm-start)");
  std::vector<std::size_t> index;  // of each new parameter in the old space
  for (const auto& p : space.parameters()) {
    const auto& olds = old.study.space.parameters();
    std::size_t i = 0;
    while (i < olds.size() && olds[i].name != p.name) ++i;
    if (i == olds.size())
      throw WarmStartError(
          "--warm-start " + old_path + ": its study has no parameter '" + p.name +
          "', so its trials say nothing about it; warm-start from a study whose space has every "
          "parameter of this one");
    index.push_back(i);
  }
  Imported out;
  for (const auto& t : old.trials) {
    if (t.state != TrialState::Ok && t.state != TrialState::Pruned) continue;
    Assignment a;
    std::string why;
    for (std::size_t j = 0; j < index.size() && why.empty(); ++j) {
      const Parameter& p = space.parameters()[j];
      if (index[j] < t.params.size() && is_absent(t.params[index[j]])) {
        a.emplace_back(std::monostate{});  // whether this space needs it is checked below
        continue;
      }
      const auto v = index[j] < t.params.size() ? convert(t.params[index[j]], p) : std::nullopt;
      if (!v) {
        why = "'" + p.name + "' has a value of another type";
        break;
      }
      try {
        (void)p.encode(*v);
      } catch (const SpaceError& e) {
        why = e.what();
        break;
      }
      a.push_back(*v);
    }
    if (why.empty() && space.conditional()) {
      a = space.prune_inactive(std::move(a));  // what this space's conditions leave out
      try {
        space.check(a, "trial " + std::to_string(t.id));
      } catch (const SpaceError& e) {
        why = std::string(e.what()).substr(("trial " + std::to_string(t.id) + ": ").size());
      }
    } else if (why.empty()) {
      for (std::size_t j = 0; j < a.size() && why.empty(); ++j)
        if (is_absent(a[j])) why = "'" + space.parameters()[j].name + "' did not exist in that trial";
    }
    if (!why.empty()) {
      if (out.skipped++ == 0) out.why_skipped = "trial " + std::to_string(t.id) + ": " + why;
      continue;
    }
    Trial n = t;
    n.id = out.trials.size();
    n.params = std::move(a);
    n.message = "imported from " + old_path + " trial " + std::to_string(t.id);
    out.trials.push_back(std::move(n));
  }
  return out;
}

}  // namespace tune
