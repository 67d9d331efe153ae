// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One pass of sched/tune's policy: decay and charge usage, read the studies'
// progress records, relax or raise yield levels, give every pending job its
// priority and pick the running studies to ask to yield. The plugin copies
// jobs out of slurmctld into JobView, calls pass(), and applies the result.
// No Slurm here.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fairshare/fair_share.hpp"
#include "priority/policy_config.hpp"
#include "priority/priority_policy.hpp"
#include "priority/study_tracker.hpp"

namespace tune {

// Where the policy's priorities go in slurmctld. priority/basic gives a new
// job 0xffff0000 minus the number of jobs before it, so a job submitted since
// the last pass would otherwise outrank every job the policy has ordered (a
// trial job's successor would take the slot its study just freed, whatever the
// study's yield level). The policy's priorities 1..max_points map, in order,
// onto the headroom slurmctld leaves above that (0xffff0001..0xfffffc00), so
// new jobs wait below them until the next pass. Above the band, up to
// 0xfffffffd (NO_VAL and INFINITE are taken), is left for admins.
inline constexpr std::uint32_t kSlurmBandLow = 0xffff0001u;
inline constexpr std::uint32_t kSlurmBandHigh = 0xfffffc00u;
std::uint32_t slurm_priority(std::uint32_t policy_priority, double max_points);

// sched/tune's policy (priority_policies(): "sched/tune").
class SchedTunePolicy final : public TrackingPolicy {
 public:
  explicit SchedTunePolicy(PolicyConfig c);

  // `now` in seconds (epoch). Decisions come in the order of `jobs`.
  std::vector<JobDecision> pass(double now, const Resources& capacity,
                                const std::vector<JobView>& jobs) override;

  // The priority a pending job gets from fair share and age alone, and the
  // same after the study's yield level; exposed for tests.
  std::uint32_t fair_share_priority(double dominant_share, double waited) const;

  // The highest priority a pass gives: weight + age_weight.
  double max_points() const override { return c_.weights.fairshare + c_.weights.age; }
  // Keeps the tenants' decayed usage.
  void reconfigure(PolicyConfig c) override;
  const FairShare& fair_share() const { return fs_; }

  // Decayed usage, yield levels and times, as JSON (the plugin writes it to
  // StateSaveLocation). restore() accepts only well-formed state and throws
  // std::runtime_error naming what is wrong otherwise.
  nlohmann::json save() const override;
  void restore(const nlohmann::json& state) override;

 private:
  FairShare fs_;
};

}  // namespace tune
