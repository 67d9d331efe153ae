// SPDX-License-Identifier: GPL-2.0-or-later
// BOHB's model (--algo bohb; Falkner et al., ICML 2018): a model per budget,
// the budget being the step a trial reports (epochs). Each trial's value at
// budget b is what it reported at the first step >= b (as a successive-
// halving rung records it). The model is fitted on the largest budget that
// at least d + 3 trials have reached (d: the space's parameters; BOHB's
// N_min + 2), so the configurations that went furthest teach it once there
// are enough of them, and the many short runs of Hyperband's early rungs
// teach it before. A third of the proposals are random (BOHB's rho), the
// rest come from tune's TPE densities (tpe_sampler) fitted on that budget's
// values and, beyond the paper's BOHB, on the trials the pruner stopped
// below that budget, ranked below every value there: the bad density then
// knows every region Hyperband's early rungs gave up on, not only the few
// configurations that reached the budget (bench/multifidelity_bench: lower
// regret on held-out seeds, docs/results/multifidelity.md). Meant with
// --prune hyperband, whose brackets decide how far each configuration runs;
// without a pruner every trial runs its whole budget and this is TPE on the
// final reports with a random third.
// A trial that reports no step counts at the largest budget with its final
// objective. Running trials count as worse than any (TPE's constant liar).
#pragma once

#include <map>
#include <vector>

#include "search/sampler.hpp"
#include "space/search_space.hpp"

namespace tune {

class BohbSampler final : public Sampler {
 public:
  static constexpr double kRandomFraction = 1.0 / 3;  // BOHB's rho

  BohbSampler(const SearchSpace& space, std::uint64_t seed, bool minimize);
  std::string_view name() const override { return "bohb"; }
  std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) override;
  void observe(const Observation& done) override;
  void observe_progress(const Progress& report) override;
  std::string note() const override { return note_; }

  // The budget the next model is fitted on and how many trials reached it;
  // nothing while no budget has d + 3 (exposed for the tests).
  struct Budget {
    std::int64_t step;
    std::size_t trials;
  };
  std::optional<Budget> model_budget() const;
  // What the densities at budget `step` are fitted on: each trial that
  // reached it, by its value there (one not finite as pruned), and each the
  // pruner stopped before it, as pruned (worse than any value). A running
  // trial, or one that ended by itself, short of it is left out.
  std::vector<Observation> model_observations(std::int64_t step) const;

 private:
  struct Curve {
    Assignment params;
    std::map<std::int64_t, double> values;  // step -> the last value reported there
    std::optional<double> final_objective;  // a finished trial that reported no step
    bool done = false;
    bool pruned = false;  // the pruner stopped it
  };
  // The trial's value at budget `step`: at the first reported step >= step.
  static std::optional<double> value_at(const Curve& c, std::int64_t step);

  const SearchSpace& space_;
  std::uint64_t seed_;
  bool minimize_;
  std::map<std::uint64_t, Curve> curves_;  // by trial id
  std::string note_;
};

}  // namespace tune
