// SPDX-License-Identifier: GPL-2.0-or-later
// What `tune simulate` is asked to compare, read and planned: the cluster,
// the workload (jobs and studies), the arrival rates, and one run per study
// mode x priority policy x placement policy, each with the configuration of
// the tune plugin its priority type runs. The command runs the plan and
// prints it; the plan is here, so tests and benchmarks make the same one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "simulation/cluster.hpp"
#include "simulation/simulator.hpp"
#include "simulation/workload.hpp"

namespace tune::sim {

struct ExperimentSpec {
  std::string cluster, associations, jobs, format, times_from;
  // A tune plugin's configuration file by the plugin's name in
  // priority_policies() ("sched/tune": sched_tune.conf); a plugin not
  // named runs with its defaults.
  std::map<std::string, std::string> plugin_conf;
  std::string select_conf;                      // select/cons_tres_gang's select_gang.conf
  std::vector<std::string> priorities{"fifo"};  // POLICY or POLICY:ESTIMATOR
  std::vector<std::string> placements;          // empty: cons_tres, or select_gang.conf's
  std::vector<double> loads;                    // arrival compression factors
  std::vector<double> utilisations;             // target offered loads (0-1]; with or instead of loads
  double time_limit_factor = 2;
  double cluster_share = 1;
  int cpus_per_gpu = 0;
  long limit = 0;  // first N jobs only
  unsigned seed = 1;
  std::vector<std::string> studies;  // PATH[,key=value...]
  std::vector<std::string> study_modes{"trials"};
  double drain = 60;
  double timer_phase = 0;
};

struct PlannedRun {
  SimOptions options;
  std::string label;     // "tune:tail+gang/whole"
  std::string priority;  // as given, e.g. "tune:tail"
};

struct Experiment {
  Cluster cluster;
  Workload base;                // at its own pace, time limits applied
  double native_load = 0;       // base's offered load (0 without jobs)
  std::vector<double> factors;  // arrival compressions, one pass of the runs each
  std::vector<PlannedRun> runs;
  bool several_modes = false;  // the labels and file names carry the study mode
};

// Reads every input and plans the runs. Throws (WorkloadError, ConfigError,
// std::invalid_argument, ...) naming the input and the fix.
Experiment plan_experiment(const ExperimentSpec& spec);

// One run's file in `dir`: x<factor>-<priority>-<placement>[-<mode>].<ext>.
std::string run_file_name(const std::string& dir, double factor, const PlannedRun& run, bool with_mode,
                          const char* ext);

}  // namespace tune::sim
