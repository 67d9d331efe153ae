#include "search/sampler.hpp"

#include <stdexcept>

#include "search/bayes_sampler.hpp"
#include "search/grid_sampler.hpp"
#include "search/random_sampler.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {

std::vector<std::string> sampler_names() { return {"grid", "random", "bayes", "tpe"}; }

std::unique_ptr<Sampler> make_sampler(std::string_view name, const SearchSpace& space,
                                      const SamplerOptions& options) {
  if (name == "grid") return std::make_unique<GridSampler>(space, options.grid_points);
  if (name == "random") return std::make_unique<RandomSampler>(space, options.seed);
  if (name == "bayes") return std::make_unique<BayesSampler>(space, options.seed, options.minimize);
  if (name == "tpe") return std::make_unique<TpeSampler>(space, options.seed, options.minimize);
  std::string known;
  for (const auto& n : sampler_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown search algorithm '" + std::string(name) + "'; choose one of: " + known);
}

std::unique_ptr<Sampler> make_stand_in(std::string_view name, const SearchSpace& space,
                                       const SamplerOptions& options) {
  // bayes's model costs tens of milliseconds a proposal; tpe, fed the same
  // results, costs a fraction of one.
  if (name == "bayes") return std::make_unique<TpeSampler>(space, options.seed, options.minimize);
  return nullptr;
}

}  // namespace tune
