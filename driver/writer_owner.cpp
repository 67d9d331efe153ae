// SPDX-License-Identifier: GPL-2.0-or-later
#include "writer_owner.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "libslurm/slurm_compat.hpp"

namespace tune {
namespace {

std::uint32_t env_number(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<std::uint32_t>(std::strtoul(v, nullptr, 10)) : 0;
}

// libslurm ends the process when it finds no configuration at all, so look
// first (SLURM_CONF, the default file, a configless slurmd's copy).
bool slurm_configured() {
  if (const char* conf = std::getenv("SLURM_CONF"); conf && *conf) return ::access(conf, R_OK) == 0;
  return ::access("/etc/slurm/slurm.conf", R_OK) == 0 || ::access("/run/slurm/conf/slurm.conf", R_OK) == 0;
}

JobStatus slurm_job_status(std::uint32_t job) {
  JobStatus st;
  if (!slurm_configured()) {
    st.detail = "no Slurm configuration on this host (set SLURM_CONF)";
    return st;
  }
  static const bool initialised = [] {
    slurm_init(nullptr);
    return true;
  }();
  (void)initialised;
  if (slurm_conf_t* conf = nullptr; slurm_load_ctl_conf(0, &conf) == SLURM_SUCCESS) {
    if (conf->cluster_name) st.cluster = conf->cluster_name;
    slurm_compat::free_conf(conf);
  }
  job_info_msg_t* info = nullptr;
  if (slurm_compat::load_job(&info, job, SHOW_ALL) != SLURM_SUCCESS) {
    const int err = errno;
    if (err == ESLURM_INVALID_JOB_ID) {
      st.kind = JobStatus::Kind::Ended;
      st.detail = "slurmctld no longer knows it";
    } else {
      st.detail = slurm_strerror(err);
    }
    return st;
  }
  if (info->record_count == 0) {
    st.kind = JobStatus::Kind::Ended;
    st.detail = "slurmctld no longer knows it";
  } else {
    const slurm_job_info_t& j = info->job_array[0];
    const std::uint32_t state = j.job_state;
    st.detail = slurm_compat::state_string(state);
    st.restarts = j.restart_cnt;
    const std::uint32_t base = state & JOB_STATE_BASE;
    st.kind = base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED || (state & JOB_COMPLETING)
                  ? JobStatus::Kind::Active
                  : JobStatus::Kind::Ended;
  }
  slurm_free_job_info_msg(info);
  return st;
}

}  // namespace

WriterClaim::Options writer_claim_options() {
  WriterClaim::Options o;
  o.self.job = env_number("SLURM_JOB_ID");
  if (o.self.job) {
    o.self.job_restarts = env_number("SLURM_RESTART_COUNT");
    if (const char* c = std::getenv("SLURM_CLUSTER_NAME")) o.self.cluster = c;
  }
  o.jobs = slurm_job_status;
  return o;
}

}  // namespace tune
