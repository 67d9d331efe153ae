// SPDX-License-Identifier: GPL-2.0-or-later
// The configuration the priority policies' tests run under: relaxation,
// yield waits and cooldowns short enough to see within a few passes.
#pragma once

#include "priority/sched_config.hpp"

namespace tune::testing_support {

inline SchedConfig fast() {
  SchedConfig c;
  c.fairshare.half_life = 600;
  c.adaptive.relax_time = 60;
  c.yield.wait = 30;
  c.yield.cooldown = 100;
  c.yield.level = 2;
  return c;
}

}  // namespace tune::testing_support
