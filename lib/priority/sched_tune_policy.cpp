// SPDX-License-Identifier: GPL-2.0-or-later
#include "priority/sched_tune_policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <unordered_set>

#include "priority/job_summary.hpp"

namespace tune {

SchedTunePolicy::SchedTunePolicy(PolicyConfig c) : TrackingPolicy(std::move(c)), fs_(c_.fairshare) {}

void SchedTunePolicy::reconfigure(PolicyConfig c) {
  auto usage = fs_.tenants();
  c_ = std::move(c);
  fs_ = FairShare(c_.fairshare);
  fs_.tenants() = std::move(usage);
}

std::uint32_t slurm_priority(std::uint32_t policy_priority, double max_points) {
  const double top = std::max(2.0, std::floor(max_points));
  const double p = std::clamp(static_cast<double>(policy_priority), 1.0, top);
  const double span = static_cast<double>(kSlurmBandHigh - kSlurmBandLow);
  return kSlurmBandLow + static_cast<std::uint32_t>(std::floor((p - 1) * span / (top - 1)));
}

std::uint32_t SchedTunePolicy::fair_share_priority(double dominant_share, double waited) const {
  const double age = std::clamp(waited / c_.weights.max_age, 0.0, 1.0);
  const double p = c_.weights.fairshare * FairShare::factor(dominant_share) + c_.weights.age * age;
  // 0 means "held" to Slurm: the lowest priority we give is 1.
  return static_cast<std::uint32_t>(std::clamp(std::floor(p), 1.0, 1e9));
}

std::vector<JobDecision> SchedTunePolicy::pass(double now, const Resources& capacity,
                                               const std::vector<JobView>& jobs) {
  const double dt = last_pass_ > 0 ? std::clamp(now - last_pass_, 0.0, 365.0 * 86400) : 0;
  last_pass_ = now;

  // Usage: decay the past, charge what running jobs held since the last pass.
  fs_.decay(dt);
  std::unordered_map<std::string, double> active;  // tenant -> its shares
  for (const auto& j : jobs) {
    active.emplace(j.tenant, fs_.options().share_of(j.tenant));
    if (j.state == JobView::State::Running)
      fs_.charge(j.tenant, j.request, std::min(dt, std::max(0.0, now - j.started)));
  }
  fs_.forget_idle(1e-3);
  for (const auto& [t, u] : fs_.tenants()) active.emplace(t, fs_.options().share_of(t));
  double total_shares = 0;
  for (const auto& [t, s] : active) total_shares += s;

  tracker_.update(now, jobs, c_.adaptive, c_.adaptive_enabled);

  // Priorities, yield signals and what tune queue shows.
  std::unordered_map<std::string, double> share_cache;
  std::vector<JobDecision> out(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& j = jobs[i];
    auto [sc, fresh] = share_cache.emplace(j.tenant, 0.0);
    if (fresh) sc->second = fs_.dominant_share(j.tenant, capacity, total_shares);
    const double ds = sc->second;
    const auto& member = tracker_.of(i);
    const StudyState* s = member.state;
    const int level = tracker_.level(i);
    JobDecision& d = out[i];
    d.id = j.id;
    std::uint32_t prio = 0;
    if (j.state == JobView::State::Pending) {
      const std::uint32_t base = fair_share_priority(ds, now - j.eligible);
      // The adaptive part only ever lowers: multiplier <= 1, floor, >= 1.
      prio =
          s ? static_cast<std::uint32_t>(std::max(1.0, std::floor(base * s->yield.multiplier(c_.adaptive))))
            : base;
      prio = std::min(prio, base);
      if (j.may_set) d.priority = prio;
    } else {
      d.signal = tracker_.signal_for(i, j, now, c_.yield);
    }
    JobSummary summary;
    summary.tenant = j.tenant;
    summary.dominant_share = ds;
    summary.factor = FairShare::factor(ds);
    if (s) summary.study = member.key, summary.level = level;
    if (j.state == JobView::State::Pending) summary.priority = prio;
    d.summary = format_summary(summary);
  }
  return out;
}

nlohmann::json SchedTunePolicy::save() const {
  nlohmann::json tenants = nlohmann::json::object();
  for (const auto& [t, u] : fs_.tenants()) {
    const auto& r = u.resource_seconds();
    tenants[t] = {r.cpus, r.mem_mb, r.gpus};
  }
  return {{"version", 1},
          {"last_pass", last_pass_},
          {"tenants", tenants},
          {"studies", tracker_.save(c_.adaptive)}};
}

void SchedTunePolicy::restore(const nlohmann::json& j) {
  auto finite = [](const nlohmann::json& v, const char* what) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < -1)
      throw std::runtime_error(std::string("bad ") + what);
    return v.get<double>();
  };
  try {
    if (!j.is_object() || j.value("version", 0) != 1)
      throw std::runtime_error("not a version 1 sched/tune state");
    FairShare fs(c_.fairshare);
    for (const auto& [t, v] : j.at("tenants").items()) {
      if (!v.is_array() || v.size() != 3) throw std::runtime_error("bad usage of tenant " + t);
      fs.tenants()[t].set({std::max(0.0, finite(v[0], "cpu usage")),
                           std::max(0.0, finite(v[1], "memory usage")),
                           std::max(0.0, finite(v[2], "gpu usage"))});
    }
    StudyTracker tracker;
    tracker.restore(j.at("studies"), c_.adaptive);
    const double last = finite(j.at("last_pass"), "last_pass");
    fs_ = std::move(fs);
    tracker_ = std::move(tracker);
    last_pass_ = last;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed state: ") + e.what());
  }
}

}  // namespace tune
