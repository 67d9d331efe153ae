// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The yield estimators by their adaptive.estimator name (estimators(), the
// list in estimators.cpp), and the adaptive group's options: the settings
// every estimator shares, and each estimator configured by its own
// settings. No Slurm here.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "estimators/yield_estimator.hpp"
#include "registry/registry.hpp"

namespace tune {

using EstimatorEntry = RegistryEntry<std::unique_ptr<YieldEstimator> (*)()>;
const Registry<EstimatorEntry>& estimators();

struct AdaptiveOptions {
  // Every estimator with its defaults; the tail estimator in use (measured best).
  AdaptiveOptions();

  // The estimator in use, by name or alias; throws UnknownName.
  void use(std::string_view name);
  const std::string& estimator() const;
  const YieldEstimator& rule() const { return *rules_[in_use_]; }

  // Every estimator's settings, each with the name of the estimator that
  // owns it, by its path in the adaptive group ("k", "tail.horizon").
  struct Owned {
    std::string estimator;
    EstimatorSetting setting;
  };
  std::vector<Owned> estimator_settings() const;
  // One of them: set (std::invalid_argument when no estimator has the path
  // or the value is out of its range) and read (the same when unknown).
  void set(std::string_view path, double value);
  double setting(std::string_view path) const;

  // G_0, G_1, ...: thresholds on g relative to the best value's magnitude
  // (|f1-f2| / max(|f1|, 1e-12)), so that they do not depend on units.
  // Algorithm 1 walks them; the others judge a gain by G_0.
  std::vector<double> thresholds{0.01, 0.005, 0.0025, 0.001};
  double yield_factor = 0.5;  // priority x yield_factor^level
  int max_level = 8;
  double relax_time = 300;  // seconds with no other tenant waiting per level dropped

 private:
  std::size_t in_use_ = 0;
  // In estimators()'s order. Copies share them until one is set().
  std::vector<std::shared_ptr<YieldEstimator>> rules_;
};

}  // namespace tune
