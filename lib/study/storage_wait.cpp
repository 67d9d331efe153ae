// SPDX-License-Identifier: GPL-2.0-or-later
#include "study/storage_wait.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "history/history.hpp"

namespace tune {

bool is_storage_error(int error) {
  return storage_errno(error);
}

std::string describe(const StorageFault& f) {
  const std::string where = "the file system of " + f.path;
  const std::string doing = " writing " + f.what + " (" + std::strerror(f.error) + ")";
  // The history moves with its study (copy it, then --resume); trials' files go where --trial-dir says.
  const bool history = f.what == "the history";
  const std::string elsewhere =
      history ? "copy the history to a file system with room and run again with --resume"
              : "give --trial-dir on another file system";
  switch (f.error) {
    case ENOSPC: return where + " is full" + doing + ": free space there, or " + elsewhere;
    case EDQUOT:
      return "your quota on the file system of " + f.path + " is used up" + doing +
             ": free some of it (quota -s shows it), or " + elsewhere;
    case EROFS:
      return where + " is mounted read-only" + doing +
             ": ask the admins when it comes back, or give --trial-dir and --history elsewhere";
    case EIO:
      return where + " fails" + doing +
             " (its disk or its server): ask the admins, or give --trial-dir and --history elsewhere";
    default: return where + ":" + doing;
  }
}

StorageKept storage_kept(const std::vector<Trial>& trials) {
  StorageKept out;
  double newest = -1;
  for (const auto& t : trials) {
    if (t.state != TrialState::Interrupted || !t.message.starts_with(kKeptByStorage)) continue;
    ++out.trials;
    if (t.end_time >= newest) newest = t.end_time, out.message = t.message.substr(kKeptByStorage.size());
  }
  return out;
}

bool StorageWait::fault(const StorageFault& f, double now) {
  last_ = f;
  if (waiting()) return false;
  since_ = now;
  pause_ = 1;
  next_probe_ = now + pause_;
  return true;
}

void StorageWait::probe_failed(const StorageFault& f, double now) {
  last_ = f;
  if (!waiting()) since_ = now;
  pause_ = std::min(60.0, pause_ * 2);
  next_probe_ = now + pause_;
}

double StorageWait::probe_ok(double now) {
  const double waited = waiting() ? now - since_ : 0;
  since_ = -1;
  pause_ = 1;
  return waited;
}

}  // namespace tune
