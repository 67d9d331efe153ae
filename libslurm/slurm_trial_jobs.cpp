// SPDX-License-Identifier: GPL-2.0-or-later
#include "libslurm/slurm_trial_jobs.hpp"

#include <signal.h>
#include <unistd.h>

#include <cmath>

#include "libslurm/slurm_compat.hpp"

namespace tune {

namespace {

JobEnd end_of(std::uint32_t state) {
  switch (state & JOB_STATE_BASE) {
    case JOB_COMPLETE: return JobEnd::Completed;
    case JOB_CANCELLED: return JobEnd::Cancelled;
    case JOB_FAILED: return JobEnd::Failed;
    case JOB_TIMEOUT: return JobEnd::Timeout;
    case JOB_NODE_FAIL: return JobEnd::NodeFail;
    case JOB_PREEMPTED: return JobEnd::Preempted;
    case JOB_BOOT_FAIL: return JobEnd::BootFail;
    case JOB_DEADLINE: return JobEnd::Deadline;
    case JOB_OOM: return JobEnd::OutOfMemory;
    default: return JobEnd::Vanished;
  }
}

// The user's jobs that count against limits on jobs and submissions:
// pending, running, suspended or completing (-1: slurmctld did not say).
int user_job_count() {
  job_info_msg_t* info = nullptr;
  if (slurm_load_job_user(&info, getuid(), SHOW_LOCAL) != SLURM_SUCCESS) return -1;
  int n = 0;
  for (std::uint32_t i = 0; i < info->record_count; ++i) {
    const std::uint32_t state = info->job_array[i].job_state, base = state & JOB_STATE_BASE;
    n += base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED || (state & JOB_COMPLETING);
  }
  slurm_free_job_info_msg(info);
  return n;
}

}  // namespace

RefusalCause refusal_cause(int e) {
  switch (e) {
    case EAGAIN: return RefusalCause::JobCount;  // slurmctld's MaxJobCount
    case ESLURM_ACCOUNTING_POLICY:
    case ESLURM_QOS_THRES: return RefusalCause::AccountingPolicy;
    case ESLURM_INVALID_PARTITION_NAME:
    case ESLURM_PARTITION_NOT_AVAIL:
    case ESLURM_ACCESS_DENIED: return RefusalCause::Partition;
    case ESLURM_INVALID_ACCOUNT: return RefusalCause::Account;
    case ESLURM_INVALID_QOS: return RefusalCause::Qos;
    case ESLURM_INVALID_FEATURE: return RefusalCause::Constraint;
    case ESLURM_RESERVATION_INVALID:
    case ESLURM_RESERVATION_ACCESS: return RefusalCause::Reservation;
    case ESLURM_TOO_MANY_REQUESTED_CPUS:
    case ESLURM_INVALID_NODE_COUNT:
    case ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE:
    case ESLURM_INVALID_TASK_MEMORY:
    case ESLURM_INVALID_GRES:
    case ESLURM_INVALID_TRES: return RefusalCause::Size;
    case ESLURM_INVALID_TIME_LIMIT: return RefusalCause::TimeLimit;
    case SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR:
    case SLURMCTLD_COMMUNICATIONS_SEND_ERROR:
    case SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR:
    case SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR:
    case SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT:
    case ESLURM_IN_STANDBY_MODE: return RefusalCause::Unreachable;
    default: return RefusalCause::Unknown;
  }
}

SlurmTrialJobs::SlurmTrialJobs() {
  slurm_init(nullptr);
}

std::uint32_t SlurmTrialJobs::submit(const TrialJobRequest& r) {
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  std::vector<std::string> text = {
      r.name,           r.comment,      r.workdir,  r.output,          r.script,
      r.spec.partition, r.spec.account, r.spec.qos, r.spec.constraint, r.spec.reservation};
  auto c = [&](std::size_t i) { return text[i].empty() ? nullptr : text[i].data(); };
  d.name = c(0);
  d.comment = c(1);
  d.work_dir = c(2);
  d.std_out = c(3);
  d.std_err = c(3);
  d.script = c(4);
  d.partition = c(5);
  d.account = c(6);
  d.qos = c(7);
  d.features = c(8);
  d.reservation = c(9);
  d.user_id = getuid();
  d.group_id = getgid();
  d.min_nodes = d.max_nodes = static_cast<std::uint32_t>(r.spec.nodes);
  d.num_tasks = static_cast<std::uint32_t>(std::max(r.spec.tasks, r.spec.nodes));
  if (r.spec.nodes > 1)
    d.ntasks_per_node = static_cast<std::uint16_t>((d.num_tasks + r.spec.nodes - 1) / r.spec.nodes);
  d.cpus_per_task = static_cast<std::uint16_t>(r.spec.cpus_per_task);
  d.min_cpus = d.num_tasks * d.cpus_per_task;
  d.pn_min_memory = static_cast<std::uint64_t>(r.spec.mem_mb);
  std::string gres = r.spec.gpus_per_node > 0 ? slurm_compat::gpus_per_node_tres(r.spec.gpus_per_node) : "";
  d.tres_per_node = gres.empty() ? nullptr : gres.data();
  if (r.spec.time_limit_s > 0)
    d.time_limit = static_cast<std::uint32_t>(std::ceil(r.spec.time_limit_s / 60.0));
  if (r.spec.nice) d.nice = static_cast<std::uint32_t>(NICE_OFFSET + r.spec.nice);
  d.requeue = 0;  // the AppCore re-runs a lost trial itself, in a new job, bound late
  d.kill_on_node_fail = 1;
  std::vector<char*> env;
  std::vector<std::string> env_copy = r.environment;
  for (auto& e : env_copy) env.push_back(e.data());
  env.push_back(nullptr);
  d.environment = env.data();
  d.env_size = static_cast<std::uint32_t>(env_copy.size());
  submit_response_msg_t* resp = nullptr;
  if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
    const int code = errno;
    const std::string why = slurm_compat::last_error();
    if (resp) slurm_free_submit_response_response_msg(resp);
    // Whether a limit on the user's jobs can pass depends on their having any.
    const int jobs = refusal_cause(code) == RefusalCause::AccountingPolicy ? user_job_count() : -1;
    throw SlurmError("Slurm refused a trial job: " + why, code, jobs);
  }
  const std::uint32_t id = slurm_compat::submitted_job_id(*resp);
  slurm_free_submit_response_response_msg(resp);
  return id;
}

std::map<std::uint32_t, TrialJobInfo> SlurmTrialJobs::look_up(const std::vector<std::uint32_t>& ids) {
  std::map<std::uint32_t, TrialJobInfo> out;
  if (ids.empty()) return out;
  job_info_msg_t* info = nullptr;
  // SHOW_LOCAL: without it every call first asks slurmctld for the
  // federation (a second RPC per look-up); trial jobs are this cluster's.
  if (slurm_load_job_user(&info, getuid(), SHOW_ALL | SHOW_LOCAL) != SLURM_SUCCESS)
    throw SlurmError("cannot read the study's jobs from slurmctld: " + slurm_compat::last_error());
  for (auto id : ids) out[id] = TrialJobInfo{TrialJobInfo::State::Ended, JobEnd::Vanished, "", ""};
  for (std::uint32_t i = 0; i < info->record_count; ++i) {
    const slurm_job_info_t& j = info->job_array[i];
    const auto it = out.find(j.job_id);
    if (it == out.end()) continue;
    TrialJobInfo& t = it->second;
    const std::uint32_t base = j.job_state & JOB_STATE_BASE;
    t.nodes = j.nodes ? j.nodes : "";
    t.completing = (j.job_state & JOB_COMPLETING) != 0;
    if (base == JOB_PENDING) {
      t.state = TrialJobInfo::State::Pending;
      t.reason = slurm_compat::reason_string(j.state_reason);
    } else if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
      t.state = TrialJobInfo::State::Running;
    } else {
      t.state = TrialJobInfo::State::Ended;
      t.end = end_of(j.job_state);
      t.reason = j.state_reason ? slurm_compat::reason_string(j.state_reason) : "";
      if (j.state_desc && *j.state_desc)
        t.reason += (t.reason.empty() ? "" : ": ") + std::string(j.state_desc);
    }
  }
  slurm_free_job_info_msg(info);
  return out;
}

bool SlurmTrialJobs::cancel(std::uint32_t id) {
  return slurm_compat::kill_job(id, SIGKILL);
}

}  // namespace tune
