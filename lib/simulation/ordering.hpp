// SPDX-License-Identifier: GPL-2.0-or-later
// The priority policies tune simulate compares, in one list, by name, and
// the one class that runs them against the simulated slurmctld. A policy is
// a base order (FIFO as priority/basic, multifactor's classic fair share, or
// sched/tune's own DRF pass) and what lowers plateauing studies in it
// (nothing, tune's adaptive priority through the plugins' own classes, or an
// oracle). A new policy is one entry in ordering_policies() and, if it needs
// one, a branch in Ordering. No Slurm here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "priority/priority_policy.hpp"
#include "simulation/cluster.hpp"
#include "simulation/workload.hpp"

namespace tune::sim {

enum class OrderingBase { Fifo, Multifactor, SchedTune };
enum class Lowering { None, Tune, Oracle, EvidenceOracle };

struct OrderingSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;  // one line: what it models
  OrderingBase base;
  Lowering lowering;
  std::string
      plugin;  // Lowering::Tune: the plugin's policy, by its name in lib/priority's priority_policies()
};

// Every policy tune simulate knows, in the order the tables list them.
const Registry<OrderingSpec>& ordering_policies();
// The policy a name (or alias) stands for; UnknownName naming the known
// ones otherwise.
const OrderingSpec& ordering_policy(std::string_view name);

// What a priority policy sees of the simulated slurmctld.
class OrderingHost {
 public:
  virtual ~OrderingHost() = default;
  virtual double now() const = 0;
  virtual const SimJob& job(int j) const = 0;
  virtual std::uint32_t uid_of(int j) const = 0;
  virtual std::string comment_of(int j) const = 0;
  // Pending, then running jobs as the plugins copy them out of slurmctld.
  virtual std::vector<JobView> views_of(const std::vector<int>& pending) const = 0;
  // The oracles' knowledge: study s never meets its target (and, with
  // `evidence`, its results so far hold its final best twice).
  virtual bool plateau_shows(int study, bool evidence) const = 0;
  // Each running job with its CPUs and GPUs, and when it was last charged.
  virtual void for_each_running(
      const std::function<void(int j, int cpus, int gpus, double& charged_until)>& f) = 0;
  virtual void yield(int j) = 0;  // the policy asks a running study to yield
  virtual void record_levels(const std::map<std::string, StudyState>& levels,
                             const std::vector<LevelChange>& changes) = 0;
};

class Ordering {
 public:
  // `capacity`: the cluster's CPUs, memory, GPUs; `accounts`: how many share it.
  Ordering(const OrderingSpec& spec, const PolicyConfig& tune, const SchedulerSettings& s,
           double weight_fairshare, double weight_age, const Resources& capacity, double gpu_billing,
           int accounts);

  const OrderingSpec& spec() const { return spec_; }
  // How often slurmctld recomputes priorities under this policy (seconds).
  double period() const;
  // A job the simulation added (a study's): its slots.
  void add_job();
  // The priority a job gets at submission.
  double on_submit(OrderingHost& host, int j);
  // Whether reprioritise can change the order (FIFO and the oracle cannot).
  bool reorders() const {
    return !(spec_.base == OrderingBase::Fifo && spec_.lowering != Lowering::EvidenceOracle);
  }
  // Recomputes the pending jobs' priorities into `prio` (indexed by job).
  void reprioritise(OrderingHost& host, const std::vector<int>& pending, std::vector<double>& prio);
  // multifactor's priority of job j without the SITE term (0 under other bases).
  double base(int j) const { return base_[j]; }
  // A job ends: its usage is charged (multifactor).
  void charge(const SimJob& job, int cpus, int gpus, double now, double& charged_until);

 private:
  bool multifactor() const { return spec_.base == OrderingBase::Multifactor; }
  bool oracle_lowers(OrderingHost& host, int j) const;
  void pass(OrderingHost& host, const std::vector<int>& jobs, std::vector<double>& prio);
  double classic_priority(const SimJob& job, double now) const;
  double with_site(OrderingHost& host, int j) const;

  OrderingSpec spec_;
  SchedulerSettings s_;
  double weight_fairshare_, weight_age_;
  Resources capacity_;
  double gpu_billing_;
  int accounts_;
  std::unique_ptr<PriorityPolicy> plugin_;  // sched/tune's or site_factor/tune's, by name
  std::vector<double> base_;                // multifactor's priority without the SITE term
  std::vector<std::int64_t> site_term_;     // site_factor/tune's term
  std::unordered_map<std::string, double> usage_;
  double last_decay_ = 0;
};

}  // namespace tune::sim
