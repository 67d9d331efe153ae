// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/random_sampler.hpp"

#include <random>

#include "search/draws.hpp"

namespace tune {

Assignment uniform_assignment(const SearchSpace& space, std::mt19937_64& rng) {
  Assignment out;
  for (const auto& p : space.parameters()) out.push_back(p.decode(unit_draw(rng)));
  return space.prune_inactive(std::move(out));
}

std::optional<Assignment> RandomSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  auto rng = trial_rng(seed_, trial);
  return uniform_assignment(space_, rng);
}

}  // namespace tune
