// SPDX-License-Identifier: GPL-2.0-or-later
// Grid search: every listed value of number/choice parameters, every integer
// of a small int range, and `grid_points` evenly spaced values (log-spaced on
// a log scale) of each interval. Trial k is grid point k, so a resumed study
// continues where it stopped. In a conditional space a parameter's values
// are crossed only with the points where it is active: the grid holds each
// distinct assignment once.
#pragma once

#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

class GridSampler final : public Sampler {
 public:
  GridSampler(const SearchSpace& space, int grid_points);
  std::string_view name() const override { return "grid"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;
  std::optional<std::uint64_t> size() const override { return total_; }

  // Largest grid we accept: a typo in --grid-points must not enumerate forever.
  static constexpr std::uint64_t kMaxPoints = 10'000'000;

 private:
  Assignment point(std::uint64_t index) const;  // of the full product
  SearchSpace space_;                           // a copy: a grid may outlive the space it was built from
  std::vector<std::vector<ParamValue>> axes_;
  std::uint64_t total_ = 1;
  std::vector<std::uint64_t> kept_;  // conditional space: the product's indices kept, in order
};

}  // namespace tune
