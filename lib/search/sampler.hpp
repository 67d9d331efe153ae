// SPDX-License-Identifier: GPL-2.0-or-later
// Samplers propose parameters for the next trial. They are picked by name
// (samplers(), make_sampler) and see only lib/ types, so the driver, the tests and a
// trace-driven simulator drive them alike.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "registry/registry.hpp"
#include "registry/settings.hpp"
#include "space/search_space.hpp"

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

struct SamplerOptions {
  std::uint64_t seed = 0;
  bool minimize = true;  // direction, for samplers that learn
  // Several objectives: each one's direction (two or more). bayes and tpe
  // then propose through ScalarisedSampler; grid and random ignore it.
  std::vector<bool> objectives_minimize{};
  // The sampler's own settings (SamplerEntry::settings), by key; make_sampler
  // fills in the declared defaults and checks the ranges.
  Settings settings{};
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string_view name() const = 0;

  // Parameters for trial number `trial` (0, 1, 2, ... in proposal order), or
  // nothing when the sampler has no more points (an exhausted grid).
  // `pending` holds trials proposed but not finished yet, so samplers that
  // learn can keep parallel proposals apart.
  virtual std::optional<Assignment> propose(std::uint64_t trial, std::span<const Assignment> pending) = 0;

  // A finished trial. Resuming a study replays every finished trial here.
  virtual void observe(const Observation& /*done*/) {}

  // An intermediate report, as it arrives. Resuming a study replays every
  // stored report here, before the finished trials' observe().
  virtual void observe_progress(const Progress& /*report*/) {}

  // Where the trial just proposed as number `trial` stands in the sampler's
  // lineage (Lineage); asked once, right after propose(trial) returned
  // parameters. Empty: a trial of its own, from scratch, to its end.
  virtual Lineage lineage(std::uint64_t /*trial*/) { return {}; }
  // The study started trial `id` with these parameters and this lineage (a
  // proposal of this sampler or of its stand-in). Resuming a study replays
  // every trial it proposed here, in id order, before any report or result.
  virtual void proposed(std::uint64_t /*id*/, const Assignment& /*params*/, const Lineage& /*lineage*/) {}
  // Whether a finished trial's checkpoint must be kept because a trial yet
  // to be proposed may start from it (Lineage::from); the study drops it
  // otherwise, unless --keep-checkpoints.
  virtual bool needs_checkpoint(std::uint64_t /*trial*/) const { return false; }
  // Whether the sampler has nothing to propose until a running trial
  // finishes (a population whose members all train): the study then holds
  // a runner that asks, and asks again once a result came.
  virtual bool waiting() const { return false; }

  // How many distinct proposals exist, if finite (the grid's size).
  virtual std::optional<std::uint64_t> size() const { return std::nullopt; }

  // How the last proposal was made, when a user should know it (a sampler
  // that switched its method by itself says so and why); empty otherwise.
  virtual std::string note() const { return {}; }

  // Whether proposing trial `trial` now takes long (a model fit: tens of
  // milliseconds) rather than microseconds. A study serving several runners
  // then makes the proposal on a worker thread and hands a cheap stand-in's
  // proposal to a runner that asks meanwhile (Study::offer_trial).
  virtual bool costly(std::uint64_t /*trial*/) const { return false; }

  // A cheap sampler of its own, fed the same trials, that may propose on
  // another thread while this one proposes (the stand-in Study::offer_trial
  // uses), or nullptr: then the registry's stand-in is made beside it.
  virtual Sampler* own_stand_in() { return nullptr; }
};

// What a sampler does with several objectives (--objective given twice or more).
enum class ManyObjectives {
  Ignored,     // it does not learn (grid, random)
  Chebyshev,   // through ScalarisedSampler, random Chebyshev weights
  ParetoRank,  // through ScalarisedSampler, Pareto ranks
  Refused,     // it searches one objective only: `refusal` says what to use
};

struct SamplerEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  // One objective (several go through `many`).
  std::function<std::unique_ptr<Sampler>(const SearchSpace&, const SamplerOptions&)> make;
  ManyObjectives many = ManyObjectives::Ignored;
  std::string refusal{};
  // A cheap sampler (by name) that stands in while one of this one's costly
  // proposals is under way (see Sampler::costly); empty: never costly.
  std::string stand_in{};
  // Its own settings: each is a flag of tune run and submit, kept in the
  // history, checked on resume and listed in tune(1), from this declaration.
  std::vector<SettingSpec> settings{};
  // Not empty: the sampler stops and continues trials itself, so a pruner
  // would judge its segments as rivals; --prune is refused with this.
  std::string pruner_refusal{};
};

// Every search algorithm, by its --algo name.
const Registry<SamplerEntry>& samplers();

// Throws UnknownName for an unknown name, std::invalid_argument for several
// objectives with a sampler that refuses them, and SpaceError for a grid
// that would be too large.
std::unique_ptr<Sampler> make_sampler(std::string_view name, const SearchSpace& space,
                                      const SamplerOptions& options);
// The stand-in for `name` (SamplerEntry::stand_in), or nullptr.
std::unique_ptr<Sampler> make_stand_in(std::string_view name, const SearchSpace& space,
                                       const SamplerOptions& options);
// The stand-in for `sampler` (made as `name`): its own when it has one,
// else the registry's, made into `made`; nullptr when it has none.
Sampler* stand_in_for(Sampler& sampler, std::string_view name, const SearchSpace& space,
                      const SamplerOptions& options, std::unique_ptr<Sampler>& made);

}  // namespace tune
