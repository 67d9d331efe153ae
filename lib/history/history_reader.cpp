// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a history that may be being written, here or on another host.
//
// HDF5's SWMR makes a read consistent while a writer on the same host
// appends: it needs POSIX write ordering, which NFS (and any file system read
// through another host's cache) does not give. There a read can see new
// metadata beside old data pages, or rows written only in part. Every row
// carries a checksum (schema.hpp), so such a read is detected: the file is
// read again until it reads whole, and at worst each row is shown as it last
// read whole, with a warning.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "history/history.hpp"
#include "history/schema.hpp"

namespace tune {
using namespace schema;
namespace {

// Whether flock() works on FILE's file system: readers keep HDF5's own locks
// only where it does (see latest_format_fapl).
bool locks_work(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;  // HDF5 says why it cannot open it
  bool works = true;
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0)
    ::flock(fd, LOCK_UN);
  else if (locks_unsupported(errno))
    works = false;
  ::close(fd);
  return works;
}

struct FileState {
  off_t size = -1;
  long mtime_s = 0, mtime_ns = 0;
  bool operator==(const FileState&) const = default;
};
FileState state_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec};
}

// One read. `intact[i]`: row i of /trials read whole (its checksum matches,
// its id is i and its state is one a writer writes).
struct Read {
  HistorySnapshot snap;
  std::vector<bool> intact;
  std::size_t torn_reports = 0;
  bool whole() const {
    return torn_reports == 0 && std::find(intact.begin(), intact.end(), false) == intact.end();
  }
};

Read read_once(const std::string& path, bool with_reports, bool hdf5_locks) {
  Id fapl = latest_format_fapl(path, hdf5_locks);
  // SWMR read: consistent while a writer on this host appends, and after it was killed.
  hid_t fid = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl.get());
  if (fid < 0) {
    H5Eclear2(H5E_DEFAULT);
    fid = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  }
  Id file = checked(fid, H5Fclose, path, "cannot open as an HDF5 file (is it a tune history?)");
  Read r;
  r.snap.study = read_study(file.get(), path);
  Id trials = checked(H5Dopen2(file.get(), "trials", H5P_DEFAULT), H5Dclose, path, "no /trials dataset");
  TrialLayout tl(r.snap.study.space, r.snap.study.objectives, has_member(trials.get(), "check"),
                 has_member(trials.get(), "from"));
  const auto rows = read_rows(trials.get(), tl.row_type.get(), tl.size, path);
  for (std::size_t i = 0; i < rows.size() / tl.size; ++i) {
    const char* row = rows.data() + i * tl.size;
    const bool whole = tl.intact(row) && TrialLayout::get<std::uint64_t>(row, tl.id) == i &&
                       TrialLayout::get<std::uint8_t>(row, tl.state) < kTrialStates;
    r.intact.push_back(whole);
    if (whole) {
      r.snap.trials.push_back(tl.decode(row, r.snap.study.space));
    } else {  // a stand-in, never shown: replaced or cut off by read_history
      Trial t;
      t.id = i;
      r.snap.trials.push_back(t);
    }
  }
  if (with_reports) {
    Id reports = checked(H5Dopen2(file.get(), "reports", H5P_DEFAULT), H5Dclose, path, "no /reports dataset");
    r.snap.reports = read_report_rows(reports.get(), path, &r.torn_reports);
  }
  return r;
}

// The snapshot a reader can show when no read was whole: each row as it last
// read whole, up to the first row that never did.
HistorySnapshot settle(Read last, const std::map<std::size_t, Trial>& last_whole, int attempts) {
  HistorySnapshot& snap = last.snap;
  std::size_t kept = snap.trials.size(), replaced = 0;
  for (std::size_t i = 0; i < snap.trials.size(); ++i) {
    if (last.intact[i]) continue;
    const auto it = last_whole.find(i);
    if (it == last_whole.end()) {
      kept = i;
      break;
    }
    snap.trials[i] = it->second;
    ++replaced;
  }
  const std::size_t cut = snap.trials.size() - kept;
  snap.trials.resize(kept);
  std::string what;
  if (replaced) what += std::to_string(replaced) + " trial row(s) shown as an earlier read found them";
  if (cut)
    what +=
        std::string(what.empty() ? "" : "; ") + "the last " + std::to_string(cut) + " trial row(s) left out";
  if (last.torn_reports)
    what +=
        std::string(what.empty() ? "" : "; ") + std::to_string(last.torn_reports) + " report row(s) left out";
  snap.warning =
      "the file did not read whole in " + std::to_string(attempts) +
      " attempts: it is being written (on another host?), or a killed writer's last data never reached "
      "the disk; showing its last consistent state (" +
      what + ")";
  return std::move(snap);
}

}  // namespace

HistorySnapshot read_history(const std::string& path, bool with_reports) {
  quiet_hdf5();
  if (!std::filesystem::exists(path)) {
    // A study tune submit has queued has its script beside the history to be.
    const auto script = std::filesystem::path(path).replace_extension(".sbatch");
    if (std::filesystem::exists(script))
      throw HistoryError(path + ": no such history file yet: " + script.string() +
                         " is beside it, so its job has probably not started (squeue --me shows it)");
    throw HistoryError(path + ": no such history file");
  }
  const bool hdf5_locks = locks_work(path);
  constexpr int kAttempts = 8;
  std::optional<Read> last;
  std::map<std::size_t, Trial> last_whole;  // row -> as it last read whole
  std::optional<HistoryError> error;
  FileState before = state_of(path);
  bool changed = false;
  int attempt = 0;
  for (; attempt < kAttempts; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(std::min(25 << attempt, 1000)));
    try {
      Read r = read_once(path, with_reports, hdf5_locks);
      error.reset();
      if (r.whole()) {
        last = std::move(r);
        break;
      }
      for (std::size_t i = 0; i < r.intact.size(); ++i)
        if (r.intact[i]) last_whole[i] = r.snap.trials[i];
      last = std::move(r);
    } catch (const HistoryError& e) {
      error = e;
    }
    // A file that does not change reads the same again: stop.
    const FileState now = state_of(path);
    if (now == before && attempt > 0) break;
    changed = changed || !(now == before);
    before = now;
  }
  if (error && !last)
    throw HistoryError(std::string(error->what()) +
                       (changed ? " (read " + std::to_string(attempt) +
                                      " times while it changed: it is being written; try again)"
                                : ""));
  HistorySnapshot snap =
      last->whole() ? std::move(last->snap) : settle(std::move(*last), last_whole, attempt + 1);
  // Reports of trials that the trial rows read did not reach yet.
  const std::uint64_t n = snap.trials.size();
  std::erase_if(snap.reports, [n](const ReportRow& r) { return r.trial >= n; });
  return snap;
}

}  // namespace tune
