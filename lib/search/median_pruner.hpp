// SPDX-License-Identifier: GPL-2.0-or-later
// The median stopping rule (Golovin et al., KDD 2017): see pruner.hpp.
#pragma once

#include <map>
#include <vector>

#include "search/pruner.hpp"

namespace tune {

class MedianPruner final : public Pruner {
 public:
  // Reads the settings min_resource and min_trials.
  explicit MedianPruner(const PrunerOptions& o);
  std::string_view name() const override { return "median"; }
  std::optional<std::string> report(std::uint64_t trial, std::int64_t step, double value) override;
  void finished(std::uint64_t trial, bool completed) override;

 private:
  // Best value of `trial` at steps <= step, if it reported any.
  std::optional<double> best_until(std::uint64_t trial, std::int64_t step) const;

  PrunerOptions options_;
  std::int64_t min_resource_;
  std::size_t min_trials_;
  std::map<std::uint64_t, std::map<std::int64_t, double>>
      values_;  // trial -> step -> value (smaller is better)
  std::vector<std::uint64_t> completed_;
};

}  // namespace tune
