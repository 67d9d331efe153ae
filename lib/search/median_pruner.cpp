// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/median_pruner.hpp"

#include <algorithm>
#include <limits>

namespace tune {

using pruning::kWorst;
using pruning::oriented;
using pruning::shown;

MedianPruner::MedianPruner(const PrunerOptions& o)
    : options_(o),
      min_resource_(static_cast<std::int64_t>(o.settings.at("min_resource"))),
      min_trials_(static_cast<std::size_t>(o.settings.at("min_trials"))) {}

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
  if (step < min_resource_) return std::nullopt;
  std::vector<double> peers;
  for (const auto id : completed_)
    if (id != trial)
      if (const auto b = best_until(id, step)) peers.push_back(*b);
  if (peers.size() < min_trials_) return std::nullopt;
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
