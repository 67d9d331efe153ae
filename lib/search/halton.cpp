// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/halton.hpp"

#include <cmath>
#include <random>
#include <utility>

namespace tune {

ScrambledHalton::ScrambledHalton(int dims, std::uint64_t seed) {
  for (std::uint32_t candidate = 2; static_cast<int>(primes_.size()) < dims; ++candidate) {
    bool prime = true;
    for (const auto p : primes_)
      if (candidate % p == 0) prime = false;
    if (prime) primes_.push_back(candidate);
  }
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32), 0x4a17u};
  std::mt19937_64 rng(seq);
  // Fisher-Yates and a 53-bit shift by hand: std distributions differ
  // between standard libraries, and a seed must mean the same design everywhere.
  for (const auto p : primes_) {
    std::vector<std::uint32_t> perm(p);
    for (std::uint32_t k = 0; k < p; ++k) perm[k] = k;
    for (std::uint32_t k = p - 1; k > 1; --k) std::swap(perm[k], perm[1 + rng() % k]);
    perms_.push_back(std::move(perm));
    shifts_.push_back(static_cast<double>(rng() >> 11) * 0x1.0p-53);
  }
}

std::vector<double> ScrambledHalton::point(std::uint64_t index) const {
  std::vector<double> out(primes_.size());
  for (std::size_t j = 0; j < primes_.size(); ++j) {
    const std::uint32_t b = primes_[j];
    double value = 0, scale = 1.0 / b;
    for (std::uint64_t i = index + 1; i > 0; i /= b, scale /= b) value += perms_[j][i % b] * scale;
    value += shifts_[j];
    out[j] = value - std::floor(value);
  }
  return out;
}

}  // namespace tune
