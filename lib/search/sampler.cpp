// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/sampler.hpp"

#include <stdexcept>

#include "search/bayes_sampler.hpp"
#include "search/cmaes_sampler.hpp"
#include "search/grid_sampler.hpp"
#include "search/random_sampler.hpp"
#include "search/scalarised_sampler.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {

std::vector<std::string> sampler_names() {
  return {"grid", "random", "bayes", "tpe", "cmaes"};
}

std::unique_ptr<Sampler> make_sampler(std::string_view name, const SearchSpace& space,
                                      const SamplerOptions& options) {
  // CMA-ES ranks one objective: fed Pareto ranks (ties, and ranks that
  // change as the front grows) it searched worse than random on ZDT1
  // (hypervolume 10.2 against 11.1 after 60 trials), so it is refused.
  if (options.objectives_minimize.size() > 1 && name == "cmaes")
    throw std::invalid_argument(
        "--algo cmaes searches one objective; with several (--objective) use bayes or tpe");
  if (options.objectives_minimize.size() > 1 && (name == "bayes" || name == "tpe")) {
    SamplerOptions one = options;
    one.objectives_minimize.clear();
    one.minimize = true;  // the scalarised value is minimised
    const std::string inner(name);
    return std::make_unique<ScalarisedSampler>(
        [inner, &space, one] { return make_sampler(inner, space, one); }, options.objectives_minimize,
        options.seed,
        name == "tpe" ? ScalarisedSampler::Method::ParetoRank : ScalarisedSampler::Method::Chebyshev);
  }
  if (name == "grid") return std::make_unique<GridSampler>(space, options.grid_points);
  if (name == "random") return std::make_unique<RandomSampler>(space, options.seed);
  if (name == "bayes") return std::make_unique<BayesSampler>(space, options.seed, options.minimize);
  if (name == "tpe") return std::make_unique<TpeSampler>(space, options.seed, options.minimize);
  if (name == "cmaes") return std::make_unique<CmaesSampler>(space, options.seed, options.minimize);
  std::string known;
  for (const auto& n : sampler_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown search algorithm '" + std::string(name) + "'; choose one of: " + known);
}

std::unique_ptr<Sampler> make_stand_in(std::string_view name, const SearchSpace& space,
                                       const SamplerOptions& options) {
  // bayes's model costs tens of milliseconds a proposal; tpe, fed the same
  // results, costs a fraction of one.
  if (name == "bayes") return make_sampler("tpe", space, options);
  return nullptr;
}

}  // namespace tune
