// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/asha_pruner.hpp"

#include <algorithm>
#include <limits>

namespace tune {

using pruning::kWorst;
using pruning::oriented;
using pruning::shown;

AshaPruner::AshaPruner(const PrunerOptions& o)
    : options_(o),
      min_resource_(static_cast<std::int64_t>(o.settings.at("min_resource"))),
      reduction_factor_(static_cast<std::int64_t>(o.settings.at("reduction_factor"))) {}

std::int64_t AshaPruner::rung_step(std::size_t k) const {
  std::int64_t step = min_resource_;
  for (std::size_t i = 0; i < k; ++i) {
    if (step > std::numeric_limits<std::int64_t>::max() / reduction_factor_)
      return std::numeric_limits<std::int64_t>::max();
    step *= reduction_factor_;
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
        std::max<std::size_t>(1, sorted.size() / static_cast<std::size_t>(reduction_factor_));
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

}  // namespace tune
