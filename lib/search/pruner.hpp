// SPDX-License-Identifier: GPL-2.0-or-later
// Early stopping: a pruner watches the intermediate values trials report
// (`step=3 val_loss=0.4`) and says when a running trial should stop because it
// looks worse than its peers did at the same point. Pruners are picked by
// name (make_pruner) and work with any sampler; each rule is a class of its
// own file (asha_pruner, median_pruner) and one entry of pruners().
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
#include <limits>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.hpp"
#include "registry/settings.hpp"
#include "search/pruner_options.hpp"

namespace tune {

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

// A pruning rule: its class is made from options whose settings are complete.
struct PrunerEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::function<std::unique_ptr<Pruner>(const PrunerOptions&)> make;
  // Its own settings, declared once (see registry/settings.hpp).
  std::vector<SettingSpec> settings{};
};

// Every pruning rule, by its --prune name; "none" makes nullptr.
const Registry<PrunerEntry>& pruners();
// nullptr for rule "none". Throws std::invalid_argument for an unknown rule
// or a setting out of its range.
std::unique_ptr<Pruner> make_pruner(const PrunerOptions& options);

// What the rules share: values oriented so that smaller is better (a value
// that is not finite is the worst), and such a value as a message shows it.
namespace pruning {
double oriented(double value, bool minimize);
std::string shown(double oriented_value, bool minimize);
inline constexpr double kWorst = std::numeric_limits<double>::infinity();
}  // namespace pruning

}  // namespace tune
