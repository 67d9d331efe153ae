#include "search/grid_sampler.hpp"

#include <string>

namespace tune {

GridSampler::GridSampler(const SearchSpace& space, int grid_points) {
  if (grid_points < 1) throw SpaceError("--grid-points must be at least 1, got " + std::to_string(grid_points));
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
}

std::optional<Assignment> GridSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  if (trial >= total_) return std::nullopt;
  // Mixed-radix digits of `trial`, the last parameter varying fastest.
  Assignment out(axes_.size());
  for (std::size_t i = axes_.size(); i-- > 0;) {
    out[i] = axes_[i][trial % axes_[i].size()];
    trial /= axes_[i].size();
  }
  return out;
}

}  // namespace tune
