// SPDX-License-Identifier: GPL-2.0-or-later
// Early stopping: a pruner watches the intermediate values trials report
// (`step=3 val_loss=0.4`) and says when a running trial should stop because it
// looks worse than its peers did at the same point. Pruners are picked by
// name (make_pruner) and work with any sampler.
//
//   asha    Asynchronous successive halving (Li et al., MLSys 2020): rungs at
//           steps r, r*eta, r*eta^2, ... (r = --min-resource, eta =
//           --reduction-factor). When a trial first reaches a rung, its value
//           there joins the rung's values; it goes on only if it is among the
//           best 1/eta of them (while a rung holds fewer than eta values:
//           only if it is the best), as in Optuna's SuccessiveHalvingPruner.
//           Trials are never paused: one that would wait for promotion stops.
//   median  The median stopping rule (Golovin et al., KDD 2017): from step r
//           on, a trial whose best value so far is worse than the median of
//           the best values that finished trials had reached by the same
//           step stops; needs --prune-min-trials finished trials first.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.hpp"

namespace tune {

struct PrunerOptions {
  std::string rule = "none";      // none, asha, median
  std::string metric;             // the reported key compared between trials ("objective" for objective=)
  std::int64_t min_resource = 1;  // asha: first rung; median: no stopping before this step
  int reduction_factor = 3;       // asha: eta
  int min_trials = 5;             // median: finished trials needed before it stops any
  bool minimize = true;           // the metric's direction: the study's

  nlohmann::json to_json() const;
  // Throws std::invalid_argument naming the bad field.
  static PrunerOptions from_json(const nlohmann::json& j);
  // Throws std::invalid_argument with the flag to fix.
  void validate() const;
};

class Pruner {
 public:
  virtual ~Pruner() = default;
  virtual std::string_view name() const = 0;
  // An intermediate value of a running trial. Returns why the trial should
  // stop now, or nothing to let it go on. A value that is not finite (a
  // diverged trial) counts as the worst possible.
  virtual std::optional<std::string> report(std::uint64_t trial, std::int64_t step, double value) = 0;
  // The trial ended; `completed` when it ran to its end with an objective.
  virtual void finished(std::uint64_t /*trial*/, bool /*completed*/) {}
};

// Every pruning rule, by its --prune name; "none" makes nullptr.
using PrunerEntry = RegistryEntry<std::function<std::unique_ptr<Pruner>(const PrunerOptions&)>>;
const Registry<PrunerEntry>& pruners();
// nullptr for rule "none". Throws std::invalid_argument for an unknown rule.
std::unique_ptr<Pruner> make_pruner(const PrunerOptions& options);

class AshaPruner final : public Pruner {
 public:
  explicit AshaPruner(const PrunerOptions& o);
  std::string_view name() const override { return "asha"; }
  std::optional<std::string> report(std::uint64_t trial, std::int64_t step, double value) override;

  // The step of rung k.
  std::int64_t rung_step(std::size_t k) const;
  // The values recorded at rung k, in arrival order (for the tests).
  const std::vector<double>& rung(std::size_t k) const;

 private:
  PrunerOptions options_;
  std::vector<std::vector<double>> rungs_;        // values, smaller is better (negated when maximising)
  std::map<std::uint64_t, std::size_t> reached_;  // trial -> rungs recorded so far
};

class MedianPruner final : public Pruner {
 public:
  explicit MedianPruner(const PrunerOptions& o);
  std::string_view name() const override { return "median"; }
  std::optional<std::string> report(std::uint64_t trial, std::int64_t step, double value) override;
  void finished(std::uint64_t trial, bool completed) override;

 private:
  // Best value of `trial` at steps <= step, if it reported any.
  std::optional<double> best_until(std::uint64_t trial, std::int64_t step) const;

  PrunerOptions options_;
  std::map<std::uint64_t, std::map<std::int64_t, double>>
      values_;  // trial -> step -> value (smaller is better)
  std::vector<std::uint64_t> completed_;
};

}  // namespace tune
