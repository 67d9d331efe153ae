// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/sampler.hpp"

#include <stdexcept>

#include "search/bayes_sampler.hpp"
#include "search/cmaes_sampler.hpp"
#include "search/grid_sampler.hpp"
#include "search/qmc_sampler.hpp"
#include "search/random_sampler.hpp"
#include "search/scalarised_sampler.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {

const Registry<SamplerEntry>& samplers() {
  using M = ManyObjectives;
  static const Registry<SamplerEntry> registry(
      "search algorithm",
      {
          {"grid",
           {},
           "every point of a grid over the space, in order",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<GridSampler>(s, o.grid_points);
           }},
          {"random",
           {},
           "each parameter drawn uniformly on its own scale",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<RandomSampler>(s, o.seed);
           }},
          {"qmc",
           {},
           "a scrambled Halton sequence: random search spread evenly over the space",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<QmcSampler>(s, o.seed);
           }},
          // bayes's model costs tens of milliseconds a proposal; tpe, fed the
          // same results, costs a fraction of one.
          {"bayes",
           {},
           "a Gaussian process and expected improvement",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<BayesSampler>(s, o.seed, o.minimize);
           },
           M::Chebyshev,
           "",
           "tpe"},
          {"tpe",
           {},
           "tree-structured Parzen estimators, as Optuna's default sampler",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<TpeSampler>(s, o.seed, o.minimize);
           },
           M::ParetoRank},
          // CMA-ES ranks one objective: fed Pareto ranks (ties, and ranks
          // that change as the front grows) it searched worse than random on
          // ZDT1, so it is refused.
          {"cmaes",
           {},
           "covariance matrix adaptation evolution strategy",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<CmaesSampler>(s, o.seed, o.minimize);
           },
           M::Refused,
           "--algo cmaes searches one objective; with several (--objective) use bayes or tpe"},
      });
  return registry;
}

std::unique_ptr<Sampler> make_sampler(std::string_view name, const SearchSpace& space,
                                      const SamplerOptions& options) {
  const SamplerEntry& entry = samplers().at(name);
  if (options.objectives_minimize.size() <= 1 || entry.many == ManyObjectives::Ignored)
    return entry.make(space, options);
  if (entry.many == ManyObjectives::Refused) throw std::invalid_argument(entry.refusal);
  SamplerOptions one = options;
  one.objectives_minimize.clear();
  one.minimize = true;  // the scalarised value is minimised
  return std::make_unique<ScalarisedSampler>(
      [&entry, &space, one] { return entry.make(space, one); }, options.objectives_minimize, options.seed,
      entry.many == ManyObjectives::ParetoRank ? ScalarisedSampler::Method::ParetoRank
                                               : ScalarisedSampler::Method::Chebyshev);
}

std::unique_ptr<Sampler> make_stand_in(std::string_view name, const SearchSpace& space,
                                       const SamplerOptions& options) {
  const SamplerEntry& entry = samplers().at(name);
  return entry.stand_in.empty() ? nullptr : make_sampler(entry.stand_in, space, options);
}

}  // namespace tune
