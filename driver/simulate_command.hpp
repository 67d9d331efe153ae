// SPDX-License-Identifier: GPL-2.0-or-later
// `tune simulate`: replay a workload through a model of Slurm's scheduling
// with each combination of priority and placement policy, and print what
// each did to waits, completion times, utilisation and fairness.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tune {

struct SimulateOptions {
  std::string cluster, associations, jobs, format, times_from, sched_conf, site_conf, select_conf, csv_dir,
      sprio_dir, html;
  std::vector<std::string> priorities{"fifo"};
  std::vector<std::string> placements;  // empty: cons_tres, or select_gang.conf's with --select-conf
  std::vector<double> loads;            // arrival compression factors
  std::vector<double> utilisations;     // target offered loads (0-1]; alternative to loads
  double time_limit_factor = 2;
  double cluster_share = 1;
  int cpus_per_gpu = 0;
  long limit = 0;  // first N jobs only
  unsigned seed = 1;
  bool validate = false;             // compare simulated starts with the recorded ones
  int replicates = 1;                // runs per combination, arrivals jittered after the first
  double jitter = 60;                // seconds
  std::vector<std::string> studies;  // --study PATH[,key=value...]
  std::vector<std::string> study_modes{"trials"};
  double drain = 60;
  double timer_phase = 0;
};

void add_simulate_options(CLI::App& app, SimulateOptions& o);
int run_simulation(const SimulateOptions& o);

}  // namespace tune
