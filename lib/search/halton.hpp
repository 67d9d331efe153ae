// SPDX-License-Identifier: GPL-2.0-or-later
// Scrambled Halton points: the quasi-random initial design of Bayesian
// search. Point i of dimension j is the radical inverse of i+1 in the j-th
// prime with the digits permuted (0 kept fixed) and a random shift, both
// drawn from the seed, so each seed gives a different, evenly spread design.
#pragma once

#include <cstdint>
#include <vector>

namespace tune {

class ScrambledHalton {
 public:
  ScrambledHalton(int dims, std::uint64_t seed);
  // Point `index` in [0,1)^dims; depends only on (dims, seed, index).
  std::vector<double> point(std::uint64_t index) const;
  int dims() const { return static_cast<int>(primes_.size()); }

 private:
  std::vector<std::uint32_t> primes_;
  std::vector<std::vector<std::uint32_t>> perms_;  // per dimension, a permutation of the digits
  std::vector<double> shifts_;
};

}  // namespace tune
