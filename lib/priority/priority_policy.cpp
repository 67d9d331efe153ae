// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/priority_policy.hpp"

#include <stdexcept>

#include "priority/sched_tune_policy.hpp"
#include "priority/site_factor_policy.hpp"

namespace tune {

const Registry<PriorityPolicyEntry>& priority_policies() {
  static const Registry<PriorityPolicyEntry> registry(
      "tune priority plugin",
      {
          {"sched/tune",
           {},
           "DRF fair share times the study's yield factor, as the job's priority",
           [](PolicyConfig c) { return std::make_unique<SchedTunePolicy>(std::move(c)); },
           ConfigRules{},
           "usage and yield levels",
           "sched_tune.conf",
           "sched_tune.state"},
          {"site_factor/tune",
           {},
           "the study's yield factor as a SITE term priority/multifactor adds",
           [](PolicyConfig c) { return std::make_unique<SiteFactorPolicy>(std::move(c)); },
           ConfigRules{.fairshare = false, .lowering = true, .named_by = "PrioritySiteFactorParameters"},
           "yield levels",
           "site_factor_tune.conf",
           "site_factor_tune.state"},
      });
  return registry;
}

const PriorityPolicyEntry& priority_policy(std::string_view name) {
  return priority_policies().at(name);
}

std::unique_ptr<PriorityPolicy> make_priority_policy(std::string_view name, PolicyConfig c) {
  return priority_policy(name).make(std::move(c));
}

}  // namespace tune
