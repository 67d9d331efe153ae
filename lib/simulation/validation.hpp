// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// How closely a simulation reproduces the history it replays: the jobs'
// recorded starts (sacct Start, SWF wait) against the simulated ones. What an
// admin checks before trusting `tune simulate` on their own cluster, and what
// bench/simulate_validate measures against the real test cluster. No Slurm.
#include <string>
#include <utility>
#include <vector>

#include "simulation/simulator.hpp"

namespace tune::sim {

struct Agreement {
  int jobs = 0;                                  // with a recorded start, started in the simulation
  double wait_recorded = 0, wait_simulated = 0;  // mean wait
  double wait_error = 0;                         // |simulated - recorded| / recorded (0 when both are 0)
  double makespan_recorded = 0, makespan_simulated = 0, makespan_error = 0;
  // Of the pairs of jobs whose recorded starts differ by more than `tie`
  // seconds, the share the simulation starts in the same order.
  double order_agreement = 1;
  long long pairs = 0;
  double start_error_median = 0, start_error_p95 = 0;  // |simulated - recorded start|, seconds
};

// Throws std::invalid_argument when no job of the workload has a recorded start.
Agreement compare_with_history(const Workload& w, const SimResult& r, double tie = 1);

// A table: per policy, mean wait and makespan recorded / simulated / error,
// share of pairs in the same start order, median and p95 |start difference|.
std::string format_agreements(const std::vector<std::pair<std::string, Agreement>>& rows);

}  // namespace tune::sim
