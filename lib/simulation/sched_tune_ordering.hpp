// SPDX-License-Identifier: GPL-2.0-or-later
// sched/tune: its thread's DRF fair share and adaptive priority, through the
// plugin's own policy class, set every pending job's priority. Without
// Lowering::Tune the plugin runs with its adaptive priority off (DRF fair
// share alone), and an oracle puts the jobs it lowers below every other.
#pragma once

#include <memory>

#include "simulation/ordering.hpp"

namespace tune::sim {

class SchedTuneOrdering : public Ordering {
 public:
  SchedTuneOrdering(const OrderingSpec& spec, const OrderingSetup& setup);
  double period() const override { return plugin_->config().interval; }
  // Below the policy's band until its next pass.
  double on_submit(OrderingHost&, int) override { return -1; }
  void reprioritise(OrderingHost& host, const std::vector<int>& pending, std::vector<double>& prio) override;

 private:
  std::unique_ptr<PriorityPolicy> plugin_;
};

}  // namespace tune::sim
