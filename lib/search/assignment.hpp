// SPDX-License-Identifier: GPL-2.0-or-later
// What a study and its sampler pass each other about a trial: its values
// (Assignment), its result (Observation), its reports (Progress) and its
// place in a lineage. Apart from the Sampler interface, so that a trial's
// record compiles without it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "space/param_value.hpp"

namespace tune {

// One value per parameter, in the order of SearchSpace::parameters().
using Assignment = std::vector<ParamValue>;

// A finished trial as a sampler learns from it. `objective` is empty when
// the trial failed, timed out or reported nothing usable.
struct Observation {
  std::uint64_t trial = 0;
  Assignment params;
  std::optional<double> objective;
  bool pruned = false;           // stopped early by a pruner: worse than its peers so far
  std::vector<double> values{};  // several objectives: each one's value (ok trials), else empty
  // How many results (finished trials with a finite objective, not pruned,
  // in the order the sampler was given them) were known when this trial was
  // proposed, as its study counted them: with several runners, fewer than
  // came before it. Unset: every earlier one (one runner, or a trial of
  // another study).
  std::optional<std::size_t> known{};
};

// An intermediate report of a running (or, on resume, a finished) trial as a
// sampler learns from it: the value of the study's pruning metric (its
// --prune-metric, else the reported objective) at `step`, as reported (the
// study's direction applies), with the trial's parameters.
struct Progress {
  std::uint64_t trial = 0;
  std::int64_t step = 0;
  double value = 0;
  Assignment params{};
};

// Where a trial stands in a sampler's lineage (population-based training).
struct Lineage {
  // The trial (a study's trial id, as observe() names them) whose checkpoint
  // it starts from: that trial's TUNE_CHECKPOINT_DIR is copied into its own
  // before its first attempt. Nothing: it starts without one.
  std::optional<std::uint64_t> from{};
  // The member of the sampler's population it continues.
  std::optional<std::uint32_t> member{};
  // The last step it trains to (TUNE_STEP_LIMIT): the study ends it once it
  // reports a step beyond. Nothing: it runs to its own end.
  std::optional<std::int64_t> step_limit{};
  bool operator==(const Lineage&) const = default;
};

}  // namespace tune
