// SPDX-License-Identifier: GPL-2.0-or-later
// Asynchronous successive halving (Li et al., MLSys 2020): see pruner.hpp.
#pragma once

#include <map>
#include <vector>

#include "search/pruner.hpp"

namespace tune {

class AshaPruner final : public Pruner {
 public:
  // Reads the settings min_resource and reduction_factor.
  explicit AshaPruner(const PrunerOptions& o);
  std::string_view name() const override { return "asha"; }
  std::optional<std::string> report(std::uint64_t trial, std::int64_t step, double value) override;

  // The step of rung k.
  std::int64_t rung_step(std::size_t k) const;
  // The values recorded at rung k, in arrival order (for the tests).
  const std::vector<double>& rung(std::size_t k) const;

 private:
  PrunerOptions options_;
  std::int64_t min_resource_;
  std::int64_t reduction_factor_;
  std::vector<std::vector<double>> rungs_;        // values, smaller is better (negated when maximising)
  std::map<std::uint64_t, std::size_t> reached_;  // trial -> rungs recorded so far
};

}  // namespace tune
