// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/sched_tune_ordering.hpp"

namespace tune::sim {

SchedTuneOrdering::SchedTuneOrdering(const OrderingSpec& spec, const OrderingSetup& setup)
    : Ordering(spec, setup), plugin_(make_priority_policy(spec.plugin, setup.tune)) {}

}  // namespace tune::sim
