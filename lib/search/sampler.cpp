// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/sampler.hpp"

#include <stdexcept>

#include "search/bayes_sampler.hpp"
#include "search/bohb_sampler.hpp"
#include "search/cmaes_sampler.hpp"
#include "search/grid_sampler.hpp"
#include "search/pbt_sampler.hpp"
#include "search/qmc_sampler.hpp"
#include "search/random_sampler.hpp"
#include "search/sampler_registry.hpp"
#include "search/scalarised_sampler.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {

namespace {

// Samplers that learn nothing: the space and the seed.
template <class S>
std::unique_ptr<Sampler> seeded(const SearchSpace& space, const SamplerOptions& o) {
  return std::make_unique<S>(space, o.seed);
}

// The samplers that learn take the direction beside the seed.
template <class S>
std::unique_ptr<Sampler> learning(const SearchSpace& space, const SamplerOptions& o) {
  return std::make_unique<S>(space, o.seed, o.minimize);
}

}  // namespace

const Registry<SamplerEntry>& samplers() {
  using M = ManyObjectives;
  static const Registry<SamplerEntry> registry(
      "search algorithm",
      {
          {"grid",
           {},
           "every point of a grid over the space, in order",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<GridSampler>(s, static_cast<int>(o.settings.at("grid_points")));
           },
           M::Ignored,
           "",
           "",
           {{.key = "grid_points",
             .flag = "--grid-points",
             .help = "grid: points per continuous interval",
             .fallback = 5,
             .lo = 1,
             .hi = 1000}}},
          {"random", {}, "each parameter drawn uniformly on its own scale", seeded<RandomSampler>},
          {"qmc",
           {},
           "a scrambled Halton sequence: random search spread evenly over the space",
           seeded<QmcSampler>},
          // bayes's model costs tens of milliseconds a proposal; tpe, fed the
          // same results, costs a fraction of one.
          {"bayes",
           {},
           "a Gaussian process and expected improvement",
           learning<BayesSampler>,
           M::Chebyshev,
           "",
           "tpe"},
          {"tpe",
           {},
           "tree-structured Parzen estimators, as Optuna's default sampler",
           learning<TpeSampler>,
           M::ParetoRank},
          {"bohb",
           {},
           "a model per budget (reported step), as BOHB; with --prune hyperband",
           learning<BohbSampler>,
           M::Refused,
           "--algo bohb models one objective; with several (--objective) use tpe or bayes"},
          {"pbt",
           {},
           "population-based training: members train in segments; the worst copy the best's checkpoints",
           [](const SearchSpace& s, const SamplerOptions& o) {
             return std::make_unique<PbtSampler>(
                 s, o.seed, o.minimize,
                 PbtSampler::Options{static_cast<std::uint32_t>(o.settings.at("population")),
                                     static_cast<std::int64_t>(o.settings.at("pbt_interval")),
                                     o.settings.at("pbt_quantile"), o.settings.at("pbt_resample")});
           },
           M::Refused,
           "--algo pbt ranks its members by one objective; with several (--objective) use tpe or bayes",
           "",
           {{.key = "population",
             .flag = "--population",
             .help = "pbt: members trained side by side",
             .fallback = 8,
             .lo = 2,
             .hi = 10000},
            {.key = "pbt_interval",
             .flag = "--pbt-interval",
             .help = "pbt: steps a member trains between exploit and explore",
             .fallback = 4,
             .lo = 1,
             .hi = 1e9},
            {.key = "pbt_quantile",
             .flag = "--pbt-quantile",
             .help = "pbt: the share of members that copy the best (and that are copied)",
             .fallback = 0.25,
             .lo = 0.01,
             .hi = 0.5,
             .integer = false,
             .metavar = "Q"},
            {.key = "pbt_resample",
             .flag = "--pbt-resample",
             .help = "pbt: the chance that explore draws a parameter afresh rather than moving it",
             .fallback = 0.25,
             .lo = 0,
             .hi = 1,
             .integer = false,
             .metavar = "P"}},
           "--algo pbt stops and continues its members itself (the worst copy the best at each "
           "--pbt-interval); drop --prune"},
          // CMA-ES ranks one objective: fed Pareto ranks (ties, and ranks
          // that change as the front grows) it searched worse than random on
          // ZDT1, so it is refused.
          {"cmaes",
           {},
           "covariance matrix adaptation evolution strategy",
           learning<CmaesSampler>,
           M::Refused,
           "--algo cmaes searches one objective; with several (--objective) use bayes or tpe"},
      });
  return registry;
}

std::unique_ptr<Sampler> make_sampler(std::string_view name, const SearchSpace& space,
                                      const SamplerOptions& options) {
  const SamplerEntry& entry = samplers().at(name);
  SamplerOptions own = options;
  own.settings = complete(entry.settings, options.settings);
  if (options.objectives_minimize.size() <= 1 || entry.many == ManyObjectives::Ignored)
    return entry.make(space, own);
  if (entry.many == ManyObjectives::Refused) throw std::invalid_argument(entry.refusal);
  SamplerOptions one = own;
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

Sampler* stand_in_for(Sampler& sampler, std::string_view name, const SearchSpace& space,
                      const SamplerOptions& options, std::unique_ptr<Sampler>& made) {
  if (Sampler* own = sampler.own_stand_in()) return own;
  made = make_stand_in(name, space, options);
  return made.get();
}

}  // namespace tune
