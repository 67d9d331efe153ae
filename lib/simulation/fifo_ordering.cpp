// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/fifo_ordering.hpp"

namespace tune::sim {

FifoOrdering::FifoOrdering(const OrderingSpec& spec, const OrderingSetup& setup)
    : Ordering(spec, setup), period_(setup.settings.priority_calc_period) {}

double FifoOrdering::on_submit(OrderingHost& host, int j) {
  return oracle_lowers(host, j) ? -2 : 0;
}

void FifoOrdering::reprioritise(OrderingHost& host, const std::vector<int>& pending,
                                std::vector<double>& prio) {
  for (int j : pending) prio[j] = oracle_lowers(host, j) ? -2 : 0;
}

}  // namespace tune::sim
