// SPDX-License-Identifier: GPL-2.0-or-later
// A fault of the study's storage, not of the user's program: a full file
// system (ENOSPC), a used-up quota (EDQUOT), one mounted read-only (EROFS)
// or failing (EIO) under the history, a trial's directory, a checkpoint or a
// log. Named with its path, what was being written and the fix; a trial it
// kept from starting or finishing is interrupted (run again), never failed;
// and while it lasts the study hands out no trial, probing the storage with a
// growing pause, until it has room again or the wait's bound passes. The
// policy only: the AppCore probes (writes a small file) and says the lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "history/trial.hpp"

namespace tune {

struct StorageFault {
  int error = 0;     // errno
  std::string path;  // the file or directory tune could not write
  std::string what;  // what was being written ("the trial's files")
  bool operator==(const StorageFault&) const = default;
};

// Whether errno `error` is the storage's fault (ENOSPC, EDQUOT, EROFS, EIO).
bool is_storage_error(int error);
// "the file system of PATH is full (No space left on device) writing WHAT:
// free space there, or give --trial-dir on another file system", per errno.
std::string describe(const StorageFault& f);

// How an interrupted trial's message begins when the storage kept it from
// running (classify(), before describe()).
inline constexpr std::string_view kKeptByStorage = "the storage's fault, to run again: ";
// The trials the storage kept from running, still to run (interrupted with
// such a message), and the newest one's message: what tune status shows.
struct StorageKept {
  std::size_t trials = 0;
  std::string message;
};
StorageKept storage_kept(const std::vector<Trial>& trials);

class StorageWait {
 public:
  // `max_wait`: seconds the study waits for its storage before it stops
  // (--storage-wait); 0 stops at the first fault.
  explicit StorageWait(double max_wait = 600) : max_wait_(max_wait) {}

  // A write failed for the storage's fault: the wait starts (or goes on).
  // True when it starts now (a line to say).
  bool fault(const StorageFault& f, double now);
  bool waiting() const { return since_ >= 0; }
  // The time has come to try the storage again.
  bool probe_due(double now) const { return waiting() && now >= next_probe_; }
  // A probe failed: the next one after twice the pause (1 s, 2 s, ... 60 s).
  void probe_failed(const StorageFault& f, double now);
  // A probe wrote: the wait is over; returns how long it lasted.
  double probe_ok(double now);
  // The wait has lasted longer than its bound: the study stops.
  bool expired(double now) const { return waiting() && now - since_ > max_wait_; }
  double max_wait() const { return max_wait_; }
  // The last fault seen (what the stop's message names).
  const std::optional<StorageFault>& last() const { return last_; }

 private:
  double max_wait_;
  double since_ = -1;
  double pause_ = 1;
  double next_probe_ = 0;
  std::optional<StorageFault> last_;
};

}  // namespace tune
