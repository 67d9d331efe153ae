// SPDX-License-Identifier: GPL-2.0-or-later
#include "search/bohb_sampler.hpp"

#include <cmath>
#include <limits>
#include <set>

#include "search/draws.hpp"
#include "search/random_sampler.hpp"
#include "search/tpe_sampler.hpp"

namespace tune {

namespace {
// The budget of trials that report no step: their final objective.
constexpr std::int64_t kFinal = std::numeric_limits<std::int64_t>::max();
}  // namespace

BohbSampler::BohbSampler(const SearchSpace& space, std::uint64_t seed, bool minimize)
    : space_(space), seed_(seed), minimize_(minimize) {}

void BohbSampler::observe_progress(const Progress& report) {
  Curve& c = curves_[report.trial];
  if (c.done) return;  // a finished trial's reports came with it (a resume replays them first)
  if (c.params.empty()) c.params = report.params;
  c.values[report.step] = report.value;
}

void BohbSampler::observe(const Observation& done) {
  Curve& c = curves_[done.trial];
  c.params = done.params;
  c.done = true;
  c.pruned = done.pruned;
  if (!done.objective && !done.pruned) {
    curves_.erase(done.trial);  // failed: what it reported may be what made it fail
    return;
  }
  if (c.values.empty() && done.objective) c.final_objective = done.objective;
  if (c.values.empty() && !c.final_objective) curves_.erase(done.trial);
}

std::optional<double> BohbSampler::value_at(const Curve& c, std::int64_t step) {
  if (c.values.empty()) return step == kFinal ? c.final_objective : std::nullopt;
  const auto it = c.values.lower_bound(step);
  if (it == c.values.end()) return std::nullopt;
  return it->second;
}

std::optional<BohbSampler::Budget> BohbSampler::model_budget() const {
  const std::size_t needed = space_.parameters().size() + 3;
  std::set<std::int64_t> budgets;
  for (const auto& [id, c] : curves_) {
    for (const auto& [step, value] : c.values) budgets.insert(step);
    if (c.values.empty() && c.final_objective) budgets.insert(kFinal);
  }
  for (auto b = budgets.rbegin(); b != budgets.rend(); ++b) {
    std::size_t n = 0;
    for (const auto& [id, c] : curves_) n += value_at(c, *b).has_value();
    if (n >= needed) return Budget{*b, n};
  }
  return std::nullopt;
}

std::optional<Assignment> BohbSampler::propose(std::uint64_t trial, std::span<const Assignment> pending) {
  auto rng = trial_rng(seed_, trial, 0xb0b5u);
  const auto budget = model_budget();
  if (!budget || unit_draw(rng) < kRandomFraction) {
    note_ = budget ? ""
                   : "bohb: random until " + std::to_string(space_.parameters().size() + 3) +
                         " trials reach one budget";
    return uniform_assignment(space_, rng);
  }
  note_.clear();
  TpeSampler model(space_, seed_ ^ 0xb0b5b0b5ull, minimize_, 0);
  for (const auto& o : model_observations(budget->step)) model.observe(o);
  return model.propose(trial, pending);
}

std::vector<Observation> BohbSampler::model_observations(std::int64_t step) const {
  std::vector<Observation> out;
  for (const auto& [id, c] : curves_) {
    if (const auto v = value_at(c, step)) {
      Observation o{id, c.params, *v, false};
      if (!std::isfinite(*v)) o.objective.reset(), o.pruned = true;  // ranks last
      out.push_back(std::move(o));
    } else if (c.pruned) {
      // The pruner stopped it short of this budget, on what it reported
      // below: the bad density learns where not to go from every bracket's
      // early rungs, not only from the few that reached this budget.
      out.push_back(Observation{id, c.params, std::nullopt, true});
    }
  }
  return out;
}

}  // namespace tune
