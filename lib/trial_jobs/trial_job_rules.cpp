// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_jobs/trial_job_rules.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace tune {

int trial_jobs_to_submit(int parallel, int live_jobs, std::uint64_t unclaimed,
                         std::optional<std::uint64_t> remaining, int trials_per_job) {
  int room = std::max(0, parallel - live_jobs);
  if (!remaining) return room;
  if (*remaining <= unclaimed) return 0;
  const std::uint64_t per = static_cast<std::uint64_t>(std::max(1, trials_per_job));
  const std::uint64_t needed = (*remaining - unclaimed + per - 1) / per;
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(room), needed));
}

std::string_view job_end_name(JobEnd e) {
  switch (e) {
    case JobEnd::Completed: return "COMPLETED";
    case JobEnd::Failed: return "FAILED";
    case JobEnd::Cancelled: return "CANCELLED";
    case JobEnd::Timeout: return "TIMEOUT";
    case JobEnd::NodeFail: return "NODE_FAIL";
    case JobEnd::Preempted: return "PREEMPTED";
    case JobEnd::OutOfMemory: return "OUT_OF_MEMORY";
    case JobEnd::BootFail: return "BOOT_FAIL";
    case JobEnd::Deadline: return "DEADLINE";
    case JobEnd::Vanished: return "gone from slurmctld";
  }
  return "?";
}

LostTrial lost_trial(JobEnd end, std::uint64_t job_id, const std::string& reason) {
  std::string m = "trial job " + std::to_string(job_id) + " ended " + std::string(job_end_name(end));
  if (!reason.empty() && reason != "None") m += " (" + reason + ")";
  switch (end) {
    case JobEnd::Timeout: return {TrialState::Timeout, m + ": the trial outran the job's time limit"};
    case JobEnd::OutOfMemory: return {TrialState::Failed, m + ": the trial needs more than --mem-per-trial"};
    case JobEnd::Failed:
    case JobEnd::Completed:
      // The job's own process ended without a result: not the trial's doing.
      return {TrialState::Interrupted, m + " before the trial's result arrived; run again"};
    default: return {TrialState::Interrupted, m + "; run again with the same parameters"};
  }
}

AppCoreFate appcore_fate(const std::optional<TrialJobInfo>& appcore_job) {
  if (!appcore_job || appcore_job->state != TrialJobInfo::State::Ended || appcore_job->completing)
    return AppCoreFate::MayReturn;
  switch (appcore_job->end) {
    case JobEnd::Cancelled:
    case JobEnd::Timeout:
    case JobEnd::Preempted:
    case JobEnd::Deadline: return AppCoreFate::Stopped;
    default: return AppCoreFate::Crashed;
  }
}

bool saved_result_counts(const TrialRun& run, const Trial& t) {
  return run.trial == t.id && t.state == TrialState::Running && run.start_time >= t.start_time - 1;
}

std::vector<std::string> trial_job_environment(
    const std::vector<std::string>& env, const std::vector<std::pair<std::string, std::string>>& extra) {
  static constexpr std::array<std::string_view, 11> kJobPrefixes = {"SLURM_", "SBATCH_", "SRUN_", "SALLOC_",
                                                                    "PMI_",   "PMIX_",   "OMPI_", "PRTE_",
                                                                    "HYDRA_", "MPIR_",   "I_MPI_"};
  // Also variables Slurm sets for a job's GPUs and the AppCore's own trial.
  static constexpr std::array<std::string_view, 6> kJobNames = {"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
                                                                "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
                                                                "SLURMD_NODENAME",      "TUNE_CHANNEL"};
  std::vector<std::string> out;
  for (const auto& e : env) {
    const auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string_view name(e.data(), eq);
    // SLURM_CONF names the cluster, not the job: a trial's srun needs it.
    const bool job_owned =
        (name != "SLURM_CONF" && std::any_of(kJobPrefixes.begin(), kJobPrefixes.end(),
                                             [&](auto p) { return name.substr(0, p.size()) == p; })) ||
        std::find(kJobNames.begin(), kJobNames.end(), name) != kJobNames.end();
    if (!job_owned) out.push_back(e);
  }
  for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
  return out;
}

Spread spread_of(std::vector<double> v) {
  Spread s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto rank = [&](double q) {
    return v[std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(q * v.size())) - 1)];
  };
  s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  s.p95 = rank(0.95);
  return s;
}

}  // namespace tune
