// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/ordering.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tune::sim {

const Registry<OrderingSpec>& ordering_policies() {
  using B = OrderingBase;
  using L = Lowering;
  static const Registry<OrderingSpec> registry(
      "priority policy", {
                             {"fifo", {}, "priority/basic: submission order", B::Fifo, L::None, ""},
                             {"multifactor",
                              {"fairshare"},
                              "priority/multifactor: age + classic fair share 2^(-U/S)",
                              B::Multifactor,
                              L::None,
                              ""},
                             {"tune",
                              {},
                              "sched/tune: DRF fair share and the adaptive priority",
                              B::SchedTune,
                              L::Tune,
                              "sched/tune"},
                             {"multifactor+tune",
                              {},
                              "priority/multifactor with site_factor/tune's SITE term",
                              B::Multifactor,
                              L::Tune,
                              "site_factor/tune"},
                             {"oracle",
                              {},
                              "fifo, a study that never meets its target lowered from its first job",
                              B::Fifo,
                              L::Oracle,
                              ""},
                             {"multifactor+oracle",
                              {},
                              "multifactor, such a study's jobs at priority 1 from its first",
                              B::Multifactor,
                              L::Oracle,
                              ""},
                             {"evidence-oracle",
                              {},
                              "fifo, such a study lowered once its results hold its final best twice",
                              B::Fifo,
                              L::EvidenceOracle,
                              ""},
                             {"multifactor+evidence-oracle",
                              {},
                              "multifactor, the same at priority 1",
                              B::Multifactor,
                              L::EvidenceOracle,
                              ""},
                         });
  return registry;
}

const OrderingSpec& ordering_policy(std::string_view name) {
  return ordering_policies().at(name);
}

Ordering::Ordering(const OrderingSpec& spec, const PolicyConfig& tune, const SchedulerSettings& s,
                   double weight_fairshare, double weight_age, const Resources& capacity, double gpu_billing,
                   int accounts)
    : spec_(spec),
      s_(s),
      weight_fairshare_(weight_fairshare),
      weight_age_(weight_age),
      capacity_(capacity),
      gpu_billing_(gpu_billing),
      accounts_(accounts) {
  if (spec.lowering == Lowering::Tune) plugin_ = make_priority_policy(spec.plugin, tune);
}

// sched/tune's pass, or site_factor/tune's (whose thread runs every interval;
// multifactor's own recompute stays every PriorityCalcPeriod).
double Ordering::period() const {
  return plugin_ ? plugin_->config().interval : s_.priority_calc_period;
}

void Ordering::add_job() {
  base_.push_back(0);
  site_term_.push_back(0);
}

// The oracles: a job of a study that will never meet its target; the
// evidence oracles only once the study's results so far hold its final best
// twice (the earliest its plateau shows in its results: a tie no continuous
// metric produces), the limit of what an estimator can see.
bool Ordering::oracle_lowers(OrderingHost& host, int j) const {
  if (spec_.lowering != Lowering::Oracle && spec_.lowering != Lowering::EvidenceOracle) return false;
  const int s = host.job(j).study;
  return s >= 0 && host.plateau_shows(s, spec_.lowering == Lowering::EvidenceOracle);
}

// priority/multifactor: age + classic fair share 2^(-U/S), U the account's
// share of all decayed usage, S its share of the shares (equal shares).
double Ordering::classic_priority(const SimJob& job, double now) const {
  double total = 0;
  for (const auto& [a, u] : usage_) total += u;
  const auto it = usage_.find(job.account);
  const double u = total > 0 && it != usage_.end() ? it->second / total : 0;
  const double s = 1.0 / std::max(1, accounts_);
  const double age = std::clamp((now - job.submit) / s_.priority_max_age, 0.0, 1.0);
  return std::floor(weight_fairshare_ * std::pow(2.0, -u / s) + weight_age_ * age);
}

// multifactor's priority with the SITE term, clamped as Slurm does (>= 1).
double Ordering::with_site(OrderingHost& host, int j) const {
  return oracle_lowers(host, j) ? 1.0 : std::max(1.0, base_[j] + static_cast<double>(site_term_[j]));
}

void Ordering::charge(const SimJob& job, int cpus, int gpus, double now, double& charged_until) {
  if (!multifactor()) return;
  const double dt = now - charged_until;
  charged_until = now;
  usage_[job.account] += dt * (cpus + gpu_billing_ * gpus);
}

double Ordering::on_submit(OrderingHost& host, int j) {
  if (spec_.base == OrderingBase::Fifo) return oracle_lowers(host, j) ? -2 : 0;
  if (spec_.base == OrderingBase::SchedTune) return -1;  // below the policy's band until its next pass
  base_[j] = classic_priority(host.job(j), host.now());
  // site_factor_p_set at submission: a trial job of a yielding study starts
  // with its study's term.
  if (plugin_) {
    const auto term =
        plugin_->site_for(static_cast<std::uint32_t>(j + 1), host.uid_of(j), host.comment_of(j));
    site_term_[j] = term.value_or(0);
  }
  return with_site(host, j);
}

void Ordering::reprioritise(OrderingHost& host, const std::vector<int>& jobs, std::vector<double>& prio) {
  const double now = host.now();
  if (spec_.base == OrderingBase::Fifo) {
    // fifo's order; the evidence oracle lowers a study once its plateau shows.
    if (spec_.lowering == Lowering::EvidenceOracle)
      for (int j : jobs) prio[j] = oracle_lowers(host, j) ? -2 : 0;
    return;
  }
  if (multifactor()) {
    // multifactor's decay thread: every PriorityCalcPeriod (with
    // site_factor/tune this runs every interval, the recompute less often).
    if (!plugin_ || now - last_decay_ >= s_.priority_calc_period - 1e-9) {
      const double dt = now - last_decay_;
      last_decay_ = now;
      for (auto& [a, u] : usage_) u *= std::pow(0.5, dt / s_.priority_decay_half_life);
      host.for_each_running([&](int j, int cpus, int gpus, double& charged_until) {
        charge(host.job(j), cpus, gpus, now, charged_until);
      });
      for (int j : jobs) base_[j] = classic_priority(host.job(j), now);
    }
    if (plugin_) pass(host, jobs, prio);  // site_factor/tune's thread: terms, set_job_prio
    for (int j : jobs) prio[j] = with_site(host, j);
    return;
  }
  pass(host, jobs, prio);  // sched/tune's thread
}

// The plugin's pass over the pending and running jobs: a job's priority
// (sched/tune) or SITE term (site_factor/tune), and yield signals.
void Ordering::pass(OrderingHost& host, const std::vector<int>& jobs, std::vector<double>& prio) {
  for (const auto& d : plugin_->pass(host.now(), capacity_, host.views_of(jobs))) {
    const int j = static_cast<int>(d.id - 1);
    if (d.priority) prio[j] = *d.priority;
    if (d.site) site_term_[j] = *d.site;
    if (d.signal) host.yield(j);
  }
  host.record_levels(plugin_->studies(), plugin_->changes());
}

}  // namespace tune::sim
