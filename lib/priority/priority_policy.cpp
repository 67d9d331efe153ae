// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/priority_policy.hpp"

#include <stdexcept>

#include "priority/scheduling_pass.hpp"
#include "priority/site_factor.hpp"

namespace tune {

const std::vector<PriorityPolicySpec>& priority_policies() {
  static const std::vector<PriorityPolicySpec> list = {
      {"sched/tune", ConfigHost::SchedTune,
       "DRF fair share times the study's yield factor, as the job's priority",
       [](SchedConfig c) { return std::make_unique<SchedulingPolicy>(std::move(c)); }},
      {"site_factor/tune", ConfigHost::SiteFactor,
       "the study's yield factor as a SITE term priority/multifactor adds",
       [](SchedConfig c) { return std::make_unique<SiteFactorPolicy>(std::move(c)); }},
  };
  return list;
}

const PriorityPolicySpec& priority_policy(std::string_view name) {
  std::string known;
  for (const auto& p : priority_policies()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown priority policy '" + std::string(name) + "': use " + known);
}

std::unique_ptr<PriorityPolicy> make_priority_policy(std::string_view name, SchedConfig c) {
  return priority_policy(name).make(std::move(c));
}

}  // namespace tune
