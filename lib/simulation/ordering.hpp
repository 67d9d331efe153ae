// SPDX-License-Identifier: GPL-2.0-or-later
// The priority policies tune simulate compares, in one registry, and the
// base class each one implements against the simulated slurmctld (one small
// header per ordering, as flux-sched keeps its queue policies). An ordering
// is a priority type (FIFO as priority/basic, multifactor's classic fair
// share, or sched/tune's own DRF pass) and what lowers plateauing studies in
// it (nothing, tune's adaptive priority through the plugins' own classes, or
// an oracle). A new ordering is its class and one registry entry. No Slurm
// here.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "priority/priority_policy.hpp"
#include "registry/registry.hpp"
#include "simulation/cluster.hpp"
#include "simulation/workload.hpp"

namespace tune::sim {

// What lowers a plateauing study's jobs: nothing, tune's plugin, or an
// oracle (which waits for what its OracleSight says).
enum class Lowering { None, Tune, Oracle };

// The Slurm priority plugin an ordering models, and tune's plugin for it:
// sched/tune replaces priority/basic's order, site_factor/tune adds its
// SITE term to priority/multifactor's.
enum class PriorityType { Basic, Multifactor };
const char* priority_type_name(PriorityType t);  // "priority/basic", "priority/multifactor"
const char* tune_plugin_for(PriorityType t);     // its name in priority_policies()
// What an oracle waits for before it lowers a plateauing study: nothing (it
// knows the study's fate), its final best among its results (its last
// improvement: the earliest its results can show the plateau), its final
// best twice among its results, or twice among its trials' reports.
enum class OracleSight { Fate, FinalBest, FinalBestLate, Results, Reports };
// The late oracles lower a study this many results after its last
// improvement: "within a few trials of its plateau".
inline constexpr int kLateResults = 5;

// A pending job's priority in parts, as sprio shows them (NaN: a part the
// priority type does not have).
struct PriorityTerms {
  double age = std::numeric_limits<double>::quiet_NaN();
  double fairshare = std::numeric_limits<double>::quiet_NaN();
  std::int64_t site = 0;
};

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
  // FinalBest, its results so far hold its final best (FinalBestLate:
  // kLateResults results ago); with Results, they
  // hold it twice; with Reports, the trials it has started do: each trial's
  // result known from its start, the most per-epoch reports could tell).
  virtual bool plateau_shows(int study, OracleSight sight) const = 0;
  // Each running job with its CPUs and GPUs, and when it was last charged.
  virtual void for_each_running(
      const std::function<void(int j, int cpus, int gpus, double& charged_until)>& f) = 0;
  virtual void yield(int j) = 0;  // the policy asks a running study to yield
  virtual void record_levels(const std::map<std::string, StudyState>& levels,
                             const std::vector<LevelChange>& changes) = 0;
};

// What an ordering is built from: the cluster and slurm.conf's settings.
struct OrderingSetup {
  PolicyConfig tune;  // the plugin's configuration, for the orderings that run one
  SchedulerSettings settings;
  double weight_fairshare = 0, weight_age = 0;
  Resources capacity;  // the cluster's CPUs, memory, GPUs
  double gpu_billing = 0;
  int accounts = 1;        // how many accounts share the cluster
  FairTree fair_tree{{}};  // every association a job runs under (settings.fair_tree)
};

// The association a job runs under: its account and its user (a job that
// names no user: a user named after the account, as uid_for does).
inline AssocKey association_of(const std::string& account, const std::string& user) {
  return {account, user.empty() ? account : user};
}

struct OrderingSpec;

class Ordering {
 public:
  Ordering(const OrderingSpec& spec, const OrderingSetup& setup);
  virtual ~Ordering() = default;

  const OrderingSpec& spec() const { return spec_; }
  // How often slurmctld recomputes priorities under this ordering (seconds).
  virtual double period() const = 0;
  // A job the simulation added (a study's): its slots.
  virtual void add_job() {}
  // The priority a job gets at submission.
  virtual double on_submit(OrderingHost& host, int j) = 0;
  // Whether reprioritise can change the order.
  virtual bool reorders() const { return true; }
  // Whether its passes charge running jobs' usage, so that they run while
  // nothing waits too (multifactor's decay thread).
  virtual bool charges() const { return false; }
  // Recomputes the pending jobs' priorities into `prio` (indexed by job).
  virtual void reprioritise(OrderingHost& host, const std::vector<int>& pending,
                            std::vector<double>& prio) = 0;
  // multifactor's priority of job j without the SITE term (0 under other types).
  virtual double base(int) const { return 0; }
  // Job j's priority in parts (--sprio); none under priority/basic's orderings.
  virtual PriorityTerms terms(int) const { return {}; }

 protected:
  // The oracles: a job of a study that will never meet its target; the
  // final-best oracles only once the study's results so far hold its final
  // best (its last improvement: from then on its results show nothing new,
  // the earliest any estimator reading results could act); the late oracles
  // kLateResults results later (an estimator that needs a few results
  // without improvement to see the plateau, and is never wrong); the evidence
  // oracles once they hold it twice (a tie no continuous metric produces);
  // the reports oracles once its started trials do, the limit of what an
  // estimator reading every trial's curve could see.
  bool oracle_lowers(OrderingHost& host, int j) const;
  // The plugin's pass over the pending and running jobs: a job's priority
  // (sched/tune) or SITE term (site_factor/tune, into `site`), and yield
  // signals.
  void plugin_pass(PriorityPolicy& plugin, OrderingHost& host, const std::vector<int>& jobs,
                   std::vector<double>& prio, std::vector<std::int64_t>* site) const;

 private:
  const OrderingSpec& spec_;
  Resources capacity_;
};

struct OrderingSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;  // one line: what it models
  PriorityType priority_type;
  Lowering lowering;
  std::string plugin;  // Lowering::Tune: the plugin's policy, by its name in priority_policies()
  std::function<std::unique_ptr<Ordering>(const OrderingSpec&, const OrderingSetup&)> make;
  OracleSight sight = OracleSight::Fate;  // Lowering::Oracle: what it waits for
};

// Every ordering tune simulate knows, in the order the tables list them.
const Registry<OrderingSpec>& ordering_policies();
// The ordering a name (or alias) stands for; UnknownName naming the known
// ones otherwise.
const OrderingSpec& ordering_policy(std::string_view name);

}  // namespace tune::sim
