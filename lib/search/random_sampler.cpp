#include "search/random_sampler.hpp"

#include <random>

namespace tune {

std::optional<Assignment> RandomSampler::propose(std::uint64_t trial, std::span<const Assignment>) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32),
                    static_cast<std::uint32_t>(trial), static_cast<std::uint32_t>(trial >> 32)};
  std::mt19937_64 rng(seq);
  // Not std::uniform_real_distribution: its output differs between standard
  // libraries, and a seed must mean the same study everywhere.
  auto unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  Assignment out;
  // Every parameter draws, active or not, so a seed gives the same values
  // to the parameters a space shares with its conditional variant.
  for (const auto& p : space_.parameters()) out.push_back(p.decode(unit()));
  return space_.prune_inactive(std::move(out));
}

}  // namespace tune
