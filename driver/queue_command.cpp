// SPDX-License-Identifier: GPL-2.0-or-later
#include "queue_command.hpp"

#include <pwd.h>

#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "libslurm/slurm_compat.hpp"
#include "libslurm/slurm_reach.hpp"
#include "priority/queue_view.hpp"
#include "run_command.hpp"

namespace tune {
namespace {

// Under priority/multifactor tune's term is the SITE factor, beside the
// others; under priority/basic sched/tune computes the whole priority.
bool multifactor() {
  slurm_conf_t* conf = nullptr;
  if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS) return false;
  const bool mf = conf->priority_type && std::strcmp(conf->priority_type, "priority/multifactor") == 0;
  slurm_compat::free_conf(conf);
  return mf;
}

std::string user_of(uid_t uid, const char* name) {
  if (name && *name) return name;
  if (const passwd* pw = getpwuid(uid)) return pw->pw_name;
  return std::to_string(uid);
}

}  // namespace

// The jobs and factors from slurmctld; what to show is lib/priority/queue_view's.
int show_queue(const std::string& user, bool json) {
  if (const auto why = slurm_unreachable()) {
    std::cerr << "tune queue: error: " << *why << "\n";
    return kExitUsage;
  }
  slurm_init(nullptr);
  job_info_msg_t* info = nullptr;
  if (slurm_load_jobs(0, &info, SHOW_ALL) != SLURM_SUCCESS) {
    std::cerr << "tune queue: error: cannot read the queue from slurmctld: " << slurm_compat::last_error()
              << " (is SLURM_CONF right, and slurmctld up?)\n";
    return kExitUsage;
  }
  std::vector<QueuedJob> jobs;
  for (std::uint32_t i = 0; i < info->record_count; ++i) {
    const slurm_job_info_t& j = info->job_array[i];
    const std::uint32_t base = j.job_state & JOB_STATE_BASE;
    if (base != JOB_PENDING && base != JOB_RUNNING) continue;
    jobs.push_back({.id = j.job_id,
                    .user = user_of(j.user_id, j.user_name),
                    .state = slurm_compat::state_string(j.job_state),
                    .reason = base == JOB_PENDING ? slurm_compat::reason_string(j.state_reason) : "",
                    .pending = base == JOB_PENDING,
                    .priority = j.priority,
                    .system_comment = j.system_comment ? j.system_comment : "",
                    .comment = j.comment ? j.comment : ""});
  }
  slurm_free_job_info_msg(info);
  const bool mf = multifactor();
  std::vector<PriorityFactors> factors;
  if (mf && !slurm_compat::load_priority_factors(factors)) factors.clear();
  const auto rows = queue_rows(jobs, factors, user);
  if (json)
    std::cout << queue_json(rows).dump(2) << "\n";
  else
    std::cout << queue_table(rows, mf, user);
  return kExitOk;
}

}  // namespace tune
