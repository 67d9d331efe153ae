// SPDX-License-Identifier: GPL-2.0-or-later
#include "simulation/multifactor_ordering.hpp"

#include <algorithm>
#include <cmath>

namespace tune::sim {

MultifactorOrdering::MultifactorOrdering(const OrderingSpec& spec, const OrderingSetup& setup)
    : Ordering(spec, setup),
      s_(setup.settings),
      weight_fairshare_(setup.weight_fairshare),
      weight_age_(setup.weight_age),
      gpu_billing_(setup.gpu_billing),
      accounts_(setup.accounts),
      tree_(setup.fair_tree) {
  rank_associations();
  if (spec.lowering == Lowering::Tune) plugin_ = make_priority_policy(spec.plugin, setup.tune);
}

void MultifactorOrdering::rank_associations() {
  if (s_.fair_tree) assoc_factor_ = tree_.factors(assoc_usage_);
}

// Classic: U the account's share of all decayed usage, S its share of the
// shares (equal shares).
double MultifactorOrdering::classic_priority(int j, const SimJob& job, double now) {
  double factor = 0;
  if (s_.fair_tree) {
    const auto it = assoc_factor_.find(association_of(job.account, job.user));
    factor = it == assoc_factor_.end() ? 0 : it->second;
  } else {
    double total = 0;
    double mine = 0;  // the account's: its users' associations together
    for (const auto& [assoc, u] : assoc_usage_) {
      total += u;
      if (assoc.first == job.account) mine += u;
    }
    const double u = total > 0 ? mine / total : 0;
    const double s = 1.0 / std::max(1, accounts_);
    factor = std::pow(2.0, -u / s);
  }
  const double age = std::clamp((now - job.submit) / s_.priority_max_age, 0.0, 1.0);
  fairshare_[j] = weight_fairshare_ * factor;
  age_[j] = weight_age_ * age;
  return std::floor(fairshare_[j] + age_[j]);
}

// The priority with the SITE term, clamped as Slurm does (>= 1).
double MultifactorOrdering::with_site(OrderingHost& host, int j) const {
  return oracle_lowers(host, j) ? 1.0 : std::max(1.0, base_[j] + static_cast<double>(site_term_[j]));
}

void MultifactorOrdering::charge(const SimJob& job, int cpus, int gpus, double now, double& charged_until) {
  const double dt = now - charged_until;
  charged_until = now;
  const double used =
      dt * (s_.max_tres ? std::max<double>(cpus, gpu_billing_ * gpus) : cpus + gpu_billing_ * gpus);
  assoc_usage_[association_of(job.account, job.user)] += used;
}

double MultifactorOrdering::on_submit(OrderingHost& host, int j) {
  base_[j] = classic_priority(j, host.job(j), host.now());
  // site_factor_p_set at submission: a trial job of a yielding study starts
  // with its study's term.
  if (plugin_) {
    const auto term =
        plugin_->site_for(static_cast<std::uint32_t>(j + 1), host.uid_of(j), host.comment_of(j));
    site_term_[j] = term.value_or(0);
  }
  return with_site(host, j);
}

void MultifactorOrdering::reprioritise(OrderingHost& host, const std::vector<int>& pending,
                                       std::vector<double>& prio) {
  const double now = host.now();
  // The decay thread: every PriorityCalcPeriod (with site_factor/tune this
  // runs every interval, the recompute less often).
  if (!plugin_ || now - last_decay_ >= s_.priority_calc_period - 1e-9) {
    const double dt = now - last_decay_;
    last_decay_ = now;
    const double decay = std::pow(0.5, dt / s_.priority_decay_half_life);
    for (auto& [a, u] : assoc_usage_) u *= decay;
    host.for_each_running([&](int j, int cpus, int gpus, double& charged_until) {
      charge(host.job(j), cpus, gpus, now, charged_until);
    });
    rank_associations();
    for (int j : pending) base_[j] = classic_priority(j, host.job(j), now);
  }
  if (plugin_) plugin_pass(*plugin_, host, pending, prio, &site_term_);  // terms, set_job_prio
  for (int j : pending) prio[j] = with_site(host, j);
}

}  // namespace tune::sim
