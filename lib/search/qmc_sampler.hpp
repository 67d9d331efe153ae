// SPDX-License-Identifier: GPL-2.0-or-later
// Quasi-random search (--algo qmc): trial k is point k of a scrambled
// Halton sequence (halton.hpp) over the unit cube of every parameter,
// decoded on each parameter's own scale. Like random search it learns
// nothing, but its points fill the space evenly: no two crowd together and
// no region stays empty, the low-discrepancy design Optuna's QMCSampler
// offers. Trial k depends only on (seed, k), so a resumed study proposes
// what an uninterrupted one would have.
#pragma once

#include "search/halton.hpp"
#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

class QmcSampler final : public Sampler {
 public:
  QmcSampler(const SearchSpace& space, std::uint64_t seed);
  std::string_view name() const override { return "qmc"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;

 private:
  SearchSpace space_;
  ScrambledHalton sequence_;
};

}  // namespace tune
