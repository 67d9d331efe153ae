// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Dominant-resource fair share (Ghodsi et al., DRF) over CPU, memory and GPU,
// with usage decayed by a half-life, as sched/tune ranks tenants. No Slurm here.
#include <map>
#include <string>
#include <unordered_map>

namespace tune {

// Amounts of the three resources (CPUs, MB, GPUs), or resource-seconds.
struct Resources {
  double cpus = 0, mem_mb = 0, gpus = 0;
  Resources& operator+=(const Resources& o) {
    cpus += o.cpus, mem_mb += o.mem_mb, gpus += o.gpus;
    return *this;
  }
  Resources operator*(double f) const { return {cpus * f, mem_mb * f, gpus * f}; }
  bool fits_in(const Resources& free) const {
    return cpus <= free.cpus + 1e-9 && mem_mb <= free.mem_mb + 1e-9 && gpus <= free.gpus + 1e-9;
  }
};

// DRF: the largest fraction of capacity the amount takes over the three
// resources (a resource the cluster lacks is ignored), divided by the share.
double dominant_share(const Resources& amount, const Resources& capacity, double share = 1.0);

// Whom a job's usage is charged to. Without slurmdbd enforcing
// associations, Slurm takes any --account a user names: charged by account,
// a user could escape their own usage with a fresh account, or charge
// someone else's. Auto: the account only where Slurm validates it
// (AccountingStorageEnforce=associations), else the job's user.
enum class TenantBy { Auto, User, Account };

struct FairShareOptions {
  TenantBy tenant = TenantBy::Auto;
  double half_life = 86400;              // seconds for past usage to count half
  std::map<std::string, double> shares;  // tenant -> shares; missing tenants have 1
  double share_of(const std::string& tenant) const {
    const auto it = shares.find(tenant);
    return it == shares.end() ? 1.0 : it->second;
  }
};

// One tenant's decayed usage: resource-seconds, each second's weight halving
// every half-life. A tenant holding a steady fraction f of a resource
// converges to f * capacity * tau, tau = half_life / ln 2.
class DecayedUsage {
 public:
  void decay(double seconds, double half_life);
  void charge(const Resources& allocated, double seconds) { used_ += allocated * seconds; }
  const Resources& resource_seconds() const { return used_; }
  void set(const Resources& r) { used_ = r; }

 private:
  Resources used_;
};

// Every tenant's usage and the dominant share it gives.
class FairShare {
 public:
  explicit FairShare(FairShareOptions o) : options_(std::move(o)) {}

  // Let `seconds` pass: old usage decays, then each running allocation is
  // charged (charge() per job after advance()).
  void decay(double seconds);
  void charge(const std::string& tenant, const Resources& allocated, double seconds);

  // Usage as a fraction of what the whole cluster could have delivered over
  // the decay window, divided by the tenant's share normalised over `active`
  // tenants' shares (the tenants that have jobs or usage now).
  double dominant_share(const std::string& tenant, const Resources& capacity,
                        double total_active_shares) const;
  // 2^-D: 1 for a tenant with no usage, 1/2 at exactly its share, falling after.
  static double factor(double dominant_share);

  // Tenants whose usage decayed below noise and have no jobs are dropped.
  void forget_idle(double capacity_seconds_floor);

  const std::unordered_map<std::string, DecayedUsage>& tenants() const { return usage_; }
  std::unordered_map<std::string, DecayedUsage>& tenants() { return usage_; }
  const FairShareOptions& options() const { return options_; }
  double tau() const;

 private:
  FairShareOptions options_;
  std::unordered_map<std::string, DecayedUsage> usage_;
};

}  // namespace tune
