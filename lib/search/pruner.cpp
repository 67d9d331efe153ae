// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/pruner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tune {
namespace {

constexpr double kWorst = std::numeric_limits<double>::infinity();

// Internally smaller is better; a diverged value is the worst.
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

}  // namespace

const Registry<PrunerEntry>& pruners() {
  static const Registry<PrunerEntry> registry(
      "pruning rule",
      {
          {"none", {}, "every trial runs to its end", [](const PrunerOptions&) { return nullptr; }},
          {"asha",
           {},
           "asynchronous successive halving: rungs at min-resource * eta^k",
           [](const PrunerOptions& o) { return std::make_unique<AshaPruner>(o); }},
          {"median",
           {},
           "the median stopping rule: worse than the median of finished trials at a step",
           [](const PrunerOptions& o) { return std::make_unique<MedianPruner>(o); }},
      });
  return registry;
}

nlohmann::json PrunerOptions::to_json() const {
  return {{"rule", rule},
          {"metric", metric},
          {"min_resource", min_resource},
          {"reduction_factor", reduction_factor},
          {"min_trials", min_trials},
          {"minimize", minimize}};
}

PrunerOptions PrunerOptions::from_json(const nlohmann::json& j) {
  PrunerOptions o;
  try {
    o.rule = j.at("rule").get<std::string>();
    o.metric = j.at("metric").get<std::string>();
    o.min_resource = j.at("min_resource").get<std::int64_t>();
    o.reduction_factor = j.at("reduction_factor").get<int>();
    o.min_trials = j.at("min_trials").get<int>();
    o.minimize = j.at("minimize").get<bool>();
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
  if (min_resource < 1) throw std::invalid_argument("--min-resource must be a step >= 1");
  if (reduction_factor < 2) throw std::invalid_argument("--reduction-factor must be >= 2");
  if (min_trials < 1) throw std::invalid_argument("--prune-min-trials must be >= 1");
}

std::unique_ptr<Pruner> make_pruner(const PrunerOptions& o) {
  o.validate();
  return pruners().at(o.rule).make(o);
}

AshaPruner::AshaPruner(const PrunerOptions& o) : options_(o) {}

std::int64_t AshaPruner::rung_step(std::size_t k) const {
  std::int64_t step = options_.min_resource;
  for (std::size_t i = 0; i < k; ++i) {
    if (step > std::numeric_limits<std::int64_t>::max() / options_.reduction_factor)
      return std::numeric_limits<std::int64_t>::max();
    step *= options_.reduction_factor;
  }
  return step;
}

const std::vector<double>& AshaPruner::rung(std::size_t k) const {
  static const std::vector<double> none;
  return k < rungs_.size() ? rungs_[k] : none;
}

std::optional<std::string> AshaPruner::report(std::uint64_t trial, std::int64_t step, double value) {
  const double v = oriented(value, options_.minimize);
  std::size_t& reached = reached_[trial];
  // Every rung this report passes for the first time, lowest first; a trial
  // that skipped a rung's exact step is judged there by its first later value.
  for (; reached < 64 && step >= rung_step(reached); ++reached) {
    const std::size_t k = reached;
    if (rungs_.size() <= k) rungs_.resize(k + 1);
    auto& values = rungs_[k];
    values.push_back(v);
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t keep =
        std::max<std::size_t>(1, sorted.size() / static_cast<std::size_t>(options_.reduction_factor));
    const double cut = sorted[keep - 1];
    if (v > cut || v == kWorst) {
      ++reached;
      return "pruned by asha at step " + std::to_string(step) + ": " + options_.metric + "=" +
             shown(v, options_.minimize) + " is not in the best " + std::to_string(keep) + " of " +
             std::to_string(sorted.size()) + " trials at rung " + std::to_string(k) + " (step " +
             std::to_string(rung_step(k)) + ", cut " + shown(cut, options_.minimize) + ")";
    }
  }
  return std::nullopt;
}

MedianPruner::MedianPruner(const PrunerOptions& o) : options_(o) {}

void MedianPruner::finished(std::uint64_t trial, bool completed) {
  if (completed && std::find(completed_.begin(), completed_.end(), trial) == completed_.end())
    completed_.push_back(trial);
}

std::optional<double> MedianPruner::best_until(std::uint64_t trial, std::int64_t step) const {
  const auto it = values_.find(trial);
  if (it == values_.end()) return std::nullopt;
  std::optional<double> best;
  for (const auto& [s, v] : it->second) {
    if (s > step) break;
    best = best ? std::min(*best, v) : v;
  }
  return best;
}

std::optional<std::string> MedianPruner::report(std::uint64_t trial, std::int64_t step, double value) {
  const double v = oriented(value, options_.minimize);
  auto& mine = values_[trial];
  if (const auto it = mine.find(step); it == mine.end() || v < it->second) mine[step] = v;
  if (step < options_.min_resource) return std::nullopt;
  std::vector<double> peers;
  for (const auto id : completed_)
    if (id != trial)
      if (const auto b = best_until(id, step)) peers.push_back(*b);
  if (peers.size() < static_cast<std::size_t>(options_.min_trials)) return std::nullopt;
  std::sort(peers.begin(), peers.end());
  const std::size_t n = peers.size();
  const double median = n % 2 ? peers[n / 2] : 0.5 * (peers[n / 2 - 1] + peers[n / 2]);
  const double best = *best_until(trial, step);
  if (best > median || best == kWorst)
    return "pruned by the median rule at step " + std::to_string(step) + ": best " + options_.metric +
           " so far " + shown(best, options_.minimize) + " is worse than the median " +
           shown(median, options_.minimize) + " of " + std::to_string(n) + " finished trials by that step";
  return std::nullopt;
}

}  // namespace tune
