// SPDX-License-Identifier: GPL-2.0-or-later
#include "fairshare/fair_share.hpp"

#include <algorithm>
#include <cmath>

namespace tune {

double dominant_share(const Resources& amount, const Resources& capacity, double share) {
  double d = 0;
  if (capacity.cpus > 0) d = std::max(d, amount.cpus / capacity.cpus);
  if (capacity.mem_mb > 0) d = std::max(d, amount.mem_mb / capacity.mem_mb);
  if (capacity.gpus > 0) d = std::max(d, amount.gpus / capacity.gpus);
  return share > 0 ? d / share : d;
}

void DecayedUsage::decay(double seconds, double half_life) {
  if (seconds <= 0 || half_life <= 0) return;
  used_ = used_ * std::exp2(-seconds / half_life);
}

void FairShare::decay(double seconds) {
  for (auto& [tenant, u] : usage_) u.decay(seconds, options_.half_life);
}

void FairShare::charge(const std::string& tenant, const Resources& allocated, double seconds) {
  if (seconds > 0) usage_[tenant].charge(allocated, seconds);
}

double FairShare::tau() const {
  return options_.half_life / std::log(2.0);
}

double FairShare::dominant_share(const std::string& tenant, const Resources& capacity,
                                 double total_active_shares) const {
  const auto it = usage_.find(tenant);
  if (it == usage_.end()) return 0;
  const double share = total_active_shares > 0 ? options_.share_of(tenant) / total_active_shares : 1.0;
  return tune::dominant_share(it->second.resource_seconds(), capacity * tau(), share);
}

double FairShare::factor(double d) {
  return std::exp2(-std::max(0.0, d));
}

void FairShare::forget_idle(double floor) {
  std::erase_if(usage_, [floor](const auto& kv) {
    const Resources& r = kv.second.resource_seconds();
    return r.cpus < floor && r.mem_mb < floor && r.gpus < floor;
  });
}

}  // namespace tune
