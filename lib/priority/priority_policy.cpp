// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/priority_policy.hpp"

#include <stdexcept>

#include "priority/scheduling_pass.hpp"
#include "priority/site_factor.hpp"

namespace tune {

const Registry<PriorityPolicyEntry>& priority_policies() {
  static const Registry<PriorityPolicyEntry> registry(
      "priority policy", {
                             {"sched/tune",
                              {},
                              "DRF fair share times the study's yield factor, as the job's priority",
                              [](SchedConfig c) { return std::make_unique<SchedulingPolicy>(std::move(c)); },
                              ConfigRules{},
                              "usage and yield levels"},
                             {"site_factor/tune",
                              {},
                              "the study's yield factor as a SITE term priority/multifactor adds",
                              [](SchedConfig c) { return std::make_unique<SiteFactorPolicy>(std::move(c)); },
                              ConfigRules{.fairshare = false, .named_by = "PrioritySiteFactorParameters"},
                              "yield levels"},
                         });
  return registry;
}

const PriorityPolicyEntry& priority_policy(std::string_view name) {
  return priority_policies().at(name);
}

std::unique_ptr<PriorityPolicy> make_priority_policy(std::string_view name, SchedConfig c) {
  return priority_policy(name).make(std::move(c));
}

}  // namespace tune
