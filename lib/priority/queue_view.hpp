// SPDX-License-Identifier: GPL-2.0-or-later
// What `tune queue` shows, from the jobs slurmctld lists: each pending or
// running job with what tune's plugins decided about it (the job summary in
// its SystemComment, the study its progress record names) and, under
// priority/multifactor, its factors as sprio shows them; a study's trial
// jobs under one heading with the limits that hold them. Pure functions of
// the jobs: the driver (driver/queue_command) asks libslurm for them.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "estimators/progress_record.hpp"
#include "priority/job_summary.hpp"

namespace tune {

// One pending job's priority factors as priority/multifactor computes them
// for sprio (weighted; site and nice without NICE_OFFSET).
struct PriorityFactors {
  std::uint32_t job_id = 0;
  std::string partition;
  bool direct = false;  // an admin set the priority: no factors
  double age = 0, fairshare = 0, job_size = 0, partition_factor = 0, qos = 0, assoc = 0, tres = 0;
  std::int64_t site = 0, nice = 0;
};

// A job as slurmctld lists it (pending and running ones only).
struct QueuedJob {
  std::uint32_t id = 0;
  std::string user, state, reason;  // reason: a pending job's
  bool pending = false;
  std::uint32_t priority = 0;
  std::string system_comment, comment;  // as set; untrusted text
};

struct QueueRow {
  QueuedJob job;
  std::optional<JobSummary> summary;  // the plugins' view, from the SystemComment
  StudyRole role = StudyRole::Study;  // from the job's progress record
  std::string study;                  // its study key, if it has a record
  std::optional<PriorityFactors> factors;
};

// The rows of `user`'s jobs (everyone's when empty), each with its summary,
// role and factors (the first of a job's partitions), pending first in the
// order they start in (highest priority first), then running.
std::vector<QueueRow> queue_rows(const std::vector<QueuedJob>& jobs,
                                 const std::vector<PriorityFactors>& factors, const std::string& user);

// tune queue --json: one object per row.
nlohmann::json queue_json(const std::vector<QueueRow>& rows);

// tune queue's table: sched/tune's view (tenant, dominant share, fair-share
// factor, study, yield, priority), or under priority/multifactor the
// factors sprio shows with the SITE term; plain jobs first, then each
// study's trial jobs under one heading; a note when a job is not scored.
std::string queue_table(const std::vector<QueueRow>& rows, bool multifactor, const std::string& user);

}  // namespace tune
