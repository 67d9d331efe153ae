// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The adaptive priority as slurmctld hosts it, one interface whichever way:
// sched/tune gives pending jobs their own priorities (fair share times the
// study's yield factor: SchedTunePolicy), site_factor/tune a SITE term that
// priority/multifactor adds (SiteFactorPolicy). The plugins' shim
// (plugins/tune_host/tune_policy.cpp) and tune simulate's Ordering make
// theirs by name from priority_policies(); a new policy is a class here and
// one entry in that list. No Slurm here.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fairshare/fair_share.hpp"
#include "priority/policy_config.hpp"
#include "priority/study_tracker.hpp"
#include "registry/registry.hpp"

namespace tune {

// What a pass decides for one job.
struct JobDecision {
  std::uint32_t id = 0;
  std::optional<std::uint32_t> priority;  // sched/tune: its priority (points 1..max_points), for may_set jobs
  std::optional<std::int64_t> site;       // site_factor/tune: its SITE term, for pending settable study jobs
  int signal = 0;                         // non-zero: ask this running study to yield
  std::string summary;                    // "tune:tenant=...;..." for tune queue
};

class PriorityPolicy {
 public:
  virtual ~PriorityPolicy() = default;
  // `now` in seconds (epoch); `capacity` the cluster's. Decisions come in
  // the order of `jobs`.
  virtual std::vector<JobDecision> pass(double now, const Resources& capacity,
                                        const std::vector<JobView>& jobs) = 0;
  // The highest priority a pass gives (slurm_priority maps 1..this onto
  // Slurm's band); 0 for a policy that gives none.
  virtual double max_points() const { return 0; }
  // What Slurm's site_factor_p_set gets for a job it (re)computes; nothing:
  // no term (and always nothing from a policy that gives no terms).
  virtual std::optional<std::int64_t> site_for(std::uint32_t /*job_id*/, std::uint32_t /*uid*/,
                                               const std::string& /*comment*/) const {
    return std::nullopt;
  }
  virtual const PolicyConfig& config() const = 0;
  virtual void reconfigure(PolicyConfig c) = 0;
  virtual const std::map<std::string, StudyState>& studies() const = 0;
  // The yield level changes of the last pass (what the plugins log).
  virtual const std::vector<LevelChange>& changes() const = 0;
  // Its state as JSON (the plugin keeps it in StateSaveLocation); restore()
  // throws std::runtime_error naming what is wrong.
  virtual nlohmann::json save() const = 0;
  virtual void restore(const nlohmann::json& state) = 0;
};

// What every adaptive policy keeps: its configuration, its studies' yield
// levels, and when it last passed.
class TrackingPolicy : public PriorityPolicy {
 public:
  const PolicyConfig& config() const override { return c_; }
  void reconfigure(PolicyConfig c) override { c_ = std::move(c); }
  const std::map<std::string, StudyState>& studies() const override { return tracker_.studies(); }
  // The yield level changes of the last pass (what the plugins log).
  const std::vector<LevelChange>& changes() const override { return tracker_.changes(); }

 protected:
  explicit TrackingPolicy(PolicyConfig c) : c_(std::move(c)) {}
  PolicyConfig c_;
  StudyTracker tracker_;
  double last_pass_ = 0;
};

// A policy's name is the plugin that hosts it ("sched/tune",
// "site_factor/tune"): the plugins' C side names it so, and everything that
// differs between the hosts is here.
struct PriorityPolicyEntry {
  std::string name;
  std::vector<std::string> aliases;
  std::string description;
  std::function<std::unique_ptr<PriorityPolicy>(PolicyConfig)> make;
  ConfigRules rules;        // what its configuration file may hold (load_policy_config)
  std::string state_holds;  // what its saved state holds, for the log
  std::string conf_file;    // its configuration file beside slurm.conf (rules.named_by may name another)
  std::string
      state_file;  // its state file in StateSaveLocation (the configuration's state_file may name another)
};

// Every adaptive priority policy, by the plugin that hosts it.
const Registry<PriorityPolicyEntry>& priority_policies();
// The one a name stands for; UnknownName naming the known ones otherwise.
const PriorityPolicyEntry& priority_policy(std::string_view name);
std::unique_ptr<PriorityPolicy> make_priority_policy(std::string_view name, PolicyConfig c);

}  // namespace tune
