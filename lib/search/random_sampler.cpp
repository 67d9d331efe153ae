// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/random_sampler.hpp"

#include <random>

#include "search/draws.hpp"

namespace tune {

std::optional<Assignment> RandomSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  auto rng = trial_rng(seed_, trial);
  Assignment out;
  // Every parameter draws, active or not, so a seed gives the same values
  // to the parameters a space shares with its conditional variant.
  for (const auto& p : space_.parameters()) out.push_back(p.decode(unit_draw(rng)));
  return space_.prune_inactive(std::move(out));
}

}  // namespace tune
