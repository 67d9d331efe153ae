// SPDX-License-Identifier: GPL-2.0-or-later
// Every search algorithm by its --algo name (samplers()), and the samplers
// made by name: what --help, the man page, the flags and the study need,
// apart from the Sampler interface its implementations include.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.hpp"
#include "registry/settings.hpp"
#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

// What a sampler does with several objectives (--objective given twice or more).
enum class ManyObjectives {
  Ignored,     // it does not learn (grid, random)
  Chebyshev,   // through ScalarisedSampler, random Chebyshev weights
  ParetoRank,  // through ScalarisedSampler, Pareto ranks
  Refused,     // it searches one objective only: `refusal` says what to use
};

struct SamplerEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  // One objective (several go through `many`).
  std::function<std::unique_ptr<Sampler>(const SearchSpace&, const SamplerOptions&)> make;
  ManyObjectives many = ManyObjectives::Ignored;
  std::string refusal{};
  // A cheap sampler (by name) that stands in while one of this one's costly
  // proposals is under way (see Sampler::costly); empty: never costly.
  std::string stand_in{};
  // Its own settings: each is a flag of tune run and submit, kept in the
  // history, checked on resume and listed in tune(1), from this declaration.
  std::vector<SettingSpec> settings{};
  // Not empty: the sampler stops and continues trials itself, so a pruner
  // would judge its segments as rivals; --prune is refused with this.
  std::string pruner_refusal{};
};

// Every search algorithm, by its --algo name.
const Registry<SamplerEntry>& samplers();

// Throws UnknownName for an unknown name, std::invalid_argument for several
// objectives with a sampler that refuses them, and SpaceError for a grid
// that would be too large.
std::unique_ptr<Sampler> make_sampler(std::string_view name, const SearchSpace& space,
                                      const SamplerOptions& options);
// The stand-in for `name` (SamplerEntry::stand_in), or nullptr.
std::unique_ptr<Sampler> make_stand_in(std::string_view name, const SearchSpace& space,
                                       const SamplerOptions& options);
// The stand-in for `sampler` (made as `name`): its own when it has one,
// else the registry's, made into `made`; nullptr when it has none.
Sampler* stand_in_for(Sampler& sampler, std::string_view name, const SearchSpace& space,
                      const SamplerOptions& options, std::unique_ptr<Sampler>& made);

}  // namespace tune
