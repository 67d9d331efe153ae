// SPDX-License-Identifier: GPL-2.0-or-later
#include "libslurm/slurm_lookups.hpp"

#include <unistd.h>

#include "libslurm/slurm_compat.hpp"

namespace tune {

std::optional<PartitionTimes> partition_times(const std::string& partition) {
  slurm_init(nullptr);  // 24.11 on: no RPC before it (tune submit checked the cluster is reachable)
  partition_info_msg_t* msg = nullptr;
  if (slurm_load_partitions(0, &msg, SHOW_ALL) != SLURM_SUCCESS) return std::nullopt;
  std::optional<PartitionTimes> out;
  for (std::uint32_t i = 0; i < msg->record_count && !out; ++i) {
    const partition_info_t& p = msg->partition_array[i];
    if (!p.name) continue;
    if (partition.empty() ? !(p.flags & PART_FLAG_DEFAULT) : partition != p.name) continue;
    PartitionTimes t{p.name, std::nullopt, std::nullopt};
    if (p.default_time != NO_VAL && p.default_time != INFINITE) t.default_minutes = p.default_time;
    if (p.max_time != NO_VAL && p.max_time != INFINITE) t.max_minutes = p.max_time;
    out = t;
  }
  slurm_free_partition_info_msg(msg);
  return out;
}

std::optional<std::uint32_t> queued_job_of_script(const std::string& script) {
  slurm_init(nullptr);
  job_info_msg_t* info = nullptr;
  if (slurm_load_job_user(&info, getuid(), 0) != SLURM_SUCCESS) return std::nullopt;
  std::optional<std::uint32_t> out;
  for (std::uint32_t i = 0; i < info->record_count && !out; ++i) {
    const slurm_job_info_t& j = info->job_array[i];
    const std::uint32_t base = j.job_state & JOB_STATE_BASE;
    const bool queued = base == JOB_PENDING || base == JOB_RUNNING || base == JOB_SUSPENDED;
    if (queued && j.batch_flag && j.command && script == j.command) out = j.job_id;
  }
  slurm_free_job_info_msg(info);
  return out;
}

}  // namespace tune
