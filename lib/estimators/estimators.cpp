// SPDX-License-Identifier: GPL-2.0-or-later
#include "estimators/estimators.hpp"

#include <sstream>
#include <stdexcept>

#include "estimators/algorithm1.hpp"
#include "estimators/stagnation_estimator.hpp"
#include "estimators/tail_estimator.hpp"

namespace tune {
namespace {

template <class Rule>
std::unique_ptr<YieldEstimator> make() {
  return std::make_unique<Rule>();
}

}  // namespace

const Registry<EstimatorEntry>& estimators() {
  static const Registry<EstimatorEntry> registry(
      "estimator",
      {
          {"algorithm1",
           {},
           "the source design's Algorithm 1: the gap among a study's top m results",
           make<Algorithm1>},
          {"tail", {}, "the chance that the study's next results beat its best", make<TailEstimator>},
          {"stagnation",
           {},
           "no improvement of the study's best in its last stagnation.trials results",
           make<StagnationEstimator>},
      });
  return registry;
}

AdaptiveOptions::AdaptiveOptions() {
  for (const auto& e : estimators().entries()) rules_.push_back(e.make());
  use("tail");
}

void AdaptiveOptions::use(std::string_view name) {
  const auto& chosen = estimators().at(name);
  in_use_ = static_cast<std::size_t>(&chosen - estimators().entries().data());
}

const std::string& AdaptiveOptions::estimator() const {
  return estimators().entries()[in_use_].name;
}

std::vector<AdaptiveOptions::Owned> AdaptiveOptions::estimator_settings() const {
  std::vector<Owned> out;
  for (std::size_t i = 0; i < rules_.size(); ++i)
    for (auto& s : rules_[i]->settings()) out.push_back({estimators().entries()[i].name, std::move(s)});
  return out;
}

void AdaptiveOptions::set(std::string_view path, double value) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const auto settings = rules_[i]->settings();
    for (std::size_t k = 0; k < settings.size(); ++k) {
      if (settings[k].path != path) continue;
      const auto& s = settings[k];
      if (!(value >= s.lo && value <= s.hi) || (s.whole && value != std::floor(value))) {
        std::ostringstream m;
        m << "'" << path << "' = " << value << " is out of range: give a "
          << (s.whole ? "whole number" : "value") << " from " << s.lo << " to " << s.hi;
        throw std::invalid_argument(m.str());
      }
      // Copies share the rule: a set one is a new rule with the same settings.
      auto fresh = estimators().entries()[i].make();
      for (std::size_t n = 0; n < settings.size(); ++n) fresh->set(n, settings[n].value);
      fresh->set(k, value);
      rules_[i] = std::move(fresh);
      return;
    }
  }
  throw std::invalid_argument("no estimator has a setting '" + std::string(path) + "'");
}

double AdaptiveOptions::setting(std::string_view path) const {
  for (const auto& o : estimator_settings())
    if (o.setting.path == path) return o.setting.value;
  throw std::invalid_argument("no estimator has a setting '" + std::string(path) + "'");
}

}  // namespace tune
