// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/hyperband_pruner.hpp"

#include <cmath>

#include "search/draws.hpp"

namespace tune {

namespace {

// Keeps the draw of a bracket apart from any sampler's draws of the trial.
constexpr std::uint32_t kBracketSalt = 0x6862;  // "hb"

}  // namespace

HyperbandPruner::HyperbandPruner(const PrunerOptions& o) {
  const auto n = static_cast<std::size_t>(o.settings.at("brackets"));
  const double eta = o.settings.at("reduction_factor");
  const double r = o.settings.at("min_resource");
  // Hyperband's bracket with s = n-1-k halvings left starts ceil(n/(s+1) * eta^s)
  // configurations: bracket 0 (judged soonest) the most.
  std::vector<double> starts(n);
  double total = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double s = static_cast<double>(n - 1 - k);
    total += starts[k] = std::ceil(static_cast<double>(n) / (s + 1) * std::pow(eta, s));
  }
  double sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    PrunerOptions own = o;
    own.settings.set("min_resource", std::min(r * std::pow(eta, static_cast<double>(k)), 9e15));
    brackets_.push_back(std::make_unique<AshaPruner>(own));
    weights_.push_back(sum += starts[k] / total);
  }
  weights_.back() = 1;
}

std::size_t HyperbandPruner::bracket(std::uint64_t trial) const {
  auto rng = trial_rng(0, trial, kBracketSalt);
  const double u = unit_draw(rng);
  std::size_t k = 0;
  while (k + 1 < weights_.size() && u >= weights_[k]) ++k;
  return k;
}

std::optional<std::string> HyperbandPruner::report(std::uint64_t trial, std::int64_t step, double value) {
  const std::size_t k = bracket(trial);
  auto why = brackets_[k]->report(trial, step, value);
  if (why) *why = "hyperband bracket " + std::to_string(k) + ": " + *why;
  return why;
}

}  // namespace tune
