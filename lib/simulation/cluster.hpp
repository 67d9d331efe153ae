// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The cluster a simulation runs on: from slurm.conf (NodeName lines, with
// topology.conf's switches beside it), from the Alibaba openb node list, or
// from what `tune place` reads (JSON, Tiresias cluster_spec CSV). slurm.conf
// also gives the scheduler's settings (SchedulerParameters bf_*, Priority*).
// No Slurm here.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "fairshare/fair_tree.hpp"
#include "placement/topology.hpp"

namespace tune::sim {

struct ClusterError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What Slurm's schedulers do, with slurm.conf's names and Slurm 22.05's defaults.
struct SchedulerSettings {
  double sched_interval = 60;     // full main-scheduler pass
  int default_queue_depth = 100;  // jobs an event-triggered pass looks at
  // An event (submission, completion) asks for a pass; slurmctld's background
  // loop runs it once batch_sched_delay whole seconds have passed since the
  // last pass (controller.c, _slurmctld_background).
  double batch_sched_delay = 3;
  bool backfill = true;  // SchedulerType=sched/backfill (sched/builtin: false)
  double bf_interval = 30;
  double bf_window = 1440 * 60;  // seconds (bf_window is in minutes in slurm.conf)
  double bf_resolution = 60;
  int bf_max_job_test = 500;
  // priority/multifactor
  double priority_calc_period = 300;
  double priority_decay_half_life = 7 * 86400;
  double priority_max_age = 7 * 86400;
  double weight_age = 0, weight_fairshare = 0;
  // PriorityFlags=MAX_TRES: a job's usage is its largest billed resource
  // (CPUs or GPUs at the cluster's CPUs per GPU), not their sum.
  bool max_tres = false;
  // Fair Tree, Slurm's fair-share factor unless PriorityFlags has
  // NO_FAIR_TREE or DEPTH_OBLIVIOUS (then the classic 2^(-U/S)).
  bool fair_tree = true;
};

struct Cluster {
  std::string source;
  Topology topology;
  SchedulerSettings settings;
  std::vector<std::string> notes;  // what was read approximately, for the report
  // The accounting associations (read_associations); empty: those the jobs
  // name, under root, as sacctmgr makes them, and root's own user.
  std::vector<Association> associations;
  int gpus() const;
  int cpus() const;
  double mem_mb() const;
};

// "node[01-03,7],gpu5" -> node01 node02 node03 node7 gpu5. Throws on a malformed list.
std::vector<std::string> expand_hostlist(const std::string& list);

// slurm.conf text; topology.conf text may be empty. `name` stands for the file in messages.
Cluster parse_slurm_conf(const std::string& text, const std::string& name,
                         const std::string& topology_text = "",
                         const std::string& topology_name = "topology.conf");
// Reads a cluster: slurm.conf (topology.conf beside it, if present), the
// openb node list CSV, or a `tune place` description.
Cluster read_cluster(const std::string& path);

// The associations of `sacctmgr -nP show assoc format=Account,User,ParentName,Share`
// (one per line: account|user|parent|shares; a user's row has no parent).
// Throws ClusterError naming the file, the line and the fix.
std::vector<Association> read_associations(const std::string& path);

// A share of the nodes, spread evenly over the node list so the mix of node
// kinds stays (0.1: every tenth node). For a trace too small in work to load
// its own cluster (openb's pods hold its 6,212 GPUs for about 12 hours).
Cluster scale_cluster(const Cluster& c, double share);

}  // namespace tune::sim
