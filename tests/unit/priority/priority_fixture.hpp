// SPDX-License-Identifier: GPL-2.0-or-later
// The configuration the priority policies' tests run under: relaxation,
// yield waits and cooldowns short enough to see within a few passes.
#pragma once

#include <string>

#include "priority/policy_config.hpp"
#include "priority/study_tracker.hpp"

namespace tune::testing_support {

// Algorithm 1's options: the tests of its rule and of the plugins' passes
// count results in its k and m (the default estimator is the tail one).
inline AdaptiveOptions algorithm1() {
  AdaptiveOptions o;
  o.use("algorithm1");
  return o;
}

inline PolicyConfig fast() {
  PolicyConfig c;
  c.adaptive = algorithm1();
  c.fairshare.half_life = 600;
  c.adaptive.relax_time = 60;
  c.yield.wait = 30;
  c.yield.cooldown = 100;
  c.yield.level = 2;
  return c;
}

// A pending job asking for 4 CPUs and 1 GB; `base` is multifactor's
// priority without the SITE term.
inline JobView pending(std::uint32_t id, std::uint32_t uid, std::string tenant, double base,
                       std::string comment = "") {
  JobView j;
  j.id = id, j.uid = uid, j.tenant = std::move(tenant), j.state = JobView::State::Pending;
  j.request = {4, 1000, 0}, j.comment = std::move(comment), j.base_priority = base;
  return j;
}

}  // namespace tune::testing_support
