// SPDX-License-Identifier: GPL-2.0-or-later
#include "history/writer_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <utility>

#include "history/history.hpp"

namespace tune {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string iso_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw HistoryError(path + ": " + what + ": " + std::strerror(err));
}

// Everything left to read from `fd` (errno set and nothing returned on an error).
std::optional<std::string> read_rest(int fd) {
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  if (n < 0) return std::nullopt;
  return text;
}

// The whole file, or nothing if it does not exist (any other error throws).
std::optional<std::string> read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    fail(path, "cannot read the owner record", errno);
  }
  auto text = read_rest(fd);
  const int err = errno;
  ::close(fd);
  if (!text) fail(path, "cannot read the owner record", err);
  return text;
}

bool same_file(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
         a.st_dev == b.st_dev;
}

// What a look at an existing FILE.lock found.
struct Existing {
  enum class Kind { Gone, Live, Stale } kind = Kind::Gone;
  std::string text;   // the record as read
  std::string owner;  // who, for people
  std::string why;
  bool checkable = true;  // false: nothing here can tell whether the owner runs
};

Existing inspect(const std::string& lock, const WriterClaim::Options& o, bool kernel_locks) {
  Existing e;
  int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && errno == EACCES) fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return e;  // released meanwhile: try again
    fail(lock, "cannot open the owner record", errno);
  }
  // Whether the kernel says nobody holds it. A free lock is not enough to
  // call a record stale: a writer whose flock() fails (another client's
  // mount options) holds none; the record's own test decides.
  bool lock_free = false;
  if (kernel_locks) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 || (errno == EBADF && ::flock(fd, LOCK_SH | LOCK_NB) == 0)) {
      lock_free = true;
      if (!same_file(fd, lock)) {  // released and replaced meanwhile: try again
        ::close(fd);
        return e;
      }
    } else if (errno != EWOULDBLOCK && !locks_unsupported(errno)) {
      const int err = errno;
      ::close(fd);
      fail(lock, "cannot lock", err);
    }
  }
  const std::string text = read_rest(fd).value_or("");  // unreadable: judged as an unreadable record
  ::close(fd);
  e.text = text;
  const auto record = WriterRecord::from_json(text);
  e.owner = record ? record->describe() : "an unknown process (the record is unreadable)";
  if (kernel_locks && !lock_free && record) {
    e.kind = Existing::Kind::Live;
    e.why = "it holds the lock";
    return e;
  }
  if (kernel_locks && !lock_free) {  // an older tune holds it (it wrote no record)
    e.kind = Existing::Kind::Live;
    e.owner = "another tune process";
    e.why = "it holds the lock";
    return e;
  }
  if (!record) {
    // New records appear whole (linked in place), so an unreadable one was
    // left by an older tune, which only ever held it with flock.
    e.kind = Existing::Kind::Stale;
    e.why = "its record is unreadable and nobody holds it";
    return e;
  }
  const OwnerVerdict v = judge_owner(*record, o.self, o.processes, o.jobs);
  e.kind = v.stale ? Existing::Kind::Stale : Existing::Kind::Live;
  e.why = v.why;
  e.checkable = record->host == o.self.host || (record->job != 0 && o.jobs);
  return e;
}

}  // namespace

bool locks_unsupported(int err) {
  return err == ENOSYS || err == ENOLCK || err == EOPNOTSUPP || err == ENOTSUP || err == EINVAL;
}

std::string WriterRecord::to_json() const {
  return nlohmann::json{{"host", host},
                        {"boot_id", boot_id},
                        {"pid", pid},
                        {"pid_start", pid_start},
                        {"cluster", cluster},
                        {"job", job},
                        {"job_restarts", job_restarts},
                        {"started", started}}
      .dump();
}

std::optional<WriterRecord> WriterRecord::from_json(std::string_view text) {
  try {
    const auto j = nlohmann::json::parse(text);
    WriterRecord r;
    r.host = j.at("host").get<std::string>();
    r.boot_id = j.value("boot_id", "");
    r.pid = j.at("pid").get<std::int64_t>();
    r.pid_start = j.value("pid_start", std::uint64_t{0});
    r.cluster = j.value("cluster", "");
    r.job = j.value("job", std::uint32_t{0});
    r.job_restarts = j.value("job_restarts", std::uint32_t{0});
    r.started = j.value("started", "");
    if (r.host.empty() || r.pid <= 0) return std::nullopt;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string WriterRecord::describe() const {
  std::string s = "pid " + std::to_string(pid) + " on host " + host;
  if (job != 0)
    s += " (Slurm job " + std::to_string(job) + (cluster.empty() ? "" : " on cluster " + cluster) + ")";
  if (!started.empty()) s += ", writing since " + started;
  return s;
}

WriterRecord this_process() {
  WriterRecord r;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  r.host = host;
  r.boot_id = first_line("/proc/sys/kernel/random/boot_id");
  r.pid = ::getpid();
  r.pid_start = process_start(r.pid).value_or(0);
  r.started = iso_now();
  return r;
}

std::optional<std::uint64_t> process_start(std::int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // Field 22 (starttime); the command (field 2) may hold spaces and ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::stoull(field);
  return std::nullopt;
}

OwnerVerdict judge_owner(const WriterRecord& owner, const WriterRecord& here, const ProcessStart& processes,
                         const JobLookup& jobs) {
  const std::string pid = std::to_string(owner.pid);
  if (owner.host == here.host) {
    if (!owner.boot_id.empty() && !here.boot_id.empty() && owner.boot_id != here.boot_id)
      return {true, "host " + owner.host + " has restarted since"};
    const auto start = processes(owner.pid);
    if (!start) return {true, "process " + pid + " is gone"};
    if (owner.pid_start != 0 && *start != owner.pid_start)
      return {true, "process " + pid + " is gone (its pid now belongs to another process)"};
    return {false, "process " + pid + " is still running on this host"};
  }
  if (owner.job == 0)
    return {
        false,
        "it runs outside a Slurm job on another host, so whether it still runs cannot be checked from here"};
  const std::string job = "Slurm job " + std::to_string(owner.job);
  if (!jobs) return {false, "it runs on another host and no Slurm is reachable here to ask about " + job};
  const JobStatus st = jobs(owner.job);
  if (!st.cluster.empty() && !owner.cluster.empty() && st.cluster != owner.cluster)
    return {false, job + " belongs to cluster " + owner.cluster + ", and this host's Slurm is cluster " +
                       st.cluster};
  switch (st.kind) {
    case JobStatus::Kind::Ended: return {true, job + " has ended (" + st.detail + ")"};
    case JobStatus::Kind::Active:
      if (st.restarts > owner.job_restarts)
        return {true, job + " was requeued since (now restart " + std::to_string(st.restarts) +
                          "), so that run is gone"};
      return {false, job + " is still " + st.detail};
    case JobStatus::Kind::Unknown: break;
  }
  return {false, "cannot ask Slurm about " + job + ": " + st.detail};
}

WriterClaim WriterClaim::take(const std::string& history, const Options& o) {
  WriterClaim c;
  c.lock_ = history + ".lock";
  const std::string& lock = c.lock_;
  // The record is written whole under a name of its own, then linked in place.
  const std::string mine = lock + "." + o.self.host + "." + std::to_string(o.self.pid);
  const std::string takeover = lock + ".takeover";
  ::unlink(mine.c_str());  // left by a process of ours that was killed (same host, same pid)
  c.fd_ = ::open(mine.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (c.fd_ < 0) fail(mine, "cannot create the owner record", errno);
  struct Cleanup {  // a claim that fails leaves no file behind
    const std::string& path;
    bool armed = true;
    ~Cleanup() {
      if (armed) ::unlink(path.c_str());
    }
  } cleanup{mine};
  const std::string text = o.self.to_json() + "\n";
  if (::write(c.fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size()) || ::fsync(c.fd_) != 0)
    fail(mine, "cannot write the owner record", errno);
  if (!o.kernel_locks) {
    c.kernel_locks_ = false;
  } else if (::flock(c.fd_, LOCK_EX | LOCK_NB) == 0) {
    c.kernel_locks_ = true;
  } else if (!locks_unsupported(errno)) {
    fail(mine, "cannot lock", errno);
  }

  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::link(mine.c_str(), lock.c_str()) == 0) break;
    const int err = errno;
    struct stat st {};
    // NFS: a link whose reply was lost may have happened (open(2), O_EXCL).
    if (::fstat(c.fd_, &st) == 0 && st.st_nlink == 2) break;
    if (err != EEXIST) fail(lock, "cannot create the owner record", err);
    const Existing e = inspect(lock, o, c.kernel_locks_);
    if (e.kind == Existing::Kind::Gone) continue;
    if (e.kind == Existing::Kind::Live) {
      std::string msg = history + ": another tune process is writing this history: " + e.owner + " (" +
                        e.why + "). Wait for it to end, or give another history file";
      if (!e.checkable) msg += ". If it is no longer running, remove " + lock + " and run again";
      throw HistoryError(msg);
    }
    // Stale: take it over, one taker at a time (FILE.lock.takeover, linked
    // like the record), and only if it is still the record judged.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.takeover_wait);
    while (::link(mine.c_str(), takeover.c_str()) != 0) {
      if (errno != EEXIST) fail(takeover, "cannot create", errno);
      // Another taker: its file is its owner record, judged like FILE.lock.
      // One killed mid-way is stale, or (if nothing here can judge it) older
      // than ours by 30 s of the file system's own clock.
      const Existing taker = inspect(takeover, o, c.kernel_locks_);
      if (taker.kind == Existing::Kind::Gone) continue;
      struct stat theirs {
      }, ours{};
      if (taker.kind == Existing::Kind::Stale ||
          (::stat(takeover.c_str(), &theirs) == 0 && ::fstat(c.fd_, &ours) == 0 &&
           ours.st_mtime - theirs.st_mtime > 30)) {
        ::unlink(takeover.c_str());
        continue;
      }
      if (std::chrono::steady_clock::now() > deadline)
        throw HistoryError(history +
                           ": another tune process is taking over this history's stale owner record " + lock +
                           " right now; try again in a moment");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const auto now = read_file(lock);
    if (now && *now == e.text) {
      ::unlink(lock.c_str());
      c.note_ = "took over " + history + " from " + e.owner + ": " + e.why;
    }
    ::unlink(takeover.c_str());
  }
  if (!same_file(c.fd_, lock))
    throw HistoryError(history +
                       ": could not claim it after 100 attempts: other tune processes keep taking it");
  cleanup.armed = false;
  ::unlink(mine.c_str());
  return c;
}

WriterClaim::WriterClaim(WriterClaim&& o) noexcept
    : lock_(std::move(o.lock_)),
      fd_(std::exchange(o.fd_, -1)),
      kernel_locks_(o.kernel_locks_),
      note_(std::move(o.note_)) {}

WriterClaim& WriterClaim::operator=(WriterClaim&& o) noexcept {
  if (this != &o) {
    release();
    lock_ = std::move(o.lock_);
    fd_ = std::exchange(o.fd_, -1);
    kernel_locks_ = o.kernel_locks_;
    note_ = std::move(o.note_);
  }
  return *this;
}

WriterClaim::~WriterClaim() {
  release();
}

std::optional<std::string> WriterClaim::taken() const {
  if (fd_ < 0) return std::nullopt;
  struct stat mine {
  }, now{};
  if (::fstat(fd_, &mine) != 0) return std::nullopt;
  if (::stat(lock_.c_str(), &now) != 0) {
    if (errno == ENOENT) return "nobody: its owner record " + lock_ + " was removed";
    return std::nullopt;  // an NFS hiccup is no loss
  }
  if (now.st_ino == mine.st_ino && now.st_dev == mine.st_dev) return std::nullopt;
  std::optional<std::string> text;
  try {
    text = read_file(lock_);
  } catch (const HistoryError&) {
  }
  const auto record = text ? WriterRecord::from_json(*text) : std::nullopt;
  return record ? record->describe() : "another process (its owner record " + lock_ + " is unreadable)";
}

void WriterClaim::release() {
  if (fd_ < 0) return;
  // Removed before the lock drops: whoever gets the lock then sees a file
  // that is no longer FILE.lock and looks again.
  if (same_file(fd_, lock_)) ::unlink(lock_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace tune
