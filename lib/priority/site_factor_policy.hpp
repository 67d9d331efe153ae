// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// site_factor/tune's policy: Algorithm 1's yield level of each study (the
// same StudyTracker and progress records as sched/tune) turned into the SITE
// term that priority/multifactor adds to a job's priority. A pending job of
// a study at level L whose priority without the term is B gets
//   site = -floor(B * (1 - yield_factor^L))
// so that its priority becomes about B * yield_factor^L, as under sched/tune;
// the term is never positive (a study gains nothing by lying), 0 at level 0,
// and jobs without a study are not touched. No Slurm here.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "priority/policy_config.hpp"
#include "priority/priority_policy.hpp"
#include "priority/study_tracker.hpp"

namespace tune {

// Its decisions set `site` (pending, settable jobs of a study), never `priority`;
// summaries read "tune:tenant=...;study=...;level=...;site=...".
using SiteDecision = JobDecision;

// site_factor/tune's policy (priority_policies(): "site_factor/tune").
class SiteFactorPolicy final : public TrackingPolicy {
 public:
  // The most the term lowers a priority: slurmctld stores it as a uint32
  // offset by NICE_OFFSET (2^31).
  static constexpr std::int64_t kMostNegative = -(std::int64_t{1} << 31) + 1;

  // `c` as load_policy_config reads it with site_factor/tune's rules.
  explicit SiteFactorPolicy(PolicyConfig c) : TrackingPolicy(std::move(c)) {}

  // One pass. Every JobView's base_priority is its priority without the
  // site term. Decisions come in the order of `jobs`.
  std::vector<SiteDecision> pass(double now, const std::vector<JobView>& jobs);
  // The same; multifactor's terms need no capacity.
  std::vector<JobDecision> pass(double now, const Resources&, const std::vector<JobView>& jobs) override {
    return pass(now, jobs);
  }

  // The term for a job at yield `level` whose priority without it is `base`.
  std::int64_t site_factor(double base, int level) const;

  // What Slurm's site_factor_p_set gets for a job it (re)computes: the value
  // the last pass gave this job, so that a recompute does not undo it; for a
  // job submitted since, the term of its study's newest pending job when
  // that study yields (it starts below the study's other jobs, not above them
  // until the next pass); nullopt for jobs of no yielding study.
  std::optional<std::int64_t> site_for(std::uint32_t job_id, std::uint32_t uid,
                                       const std::string& comment) const override;

  // Yield levels and the terms given, as JSON (the plugin keeps it in
  // StateSaveLocation); restore() throws std::runtime_error naming what is wrong.
  nlohmann::json save() const override;
  void restore(const nlohmann::json& state) override;

 private:
  std::unordered_map<std::uint32_t, std::int64_t> given_;       // job id -> term of the last pass
  std::unordered_map<std::string, std::int64_t> study_newest_;  // "uid:key" -> term of its newest pending job
};

}  // namespace tune
