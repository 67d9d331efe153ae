// SPDX-License-Identifier: GPL-2.0-or-later
// The clusters the simulator's tests run on.
#pragma once

#include <string>

#include "simulation/cluster.hpp"
#include "simulation/workload.hpp"

namespace tune::testing_support {

using sim::Cluster;
using sim::SimJob;

// `nodes` nodes of `gpus` GPUs and `cpus` CPUs, 64 GB each; backfill unless not.
inline Cluster gpu_cluster(int nodes, int gpus, int cpus = 16, bool backfill = true) {
  std::string conf = "NodeName=n[1-" + std::to_string(nodes) + "] CPUs=" + std::to_string(cpus) +
                     " RealMemory=64000 Gres=gpu:" + std::to_string(gpus) + "\n";
  if (!backfill) conf += "SchedulerType=sched/builtin\n";
  return sim::parse_slurm_conf(conf, "test.conf");
}

// A job of account `account` asking for `gpus` GPUs for `runtime` seconds
// (its time limit `limit`, else its run time).
inline SimJob job(const std::string& name, double submit, double runtime, int gpus, double limit = 0,
                  const std::string& account = "a") {
  SimJob j;
  j.name = name;
  j.submit = submit;
  j.runtime = runtime;
  j.gpus = gpus;
  j.time_limit = limit > 0 ? limit : runtime;
  j.account = account;
  return j;
}

}  // namespace tune::testing_support
