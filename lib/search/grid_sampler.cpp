// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/grid_sampler.hpp"

#include <string>

namespace tune {

GridSampler::GridSampler(const SearchSpace& space, int grid_points) : space_(space) {
  if (grid_points < 1)
    throw SpaceError("--grid-points must be at least 1, got " + std::to_string(grid_points));
  for (const auto& p : space.parameters()) {
    std::vector<ParamValue> axis;
    const std::size_t n = p.cardinality();
    if (n != 0 && (p.kind != ParamKind::Int || n <= static_cast<std::size_t>(grid_points))) {
      // Every value: listed numbers and choices always, small int ranges too.
      for (std::size_t k = 0; k < n; ++k) axis.push_back(p.decode((static_cast<double>(k) + 0.5) / n));
    } else {
      // grid_points values from end to end (on the parameter's own scale).
      for (int k = 0; k < grid_points; ++k) {
        const double u = grid_points == 1 ? 0.5 : static_cast<double>(k) / (grid_points - 1);
        ParamValue v = p.decode(u);
        if (axis.empty() || axis.back() != v) axis.push_back(std::move(v));
      }
    }
    if (total_ > kMaxPoints / axis.size())
      throw SpaceError("the grid has more than " + std::to_string(kMaxPoints) +
                       " points; lower --grid-points or list fewer values (parameter '" + p.name + "')");
    total_ *= axis.size();
    axes_.push_back(std::move(axis));
  }
  if (space.conditional()) {
    // A product point is kept when every inactive parameter sits at its
    // axis's first value: the others repeat it once the value is dropped.
    for (std::uint64_t k = 0; k < total_; ++k) {
      const auto full = point(k);
      const auto on = space.active(full);
      bool first = true;
      for (std::size_t i = 0; i < on.size() && first; ++i) first = on[i] || full[i] == axes_[i].front();
      if (first) kept_.push_back(k);
    }
    total_ = kept_.size();
  }
}

Assignment GridSampler::point(std::uint64_t index) const {
  // Mixed-radix digits of `index`, the last parameter varying fastest.
  Assignment out(axes_.size());
  for (std::size_t i = axes_.size(); i-- > 0;) {
    out[i] = axes_[i][index % axes_[i].size()];
    index /= axes_[i].size();
  }
  return out;
}

std::optional<Assignment> GridSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  if (trial >= total_) return std::nullopt;
  if (!space_.conditional()) return point(trial);
  return space_.prune_inactive(point(kept_[trial]));
}

}  // namespace tune
