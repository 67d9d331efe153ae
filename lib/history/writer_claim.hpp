// SPDX-License-Identifier: GPL-2.0-or-later
// One writer per history, on any file system: local disks, NFS with or
// without lockd, Lustre with flock, localflock or noflock, GPFS, BeeGFS.
//
// A writer claims FILE by linking a complete owner record (host, pid, batch
// job, start time) to FILE.lock: link() is atomic on every POSIX and network
// file system, so exactly one writer succeeds. Where flock() works the
// writer also holds it on that record, and the kernel drops it however the
// writer ends; where flock() fails (ENOSYS, ENOLCK, EOPNOTSUPP, EINVAL) the
// record alone decides. A later writer that finds a record judges it stale
// (judge_owner: same host and the process is gone, or the named job has
// ended or restarted) and takes it over, one taker at a time; otherwise it is
// refused with a message naming the owner and what to do.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tune {

// Who writes a history, as recorded in FILE.lock (one JSON object).
struct WriterRecord {
  std::string host;
  std::string boot_id;  // a reboot ends every process of the host
  std::int64_t pid = 0;
  std::uint64_t pid_start = 0;     // the process's start, in clock ticks after boot: tells a reused pid
  std::string cluster;             // the batch system's cluster, "" outside a job
  std::uint32_t job = 0;           // the batch job, 0 outside one
  std::uint32_t job_restarts = 0;  // how often that job had been requeued when the writer started
  std::string started;             // ISO 8601, UTC

  std::string to_json() const;
  static std::optional<WriterRecord> from_json(std::string_view text);
  // "pid 4242 on host node3 (Slurm job 77), writing since 2026-11-24T10:00:00Z"
  std::string describe() const;
};

// This process as a writer: host, boot id, pid and its start, the time now.
// The batch job's fields stay empty; the caller adds what it knows.
WriterRecord this_process();
// The start time (clock ticks after boot) of process `pid` on this host, or
// nothing if there is no such process.
std::optional<std::uint64_t> process_start(std::int64_t pid);

// What the batch system says of a job (asked only of records from another host).
struct JobStatus {
  enum class Kind { Active, Ended, Unknown };
  Kind kind = Kind::Unknown;
  std::uint32_t restarts = 0;  // requeues so far (Active)
  std::string cluster;         // the cluster that answered, "" if not known
  std::string
      detail;  // its state ("RUNNING", "COMPLETED", "not known to slurmctld") or why it could not be asked
};
using JobLookup = std::function<JobStatus(std::uint32_t job)>;
using ProcessStart = std::function<std::optional<std::uint64_t>(std::int64_t pid)>;

struct OwnerVerdict {
  bool stale = false;
  std::string why;  // for people: "process 4242 is gone", "Slurm job 77 has ended (COMPLETED)"
};
// Is the writer that `owner` names gone, seen from `here`? `processes` answers
// for this host, `jobs` (may be empty: no batch system) for other hosts.
OwnerVerdict judge_owner(const WriterRecord& owner, const WriterRecord& here, const ProcessStart& processes,
                         const JobLookup& jobs);

// Errors of flock() that mean "this file system has no (working) locks".
bool locks_unsupported(int err);

class WriterClaim {
 public:
  struct Options {
    WriterRecord self = this_process();
    JobLookup jobs;  // empty: records from other hosts cannot be judged
    ProcessStart processes = process_start;
    double takeover_wait = 5;  // seconds to wait for another taker
    bool kernel_locks = true;  // false: the record alone, as where flock() fails
  };
  // Claims `history` (throws HistoryError naming the owner when it is taken).
  static WriterClaim take(const std::string& history, const Options& options);
  static WriterClaim take(const std::string& history) { return take(history, Options{}); }

  WriterClaim(WriterClaim&&) noexcept;
  WriterClaim& operator=(WriterClaim&&) noexcept;
  WriterClaim(const WriterClaim&) = delete;
  WriterClaim& operator=(const WriterClaim&) = delete;
  ~WriterClaim();

  // True when flock() works here (the kernel holds the claim too).
  bool kernel_locks() const { return kernel_locks_; }
  // "took over from pid 4242 on host node3 (...): process 4242 is gone", or "".
  const std::string& note() const { return note_; }
  const std::string& lock_path() const { return lock_; }
  // Whether another writer has taken the history over since: nothing while
  // FILE.lock is still this claim's record (or the file system cannot say
  // right now), else who holds it. A writer cut off from Slurm, whose job
  // Slurm requeued elsewhere, finds its claim judged stale and taken over
  // where flock() does not hold it; it must then stop writing.
  std::optional<std::string> taken() const;
  // Removes FILE.lock (if it is still this claim's) and drops the lock.
  void release();

 private:
  WriterClaim() = default;
  std::string lock_;
  int fd_ = -1;
  bool kernel_locks_ = false;
  std::string note_;
};

}  // namespace tune
