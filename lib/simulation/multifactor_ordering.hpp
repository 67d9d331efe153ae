// SPDX-License-Identifier: GPL-2.0-or-later
// priority/multifactor: age and fair share (Fair Tree, or classic 2^(-U/S)
// with PriorityFlags=NO_FAIR_TREE) over decayed usage, plus a SITE term from site_factor/tune's policy class,
// or an oracle's priority 1 for a plateauing study's jobs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "simulation/ordering.hpp"

namespace tune::sim {

class MultifactorOrdering : public Ordering {
 public:
  MultifactorOrdering(const OrderingSpec& spec, const OrderingSetup& setup);
  // site_factor/tune's thread runs every interval; multifactor's own
  // recompute stays every PriorityCalcPeriod.
  double period() const override { return plugin_ ? plugin_->config().interval : s_.priority_calc_period; }
  void add_job() override {
    base_.push_back(0);
    age_.push_back(0);
    fairshare_.push_back(0);
    site_term_.push_back(0);
  }
  double on_submit(OrderingHost& host, int j) override;
  void reprioritise(OrderingHost& host, const std::vector<int>& pending, std::vector<double>& prio) override;
  double base(int j) const override { return base_[j]; }
  bool charges() const override { return true; }
  PriorityTerms terms(int j) const override { return {age_[j], fairshare_[j], site_term_[j]}; }

 private:
  // A running job's usage since it was last charged, at the decay thread's
  // pass. Nothing is charged when a job ends: Slurm's decay thread charges
  // only the jobs running at its pass, so what a job ran after the last pass
  // is never charged (measured on Slurm 22.05 and 26.05: a 10 s job between
  // two passes leaves its association's RawUsage at 0).
  void charge(const SimJob& job, int cpus, int gpus, double now, double& charged_until);
  // Sets job j's age and fair-share terms and returns their sum, floored.
  double classic_priority(int j, const SimJob& job, double now);
  // Each association's factor again from the usage (Fair Tree), at a decay pass.
  void rank_associations();
  double with_site(OrderingHost& host, int j) const;

  SchedulerSettings s_;
  double weight_fairshare_, weight_age_;
  double gpu_billing_;
  int accounts_;
  std::unique_ptr<PriorityPolicy> plugin_;  // site_factor/tune's, with Lowering::Tune
  std::vector<double> base_;                // the priority without the SITE term
  std::vector<double> age_, fairshare_;     // its weighted terms
  std::vector<std::int64_t> site_term_;     // site_factor/tune's term
  FairTree tree_;
  // Decayed usage per user association (classic fair share sums an
  // account's), and Fair Tree's factor of each.
  std::map<AssocKey, double> assoc_usage_, assoc_factor_;
  double last_decay_ = 0;
};

}  // namespace tune::sim
