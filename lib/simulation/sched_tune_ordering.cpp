// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/sched_tune_ordering.hpp"

namespace tune::sim {
namespace {

PolicyConfig with_adaptive(PolicyConfig c, bool on) {
  c.adaptive_enabled = c.adaptive_enabled && on;
  return c;
}

// Below the plugin's lowest priority (1), above a job no pass has seen yet.
constexpr double kOracleLowered = 0.5;

}  // namespace

SchedTuneOrdering::SchedTuneOrdering(const OrderingSpec& spec, const OrderingSetup& setup)
    : Ordering(spec, setup),
      plugin_(make_priority_policy(spec.plugin, with_adaptive(setup.tune, spec.lowering == Lowering::Tune))) {
}

void SchedTuneOrdering::reprioritise(OrderingHost& host, const std::vector<int>& pending,
                                     std::vector<double>& prio) {
  plugin_pass(*plugin_, host, pending, prio, nullptr);
  for (int j : pending)
    if (oracle_lowers(host, j)) prio[j] = kOracleLowered;
}

}  // namespace tune::sim
