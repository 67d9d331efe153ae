// SPDX-License-Identifier: GPL-2.0-or-later
// Random search: each parameter drawn uniformly on its own scale. Trial k's
// parameters depend only on (seed, k): reproducible, and a resumed study
// draws exactly what an uninterrupted one would have.
#pragma once

#include <random>

#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

// Each parameter drawn uniformly on its own scale from `rng`, active or not
// (so a seed gives the same values to the parameters a space shares with its
// conditional variant), then the inactive ones made absent: random search's
// proposal, and the random ones of the samplers that learn.
Assignment uniform_assignment(const SearchSpace& space, std::mt19937_64& rng);

class RandomSampler final : public Sampler {
 public:
  RandomSampler(const SearchSpace& space, std::uint64_t seed) : space_(space), seed_(seed) {}
  std::string_view name() const override { return "random"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;

 private:
  SearchSpace space_;
  std::uint64_t seed_;
};

}  // namespace tune
