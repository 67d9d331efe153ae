// SPDX-License-Identifier: GPL-2.0-or-later
// Samplers propose parameters for the next trial. They are picked by name
// (search/sampler_registry.hpp) and see only lib/ types, so the driver, the
// tests and a trace-driven simulator drive them alike.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "registry/settings.hpp"
#include "search/assignment.hpp"

namespace tune {

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

}  // namespace tune
