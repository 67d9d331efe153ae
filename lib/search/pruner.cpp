// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/pruner.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "search/asha_pruner.hpp"
#include "search/hyperband_pruner.hpp"
#include "search/median_pruner.hpp"

namespace tune {

namespace pruning {

double oriented(double value, bool minimize) {
  if (!std::isfinite(value)) return kWorst;
  return minimize ? value : -value;
}

std::string shown(double oriented_value, bool minimize) {
  if (oriented_value == kWorst) return "nan/inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", minimize ? oriented_value : -oriented_value);
  return buf;
}

}  // namespace pruning

namespace {

// Every rule starts judging at a step (asha's first rung is there), and the
// halving rules keep 1/eta: one flag each, which each rule explains.
SettingSpec min_resource(const char* help) {
  return {.key = "min_resource", .flag = "--min-resource", .help = help, .fallback = 1, .lo = 1, .hi = 1e9};
}
SettingSpec reduction_factor(const char* help) {
  return {.key = "reduction_factor",
          .flag = "--reduction-factor",
          .help = help,
          .fallback = 3,
          .lo = 2,
          .hi = 1000};
}

}  // namespace

const Registry<PrunerEntry>& pruners() {
  static const Registry<PrunerEntry> registry(
      "pruning rule",
      {
          {"none", {}, "every trial runs to its end", [](const PrunerOptions&) { return nullptr; }},
          {"asha",
           {},
           "asynchronous successive halving: rungs at min-resource * eta^k",
           [](const PrunerOptions& o) { return std::make_unique<AshaPruner>(o); },
           {min_resource("asha: step of the first rung"),
            reduction_factor("asha: keep the best 1/N at each rung")}},
          {"hyperband",
           {},
           "asynchronous Hyperband: successive halving in brackets that start judging at min-resource * "
           "eta^k",
           [](const PrunerOptions& o) { return std::make_unique<HyperbandPruner>(o); },
           {min_resource("hyperband: step of bracket 0's first rung"),
            reduction_factor("hyperband: the same in each bracket"),
            {.key = "brackets",
             .flag = "--brackets",
             .help = "hyperband: brackets, the k-th first judging at min-resource * eta^k",
             .fallback = 4,
             .lo = 1,
             .hi = 20}}},
          {"median",
           {},
           "the median stopping rule: worse than the median of finished trials at a step",
           [](const PrunerOptions& o) { return std::make_unique<MedianPruner>(o); },
           {min_resource("median: first step that may stop"),
            {.key = "min_trials",
             .flag = "--prune-min-trials",
             .help = "median: finished trials needed before any trial is stopped",
             .fallback = 5,
             .lo = 1,
             .hi = 1e6}}},
      });
  return registry;
}

nlohmann::json PrunerOptions::to_json() const {
  nlohmann::json j = {{"rule", rule}, {"metric", metric}, {"minimize", minimize}};
  if (const PrunerEntry* e = pruners().find(rule)) {
    const nlohmann::json own = complete(e->settings, settings).to_json();
    for (const auto& [k, v] : own.items()) j[k] = v;
  }
  return j;
}

PrunerOptions PrunerOptions::from_json(const nlohmann::json& j) {
  PrunerOptions o;
  try {
    o.rule = j.at("rule").get<std::string>();
    o.metric = j.at("metric").get<std::string>();
    o.minimize = j.at("minimize").get<bool>();
    if (const PrunerEntry* e = pruners().find(o.rule))
      for (const auto& spec : e->settings)
        if (j.contains(spec.key)) o.settings.set(spec.key, j.at(spec.key).get<double>());
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("pruner settings: ") + e.what());
  }
  o.validate();
  return o;
}

void PrunerOptions::validate() const {
  if (!pruners().contains(rule)) throw std::invalid_argument("--prune: " + pruners().unknown(rule));
  if (rule == "none") return;
  if (metric.empty())
    throw std::invalid_argument(
        "--prune " + rule +
        " needs --prune-metric NAME: the reported metric to compare between trials (it must "
        "improve in the study's --direction)");
  (void)complete(pruners().at(rule).settings, settings);
}

std::unique_ptr<Pruner> make_pruner(const PrunerOptions& o) {
  o.validate();
  const PrunerEntry& entry = pruners().at(o.rule);
  PrunerOptions own = o;
  own.settings = complete(entry.settings, o.settings);
  return entry.make(own);
}

}  // namespace tune
