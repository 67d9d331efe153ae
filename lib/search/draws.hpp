// SPDX-License-Identifier: GPL-2.0-or-later
// Random draws every sampler makes alike: std's distributions differ between
// standard libraries, and a seed must mean the same study everywhere.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace tune {

// The generator of trial `trial`'s proposal: a function of the study's seed,
// the trial number and the sampler's own salt (samplers draw independently).
// random's has no salt, and keeps none: a salt would change every seeded
// random study's draws.
inline std::mt19937_64 trial_rng(std::uint64_t seed, std::uint64_t trial) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(trial), static_cast<std::uint32_t>(trial >> 32)};
  return std::mt19937_64(seq);
}
inline std::mt19937_64 trial_rng(std::uint64_t seed, std::uint64_t trial, std::uint32_t salt) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(trial), static_cast<std::uint32_t>(trial >> 32), salt};
  return std::mt19937_64(seq);
}

// Uniform on [0, 1) from the top 53 bits.
inline double unit_draw(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// A standard normal deviate (Box-Muller).
inline double normal_draw(std::mt19937_64& rng) {
  const double a = std::max(unit_draw(rng), 1e-300), b = unit_draw(rng);
  return std::sqrt(-2 * std::log(a)) * std::cos(2 * std::numbers::pi * b);
}

}  // namespace tune
