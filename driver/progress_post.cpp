// SPDX-License-Identifier: GPL-2.0-or-later
#include "progress_post.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "libslurm/slurm_compat.hpp"

namespace tune {

ProgressPoster::ProgressPoster(Source source, double min_interval)
    : source_(std::move(source)), min_interval_(min_interval) {
  // Tests and small clusters may post more often; each post costs slurmctld a
  // log line and a state save, so a busy cluster keeps the default.
  if (const char* every = std::getenv("TUNE_PROGRESS_INTERVAL"); every && *every) {
    char* end = nullptr;
    const double v = std::strtod(every, &end);
    if (end && *end == '\0' && v >= 1 && v <= 86400)
      min_interval_ = v;
    else
      std::cerr << "tune run: ignoring TUNE_PROGRESS_INTERVAL=" << every
                << " (give seconds from 1 to 86400)\n";
  }
  if (const char* id = std::getenv("SLURM_JOB_ID"); id && *id)
    job_id_ = static_cast<unsigned>(std::strtoul(id, nullptr, 10));
  if (job_id_) slurm_init(nullptr);
}

void ProgressPoster::changed(double now) {
  if (!active()) return;
  changed_ = true;
  tick(now);
}

void ProgressPoster::tick(double now) {
  if (!active() || !changed_ || now - last_post_ < min_interval_) return;
  last_post_ = now;  // also after a failure: try again an interval later
  changed_ = false;
  const ProgressRecord r = source_();
  if (r != posted_ && !post(r)) changed_ = true;
}

void ProgressPoster::flush(double now) {
  if (!active() || !changed_) return;
  last_post_ = now;
  changed_ = false;
  const ProgressRecord r = source_();
  if (r != posted_) post(r);
}

bool ProgressPoster::post(const ProgressRecord& r) {
  job_info_msg_t* info = nullptr;
  std::string comment;
  int rc = slurm_compat::load_job(&info, job_id_, SHOW_DETAIL | SHOW_LOCAL);  // no federation look-up first
  if (rc == SLURM_SUCCESS && info && info->record_count > 0 && info->job_array[0].comment)
    comment = info->job_array[0].comment;
  if (info) slurm_free_job_info_msg(info);
  if (rc == SLURM_SUCCESS) {
    const auto merged = merge_progress(comment, r);
    if (!merged) {
      if (!warned_)
        std::cerr << "tune run: the job's Comment is too long to add the progress record; sched/tune will "
                     "not see this study\n";
      warned_ = true;
      posted_ = r;  // do not retry every loop
      return true;
    }
    job_desc_msg_t desc;
    slurm_init_job_desc_msg(&desc);
    slurm_compat::set_job_id(desc, job_id_);
    std::string text = *merged;
    desc.comment = text.data();
    rc = slurm_update_job(&desc);
  }
  if (rc != SLURM_SUCCESS) {
    if (!warned_)
      std::cerr << "tune run: cannot post progress in the Comment of job " << job_id_ << ": "
                << slurm_compat::last_error() << " (the study goes on; sched/tune sees it as a plain job)\n";
    warned_ = true;
    return false;
  }
  posted_ = r;
  return true;
}

}  // namespace tune
