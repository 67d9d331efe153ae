// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/qmc_sampler.hpp"

namespace tune {

QmcSampler::QmcSampler(const SearchSpace& space, std::uint64_t seed)
    : space_(space), sequence_(static_cast<int>(space.parameters().size()), seed) {}

std::optional<Assignment> QmcSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  // Every parameter takes its coordinate, active or not, so the points a
  // conditional space's branches see stay evenly spread in each.
  const std::vector<double> u = sequence_.point(trial);
  Assignment out;
  for (std::size_t i = 0; i < space_.parameters().size(); ++i)
    out.push_back(space_.parameters()[i].decode(u[i]));
  return space_.prune_inactive(std::move(out));
}

}  // namespace tune
