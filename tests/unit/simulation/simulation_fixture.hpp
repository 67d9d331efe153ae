// SPDX-License-Identifier: GPL-2.0-or-later
// The clusters and studies the simulator's tests run on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "simulation/cluster.hpp"
#include "simulation/recorded_studies.hpp"
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

inline sim::SimStudy study_of(const std::string& name, const std::string& account,
                              std::vector<double> objectives, double duration, int parallel,
                              std::optional<double> target, bool minimize = false) {
  sim::SimStudy s;
  s.name = name;
  s.source = name + ".h5";
  s.account = account;
  s.minimize = minimize;
  s.target = target;
  s.parallel = parallel;
  s.gpus = 1;
  for (double o : objectives) s.trials.push_back({duration, TrialState::Ok, o});
  return s;
}

inline sim::Workload with_studies(std::vector<sim::SimStudy> studies, std::vector<SimJob> jobs = {}) {
  sim::Workload w;
  w.jobs = std::move(jobs);
  w.studies = std::move(studies);
  apply_time_limits(w, 2);
  return w;
}

// "flat" returns the same value every trial (Algorithm 1 raises its level
// from its 11th result); "rising" improves with shrinking gaps until its
// target at trial 30. Two trial jobs at a time each.
inline sim::Workload flat_and_rising() {
  std::vector<double> flat(60, 0.5), rising;
  for (int i = 1; i <= 60; ++i) rising.push_back(static_cast<double>(i) * i);
  return with_studies(
      {study_of("flat", "f", flat, 60, 2, std::nullopt), study_of("rising", "r", rising, 60, 2, 900.0)});
}

}  // namespace tune::testing_support
