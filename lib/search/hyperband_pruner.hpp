// SPDX-License-Identifier: GPL-2.0-or-later
// Asynchronous Hyperband (Li et al., JMLR 2018; asynchronous as in Li et al.,
// MLSys 2020): `brackets` runs of successive halving side by side, bracket k
// with its first rung at min-resource * eta^k, so that bracket 0 stops early
// and often and the last lets every trial run to eta^k times longer before
// judging it. A trial belongs to one bracket, drawn from its number with
// Hyperband's weights (more trials where they are judged sooner), and is
// compared only with the trials of its bracket. The draw depends on the
// trial's number alone: a resumed or requeued study, which replays the
// recorded reports, keeps every trial in its bracket.
#pragma once

#include <memory>
#include <vector>

#include "search/asha_pruner.hpp"

namespace tune {

class HyperbandPruner final : public Pruner {
 public:
  // Reads the settings min_resource, reduction_factor and brackets.
  explicit HyperbandPruner(const PrunerOptions& o);
  std::string_view name() const override { return "hyperband"; }
  std::optional<std::string> report(std::uint64_t trial, std::int64_t step, double value) override;

  // The bracket of trial `trial`, and bracket k's share of the trials.
  std::size_t bracket(std::uint64_t trial) const;
  const std::vector<double>& weights() const { return weights_; }
  const AshaPruner& bracket_rungs(std::size_t k) const { return *brackets_.at(k); }

 private:
  std::vector<std::unique_ptr<AshaPruner>> brackets_;
  std::vector<double> weights_;  // cumulative, ending at 1
};

}  // namespace tune
