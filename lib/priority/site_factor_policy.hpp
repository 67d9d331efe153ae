// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// site_factor/tune's policy: the yield level of each study (the same
// StudyTracker and progress records as sched/tune) turned into the SITE term
// that priority/multifactor adds to a job's priority. With `lowering =
// "band"` (the default) a pending job of a study at level L >= 1 gets the
// priority
//   max_level + 1 - L     (8 at level 1 ... 1 at level 8 by default)
// or 1 below the lowest priority of a waiting job of no yielding study when
// that is lower: below every other job whatever multifactor's weights, so
// fair share cannot lift it back over an improving study's jobs, and its
// account's fair share earns it nothing while it yields. A job such a study
// submits between two passes waits at priority 1 until the next. With
// "fraction" its priority becomes B * yield_factor^L (B its priority without
// the term), as under sched/tune, which fair share can outweigh. Either way a
// study that has yielded gains no fair share from it: back at level 0, its
// jobs' term takes off what their fair-share term has grown since it began
// to yield, until the study has run enough to fall back below that. The term is
// never positive (a study gains nothing by lying), 0 at level 0, and jobs
// without a study are not touched. No Slurm here.
#include <algorithm>
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

  // The term for a job at yield `level` whose priority without it is `base`;
  // `lowest_other`: the lowest priority of a waiting job of no yielding study
  // (none: no such job waits).
  std::int64_t site_factor(double base, int level, std::optional<double> lowest_other = std::nullopt) const;
  // The band's priority at `level` (>= 1): max_level + 1 - level, at least 1.
  double band_priority(int level) const { return std::max(1, c_.adaptive.max_level + 1 - level); }

  // What Slurm's site_factor_p_set gets for a job it (re)computes: the value
  // the last pass gave this job, so that a recompute does not undo it; for a
  // job submitted since, of a study that yields, the most negative term (band:
  // priority 1 until the next pass) or the term of the study's newest pending
  // job (fraction; and in the band, a study back at level 0 that still has
  // fair share to give back); nullopt otherwise.
  std::optional<std::int64_t> site_for(std::uint32_t job_id, std::uint32_t uid,
                                       const std::string& comment) const override;

  // Yield levels and the terms given, as JSON (the plugin keeps it in
  // StateSaveLocation); restore() throws std::runtime_error naming what is wrong.
  nlohmann::json save() const override;
  void restore(const nlohmann::json& state) override;

 private:
  std::unordered_map<std::uint32_t, std::int64_t> given_;       // job id -> term of the last pass
  std::unordered_map<std::string, std::int64_t> study_newest_;  // "uid:key" -> term of its newest pending job
  // "uid:key" -> the fair-share term its jobs had when it began to yield,
  // until it is back at level 0 and its fair share has fallen to it.
  std::unordered_map<std::string, double> held_share_;
};

}  // namespace tune
