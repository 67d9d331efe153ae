// SPDX-License-Identifier: GPL-2.0-or-later
// `tune simulate`: replay a workload through a model of Slurm's scheduling
// with each combination of priority and placement policy, and print what
// each did to waits, completion times, utilisation and fairness.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "simulation/experiment.hpp"

namespace tune {

// The experiment (sim::ExperimentSpec) and what to show of it.
struct SimulateOptions {
  sim::ExperimentSpec spec;
  std::string sched_conf, site_conf;  // into spec.plugin_conf
  std::string csv_dir, sprio_dir, html;
  bool validate = false;  // compare simulated starts with the recorded ones
  int replicates = 1;     // runs per combination, arrivals jittered after the first
  double jitter = 60;     // seconds
};

void add_simulate_options(CLI::App& app, SimulateOptions& o);
int run_simulation(const SimulateOptions& o);

}  // namespace tune
