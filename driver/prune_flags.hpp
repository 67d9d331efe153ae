// The early-stopping flags, shared by `tune run` and `tune submit` so the two
// cannot drift apart.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "search/pruner.hpp"

namespace tune {

inline void add_prune_options(CLI::App& app, PrunerOptions& o) {
  app.add_option("--prune", o.rule, "early stopping: none, asha or median")
      ->check(CLI::IsMember(pruner_names()))
      ->capture_default_str();
  app.add_option("--prune-metric", o.metric,
                 "the reported metric pruning compares (e.g. val_loss; 'objective' for objective= reports); "
                 "it must improve in --direction");
  app.add_option("--min-resource", o.min_resource, "asha: step of the first rung; median: first step that may stop")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--reduction-factor", o.reduction_factor, "asha: keep the best 1/N at each rung")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  app.add_option("--prune-min-trials", o.min_trials, "median: finished trials needed before any trial is stopped")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

}  // namespace tune
