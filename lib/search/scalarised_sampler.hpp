// SPDX-License-Identifier: GPL-2.0-or-later
// Several objectives for samplers that learn one (bayes, tpe): ParEGO's
// scalarisation (Knowles 2006). Each proposal draws its own weights from the
// simplex (seeded by the study's seed and the trial number), scales every
// objective to [0, 1] over the results so far, and hands the inner sampler,
// freshly built and fed every finished trial, the augmented Chebyshev value
//     max_i w_i f_i + 0.05 sum_i w_i f_i,
// whose minima over all weights are the Pareto front. Proposals aimed at
// different weights spread along the front; random and grid need none of it.
// For tpe, which only ranks results, the Pareto rank instead (as Optuna's
// MOTPE splits): 0 for the front, 1 for the front of the rest, and so on.
#pragma once

#include <functional>
#include <memory>

#include "search/sampler.hpp"

namespace tune {

class ScalarisedSampler final : public Sampler {
 public:
  using Factory = std::function<std::unique_ptr<Sampler>()>;
  enum class Method { Chebyshev, ParetoRank };
  // `minimize[i]`: the direction of objective i (two or more); `make` builds
  // the inner sampler, which minimises.
  ScalarisedSampler(Factory make, std::vector<bool> minimize, std::uint64_t seed,
                    Method method = Method::Chebyshev);
  std::string_view name() const override { return probe_->name(); }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;
  void observe(const Observation& done) override;
  std::string note() const override { return probe_->note(); }
  bool costly(std::uint64_t trial) const override { return probe_->costly(trial); }

  // The weights of trial `trial`'s proposal (exposed for the tests).
  std::vector<double> weights(std::uint64_t trial) const;
  // The scalar the inner sampler sees for `values` under `w`, given the
  // ranges of the results so far.
  double scalarise(const std::vector<double>& values, const std::vector<double>& w) const;

 private:
  Factory make_;
  std::vector<bool> minimize_;
  std::uint64_t seed_;
  Method method_;
  std::unique_ptr<Sampler> probe_;  // fed every result as its first objective: answers costly() and note()
  std::vector<Observation> done_;
  std::vector<double> lo_, hi_;  // each objective's range over ok results (minimisation form)
};

}  // namespace tune
