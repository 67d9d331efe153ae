// SPDX-License-Identifier: GPL-2.0-or-later
// HISTORY.jobs: the study's live trial jobs as its AppCore last wrote them
// (tune run --trial-jobs), beside the history. tune status shows it; a
// resumed AppCore adopts the jobs it lists. One type, written and read here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tune {

struct LiveJob;

struct JobsFileEntry {
  std::uint32_t id = 0;
  bool pending = true;  // else running
  std::string node, reason;
  std::optional<std::uint64_t> trial;  // the trial it runs
};

struct JobsFile {
  double updated = 0;  // seconds since the epoch
  std::vector<JobsFileEntry> jobs;
  std::string held;  // the limit that holds new trial jobs back, if one does
};

// The files a study of trial jobs keeps beside its history HISTORY.h5:
// HISTORY.jobs, the trial jobs it has in Slurm (this file's JobsFile), and
// HISTORY.channel, where its AppCore listens (the address and secret, mode
// 0600; job_runner/channel.hpp writes and reads it).
std::string jobs_file_of(const std::string& history);
std::string channel_file_of(const std::string& history);

// The controller's jobs as the file lists them.
JobsFile jobs_file_from(const std::map<std::uint32_t, LiveJob>& jobs, const std::string& held, double now);

// Written whole (a temporary file renamed over it): a reader sees the old
// list or the new one. Returns false if it could not be written.
bool write_jobs_file(const std::string& path, const JobsFile& file);

// Whether a reader acts on the file (cancels or adopts the jobs it lists)
// or only shows it (tune status).
enum class JobsFileUse { Show, Act };

// The file, or nothing when it is absent or not one this version writes
// (entries without a job id are left out). To act on, it must also be a
// regular file (not a link) of this user's that nobody else may write
// (another user may have put one in a group's directory, listing this
// user's other jobs); else nothing, and `refused` says why.
std::optional<JobsFile> read_jobs_file(const std::string& path, JobsFileUse use = JobsFileUse::Show,
                                       std::string* refused = nullptr);

}  // namespace tune
