// SPDX-License-Identifier: GPL-2.0-or-later
#include "trial_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "history/place_modes.hpp"
#include "trial/trial_dir.hpp"
#include "trial_output/stdout_metric.hpp"

namespace tune {
namespace {

// The report pipe's number in the trial; TUNE_REPORT_FD says so.
constexpr int kReportFd = 3;

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}
double mono_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// Starts the program with posix_spawn (a vfork-style clone: no copy of the
// runner's page tables, which fork() spent most of a short trial's launch
// on): its own process group, default signal handling and an empty mask,
// stdin /dev/null, stdout and stderr to the given descriptors, the report
// pipe as fd 3 and nothing else of the runner (MPI sockets, the history).
// Returns the pid, or the errno of a program that could not be started.
struct Spawned {
  pid_t pid = -1;
  int error = 0;
};
Spawned spawn_child(char* const* argv, char* const* envp, int report_w, int stdout_fd, int stderr_fd) {
  // Each descriptor lifted above the numbers the child's dup2s fill, so no
  // dup2 overwrites one still to be copied.
  int lifted[3] = {fcntl(report_w, F_DUPFD_CLOEXEC, 10), fcntl(stdout_fd, F_DUPFD_CLOEXEC, 10),
                   fcntl(stderr_fd, F_DUPFD_CLOEXEC, 10)};
  Spawned out;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, lifted[1], 1);
  posix_spawn_file_actions_adddup2(&fa, lifted[2], 2);
  posix_spawn_file_actions_adddup2(&fa, lifted[0], kReportFd);
  posix_spawn_file_actions_addclosefrom_np(&fa, kReportFd + 1);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own process group, so a limit ends everything it started
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  out.error = posix_spawnp(&out.pid, argv[0], &fa, &attr, argv, envp);
  if (out.error != 0) out.pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  for (int fd : lifted)
    if (fd >= 0) close(fd);
  return out;
}

// A log file created at its first write (an earlier attempt's removed at once).
class LazyFile {
 public:
  LazyFile(std::string path, bool fresh_dir) : path_(std::move(path)) {
    if (!fresh_dir) unlink(path_.c_str());
  }
  ~LazyFile() {
    if (fd_ >= 0) close(fd_);
  }
  LazyFile(const LazyFile&) = delete;
  LazyFile& operator=(const LazyFile&) = delete;
  // A full or failing file system loses the output, not the trial: the
  // first such errno is kept (fault()), and the trial goes on.
  void write(const char* data, ssize_t n) {
    if (fd_ < 0 && !failed_) {
      fd_ = open_fresh(path_);
      failed_ = fd_ < 0;
      if (failed_ && is_storage_error(errno)) fault_ = StorageFault{errno, path_, "the trial's output"};
    }
    if (fd_ >= 0 && ::write(fd_, data, static_cast<std::size_t>(n)) < 0 && !fault_ && is_storage_error(errno))
      fault_ = StorageFault{errno, path_, "the trial's output"};
  }
  const std::optional<StorageFault>& fault() const { return fault_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool failed_ = false;
  std::optional<StorageFault> fault_;
};

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    r = fds[0];
    w = fds[1];
  }
  ~Pipe() {
    if (r >= 0) close(r);
    if (w >= 0) close(w);
  }
  void close_w() {
    if (w >= 0) close(w);
    w = -1;
  }
};

}  // namespace

namespace {

// The storage state of `dir`'s file system, as statvfs tells it: read-only
// (EROFS), or less than 64 KiB left to an unprivileged writer (ENOSPC).
std::optional<StorageFault> storage_full(const std::string& dir) {
  struct statvfs fs {};
  if (statvfs(dir.c_str(), &fs) != 0) return std::nullopt;
  const char* what = "the trial's files (the program failed then)";
  if (fs.f_flag & ST_RDONLY) return StorageFault{EROFS, dir, what};
  if (static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize) < 65536.0)
    return StorageFault{ENOSPC, dir, what};
  return std::nullopt;
}

// The trial's directory and its params.json. `fresh`: the directory was made
// just now, so it holds nothing of an earlier attempt. One mkdir where the
// study's trial directory exists (every trial but the first): no old logs to
// remove, no checkpoint to look for (three lookups fewer per trial; on Lustre
// or NFS each is a round trip to the metadata server). Nothing: written.
std::optional<std::string> prepare_trial_dir(const TrialLaunch& l, bool& fresh,
                                             std::optional<StorageFault>& fault) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fresh = mkdir(l.trial_dir.c_str(), dir_mode_in(fs::path(l.trial_dir).parent_path().string())) == 0;
  const int made = fresh ? 0 : errno;
  if (!fresh && made != EEXIST) fresh = make_dirs(l.trial_dir) == 0;
  // The directory could not be made for the storage's fault (read-only,
  // full): that, not the missing directory the write then meets, is the cause.
  if (!fresh && is_storage_error(made) && !fs::is_directory(l.trial_dir, ec)) {
    fault = StorageFault{made, l.trial_dir, "the trial's files"};
    return "cannot make the trial's directory " + l.trial_dir + ": " + std::strerror(made);
  }
  const std::string text = l.params_json + "\n";
  const int fd = open_fresh(trial_files::in(l.trial_dir, trial_files::kParams));
  bool written = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0 && close(fd) != 0) written = false;
  if (written) return std::nullopt;
  const int error = errno;
  if (is_storage_error(error)) fault = StorageFault{error, l.trial_dir, "the trial's files"};
  return "cannot write the trial's files in " + l.trial_dir + ": " + std::strerror(error);
}

// The checkpoint the trial starts from (TrialLaunch::checkpoint_from), copied
// into its own checkpoint directory unless that holds something already.
// Nothing: copied, or nothing to copy (a source that kept no checkpoint:
// the trial starts from scratch). A copy the storage refuses is its fault.
std::optional<std::string> copy_start_checkpoint(const TrialLaunch& l, std::optional<StorageFault>& fault) {
  namespace fs = std::filesystem;
  if (l.checkpoint_from.empty() || l.checkpoint_dir.empty()) return std::nullopt;
  std::error_code ec;
  if (fs::is_directory(l.checkpoint_dir, ec) && !fs::is_empty(l.checkpoint_dir, ec)) return std::nullopt;
  if (!fs::is_directory(l.checkpoint_from, ec) || fs::is_empty(l.checkpoint_from, ec)) return std::nullopt;
  const std::string part = l.checkpoint_dir + ".copy";
  fs::remove_all(part, ec);  // what an attempt cut off while copying left
  ec.clear();
  fs::copy(l.checkpoint_from, part, fs::copy_options::recursive, ec);
  if (!ec) {
    fs::remove(l.checkpoint_dir, ec);  // empty, if there
    ec.clear();
    fs::rename(part, l.checkpoint_dir, ec);
  }
  if (!ec) return std::nullopt;
  const int error = ec.value();
  fs::remove_all(part, ec);
  if (is_storage_error(error)) fault = StorageFault{error, l.checkpoint_dir, "the checkpoint it starts from"};
  return "cannot copy the checkpoint " + l.checkpoint_from + " to " + l.checkpoint_dir + ": " +
         std::strerror(error);
}

// The program's environment: ours with the launch's variables over it, and
// the checkpoint directory's (what an earlier attempt left, a signal, a
// requeue, a lost node, is the program's to continue from; an empty or new
// directory restores nothing). The directory is not created here: a mkdir
// (and rank 0's rmdir) for every trial, used or not, halved the dispatch
// rate of short trials; the clients create it when the program asks.
std::vector<std::string> trial_environment(const TrialLaunch& l, bool fresh) {
  namespace fs = std::filesystem;
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view kv(*e);
    bool overridden = false;
    for (const auto& [k, v] : l.env)
      if (kv.size() > k.size() && kv.substr(0, k.size()) == k && kv[k.size()] == '=') overridden = true;
    if (!overridden) env.emplace_back(kv);
  }
  for (const auto& [k, v] : l.env) env.push_back(k + "=" + v);
  if (!l.checkpoint_dir.empty()) {
    std::error_code ec;
    const bool inside = l.checkpoint_dir.rfind(l.trial_dir + "/", 0) == 0;
    const bool restored =
        !(fresh && inside) && fs::is_directory(l.checkpoint_dir, ec) && !fs::is_empty(l.checkpoint_dir, ec);
    env.push_back("TUNE_CHECKPOINT_DIR=" + fs::absolute(l.checkpoint_dir).string());
    env.push_back(std::string("TUNE_CHECKPOINT_RESTORED=") + (restored ? "1" : "0"));
    if (l.from_trial) env.push_back("TUNE_CHECKPOINT_FROM=" + std::to_string(*l.from_trial));
  }
  return env;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// What a running trial sends back: its reports (on the pipe, or appended to
// a file), its stdout (to the metric regex and the log) and its stderr (to
// the log). The logs are files created when their first byte comes: a silent
// trial costs no file (creating files was most of a short trial's launch);
// an earlier attempt's go first.
class TrialOutput {
 public:
  TrialOutput(const TrialLaunch& l, bool fresh, TrialRun& run, const TrialProcess::ReportSink& on_report)
      : out_(trial_files::in(l.trial_dir, trial_files::kStdout), fresh),
        err_(trial_files::in(l.trial_dir, trial_files::kStderr), fresh),
        run_(run),
        on_report_(on_report) {
    if (!l.metric_regex.empty()) metric_.emplace(l.metric_regex);
    if (l.reports_in_file) {
      // Created empty now, read from report_offset_ on as it grows.
      report_path_ = std::filesystem::absolute(trial_files::in(l.trial_dir, trial_files::kReports)).string();
      report_file_ = open_fresh(report_path_, O_RDWR);
    }
  }
  ~TrialOutput() {
    if (report_file_ >= 0) close(report_file_);
  }
  TrialOutput(const TrialOutput&) = delete;
  TrialOutput& operator=(const TrialOutput&) = delete;

  // Where the program reports: TUNE_REPORT_FILE or TUNE_REPORT_FD.
  std::string report_variable() const {
    return report_path_.empty() ? "TUNE_REPORT_FD=" + std::to_string(kReportFd)
                                : "TUNE_REPORT_FILE=" + report_path_;
  }
  // The child's ends of the pipes; closed here once it has them.
  int report_w() const { return report_.w; }
  int stdout_w() const { return stdout_.w; }
  int stderr_w() const { return stderr_.w; }
  void close_child_ends() {
    report_.close_w();
    stdout_.close_w();
    stderr_.close_w();
  }
  bool streams_open() const { return report_open_ || stdout_open_ || stderr_open_; }

  // Reads what has come; `block`: waits up to 20 ms for output or for the
  // child's exit (`pidfd`, or a 1 ms tick without one).
  void drain(bool block, int pidfd) {
    read_report_file();
    pollfd fds[4];
    int n = 0;
    if (report_open_) fds[n++] = {report_.r, POLLIN, 0};
    if (stdout_open_) fds[n++] = {stdout_.r, POLLIN, 0};
    if (stderr_open_) fds[n++] = {stderr_.r, POLLIN, 0};
    const int data_fds = n;
    if (pidfd >= 0 && block) fds[n++] = {pidfd, POLLIN, 0};
    if (n == 0) {
      if (block) ::poll(nullptr, 0, 1);
      return;
    }
    if (::poll(fds, n, block ? 20 : 0) <= 0) return;
    for (int i = 0; i < data_fds; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = read(fds[i].fd, buf_, sizeof buf_);
      const std::string_view data(buf_, got > 0 ? static_cast<std::size_t>(got) : 0);
      if (fds[i].fd == report_.r) {
        if (got > 0)
          parser_.feed(data, reports_);
        else
          report_open_ = false;
      } else if (fds[i].fd == stdout_.r) {
        if (got > 0) {
          if (metric_) metric_->feed(data);
          out_.write(buf_, got);
        } else {
          stdout_open_ = false;
        }
      } else {
        if (got > 0)
          err_.write(buf_, got);
        else
          stderr_open_ = false;
      }
    }
    take_reports();
  }

  // The program has exited: the rest of its output, its last report, its metric.
  void finish() {
    for (int i = 0; i < 50 && streams_open(); ++i) drain(false, -1);
    read_report_file();
    parser_.finish(reports_);
    take_reports();
    if (metric_) {
      metric_->finish();
      run_.objective = metric_->value();
    }
    run_.bad_report_lines = parser_.bad_lines();
    run_.first_report_error = parser_.first_error();
    run_.output_fault = out_.fault() ? out_.fault() : err_.fault();
  }

 private:
  void read_report_file() {
    if (report_file_ < 0) return;
    for (ssize_t got; (got = pread(report_file_, buf_, sizeof buf_, report_offset_)) > 0;) {
      report_offset_ += got;
      parser_.feed(std::string_view(buf_, static_cast<std::size_t>(got)), reports_);
    }
  }
  void take_reports() {
    for (auto& r : reports_) {
      if (r.objective) run_.objective = r.objective;
      if (r.step && *r.step > run_.last_step) run_.last_step = *r.step;
      if (on_report_) on_report_(r);
    }
    reports_.clear();
  }

  LazyFile out_, err_;
  Pipe report_, stdout_, stderr_;
  TrialRun& run_;
  const TrialProcess::ReportSink& on_report_;
  std::optional<StdoutMetric> metric_;
  std::string report_path_;
  int report_file_ = -1;
  off_t report_offset_ = 0;
  ReportParser parser_;
  std::vector<Report> reports_;
  bool report_open_ = true, stdout_open_ = true, stderr_open_ = true;
  char buf_[65536];
};

// Waits for the child while its output is drained; ends it at its time limit
// or when `poll_hook` says so (SIGTERM to its group, SIGKILL after the grace).
// Returns its wait status; its usage goes to `usage`.
int watch(pid_t pid, const TrialLaunch& l, TrialOutput& output, const TrialProcess::Poll& poll_hook,
          TrialRun& run, rusage& usage) {
  // A pidfd turns readable when the child exits, so one poll() waits for
  // output and for the exit alike (kernels before 5.3: a 1 ms tick instead).
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  const double t0 = mono_s();
  std::optional<double> term_sent;
  int status = 0;
  for (;;) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    output.drain(true, pidfd);
    const double elapsed = mono_s() - t0;
    if (!term_sent) {
      if (l.time_limit > 0 && elapsed > l.time_limit) {
        run.timed_out = true;
      } else if (poll_hook && poll_hook()) {
        run.interrupted = true;
      }
      if (run.timed_out || run.interrupted) {
        kill(-pid, SIGTERM);
        term_sent = elapsed;
      }
    } else if (elapsed - *term_sent > l.grace) {
      kill(-pid, SIGKILL);
    }
  }
  // Whatever the program left behind in its group ends with it.
  kill(-pid, SIGKILL);
  if (pidfd >= 0) close(pidfd);
  return status;
}

}  // namespace

TrialRun TrialProcess::run(const TrialLaunch& l, const ReportSink& on_report, const Poll& poll_hook) {
  TrialRun run;
  run.trial = l.trial;
  run.time_limit = l.time_limit;
  run.start_time = now_s();
  bool fresh = false;
  if (l.argv.empty())
    run.launch_error = "empty command";
  else
    run.launch_error = prepare_trial_dir(l, fresh, run.storage_fault);
  if (!run.launch_error && !run.storage_fault && !l.checkpoint_from.empty()) {
    run.launch_error = copy_start_checkpoint(l, run.storage_fault);
    fresh = false;  // the checkpoint directory may hold the copy now: look
  }
  if (run.storage_fault) run.launch_error.reset();  // not the program's: run again
  if (run.launch_error || run.storage_fault) {
    run.end_time = now_s();
    return run;
  }
  TrialOutput output(l, fresh, run, on_report);
  // argv and environment prepared before fork: the child may not allocate.
  std::vector<std::string> env = trial_environment(l, fresh);
  env.push_back(output.report_variable());
  std::vector<std::string> args = l.argv;
  const std::vector<char*> envp = pointers_to(env), argv = pointers_to(args);
  const Spawned child =
      spawn_child(argv.data(), envp.data(), output.report_w(), output.stdout_w(), output.stderr_w());
  output.close_child_ends();
  if (child.pid < 0) {
    run.launch_error = "cannot execute '" + l.argv[0] + "': " + std::strerror(child.error);
    run.end_time = now_s();
    return run;
  }
  rusage usage{};
  const int status = watch(child.pid, l, output, poll_hook, run, usage);
  output.finish();
  run.end_time = now_s();
  run.peak_rss_kb = usage.ru_maxrss;
  if (WIFEXITED(status)) {
    run.exited = true;
    run.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
  }
  // A program that failed while its trial directory's file system was full or
  // read-only most likely failed writing there (its checkpoint, its files):
  // the storage's fault, and the trial runs again once it has room.
  const bool failed = !(run.exited && run.exit_code == 0);
  if (failed && !run.interrupted && !run.timed_out && !run.pruned)
    if (auto full = storage_full(l.trial_dir)) run.storage_fault = std::move(full);
  return run;
}

}  // namespace tune
