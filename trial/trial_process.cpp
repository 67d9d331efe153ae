#include "trial_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "protocol/stdout_metric.hpp"

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
  void write(const char* data, ssize_t n) {
    if (fd_ < 0 && !failed_) {
      fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      failed_ = fd_ < 0;  // a full or vanished file system: the output is lost, the trial goes on
    }
    if (fd_ >= 0 && ::write(fd_, data, static_cast<std::size_t>(n)) < 0) {
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool failed_ = false;
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

// Calls text(piece) for literal text and name(n) for each {n} of `arg`.
template <typename Text, typename Name>
void scan_placeholders(const std::string& arg, Text text, Name name) {
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg.compare(i, 2, "{{") == 0 || arg.compare(i, 2, "}}") == 0) {
      text(std::string(1, arg[i]));
      ++i;
      continue;
    }
    if (arg[i] != '{') {
      text(std::string(1, arg[i]));
      continue;
    }
    const auto close = arg.find('}', i);
    if (close == std::string::npos) {
      text(arg.substr(i));
      break;
    }
    name(arg.substr(i + 1, close - i - 1));
    i = close;
  }
}

}  // namespace

std::vector<std::string> fill_placeholders(const std::vector<std::string>& argv,
                                           const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<std::string> out;
  for (const auto& arg : argv) {
    std::string s;
    scan_placeholders(
        arg, [&](const std::string& t) { s += t; },
        [&](const std::string& name) {
          for (const auto& [k, v] : values)
            if (k == name) {
              s += v;
              return;
            }
          throw std::invalid_argument(
              "the command names {" + name +
              "}, which is not a parameter of the search space (write {{ and }} for literal "
              "braces)");
        });
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> placeholder_names(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (const auto& arg : argv)
    scan_placeholders(
        arg, [](const std::string&) {}, [&](const std::string& n) { out.push_back(n); });
  return out;
}

TrialRun TrialProcess::run(const TrialLaunch& l, const ReportSink& on_report, const Poll& poll_hook) {
  TrialRun run;
  run.trial = l.trial;
  run.time_limit = l.time_limit;
  run.start_time = now_s();
  namespace fs = std::filesystem;
  std::error_code ec;
  // One mkdir where the study's trial directory exists (every trial but the
  // first). A directory made just now holds nothing of an earlier attempt:
  // no old logs to remove, no checkpoint to look for (three lookups fewer per
  // trial; on Lustre or NFS each is a round trip to the metadata server).
  bool fresh = mkdir(l.trial_dir.c_str(), 0755) == 0;
  if (!fresh && errno != EEXIST) fresh = fs::create_directories(l.trial_dir, ec);
  bool written = false;
  {
    const std::string text = l.params_json + "\n";
    const int fd =
        open((l.trial_dir + "/params.json").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    written = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (fd >= 0 && close(fd) != 0) written = false;
  }
  if (!written || l.argv.empty()) {
    run.launch_error = l.argv.empty()
                           ? "empty command"
                           : "cannot write the trial's files in " + l.trial_dir + ": " + std::strerror(errno);
    run.end_time = now_s();
    return run;
  }
  // The program's output reaches stdout and stderr in the trial directory
  // through pipes, and each file is created when its first byte comes: a
  // silent trial costs no file (creating files was most of a short trial's
  // launch). An earlier attempt's logs go first.
  LazyFile out(l.trial_dir + "/stdout", fresh), err(l.trial_dir + "/stderr", fresh);
  Pipe report, stdout_pipe, stderr_pipe;
  std::optional<StdoutMetric> metric;
  if (!l.metric_regex.empty()) metric.emplace(l.metric_regex);

  // argv and environment prepared before fork: the child may not allocate.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string_view kv(*e);
    bool overridden = false;
    for (const auto& [k, v] : l.env)
      if (kv.size() > k.size() && kv.substr(0, k.size()) == k && kv[k.size()] == '=') overridden = true;
    if (!overridden) env_strings.emplace_back(kv);
  }
  for (const auto& [k, v] : l.env) env_strings.push_back(k + "=" + v);
  if (!l.checkpoint_dir.empty()) {
    // What an earlier attempt left (a signal, a requeue, a lost node) is the
    // program's to continue from; an empty or new directory restores nothing.
    // Not created here: a mkdir (and rank 0's rmdir) for every trial, used or
    // not, halved the dispatch rate of short trials; the clients create it
    // when the program asks for it.
    const bool inside = l.checkpoint_dir.rfind(l.trial_dir + "/", 0) == 0;
    const bool restored =
        !(fresh && inside) && fs::is_directory(l.checkpoint_dir, ec) && !fs::is_empty(l.checkpoint_dir, ec);
    env_strings.push_back("TUNE_CHECKPOINT_DIR=" + fs::absolute(l.checkpoint_dir).string());
    env_strings.push_back(std::string("TUNE_CHECKPOINT_RESTORED=") + (restored ? "1" : "0"));
  }
  // The report file: created empty now, read from `report_offset` on as it grows.
  int report_file = -1;
  off_t report_offset = 0;
  if (l.reports_in_file) {
    const std::string path = fs::absolute(l.trial_dir + "/reports").string();
    report_file = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    env_strings.push_back("TUNE_REPORT_FILE=" + path);
  } else {
    env_strings.push_back("TUNE_REPORT_FD=" + std::to_string(kReportFd));
  }
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = l.argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  const Spawned child = spawn_child(argv.data(), envp.data(), report.w, stdout_pipe.w, stderr_pipe.w);
  report.close_w();
  stdout_pipe.close_w();
  stderr_pipe.close_w();
  if (child.pid < 0) {
    run.launch_error = "cannot execute '" + l.argv[0] + "': " + std::strerror(child.error);
    run.end_time = now_s();
    return run;
  }
  const pid_t pid = child.pid;

  ReportParser parser;
  std::vector<Report> reports;
  auto take_reports = [&] {
    for (auto& r : reports) {
      if (r.objective) run.objective = r.objective;
      if (r.step && *r.step > run.last_step) run.last_step = *r.step;
      if (on_report) on_report(r);
    }
    reports.clear();
  };
  char buf[65536];
  bool report_open = true, stdout_open = true, stderr_open = true;
  // A pidfd turns readable when the child exits, so one poll() waits for
  // output and for the exit alike (kernels before 5.3: a 1 ms tick instead).
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  auto read_report_file = [&] {
    if (report_file < 0) return;
    for (ssize_t got; (got = pread(report_file, buf, sizeof buf, report_offset)) > 0;) {
      report_offset += got;
      parser.feed(std::string_view(buf, static_cast<std::size_t>(got)), reports);
    }
  };
  auto drain = [&](bool block) {
    read_report_file();
    pollfd fds[4];
    int n = 0;
    if (report_open) fds[n++] = {report.r, POLLIN, 0};
    if (stdout_open) fds[n++] = {stdout_pipe.r, POLLIN, 0};
    if (stderr_open) fds[n++] = {stderr_pipe.r, POLLIN, 0};
    const int data_fds = n;
    if (pidfd >= 0 && block) fds[n++] = {pidfd, POLLIN, 0};
    if (n == 0) {
      if (block) ::poll(nullptr, 0, 1);
      return;
    }
    if (::poll(fds, n, block ? 20 : 0) <= 0) return;
    for (int i = 0; i < data_fds; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (fds[i].fd == report.r) {
        if (got > 0) {
          parser.feed(std::string_view(buf, got), reports);
        } else {
          report_open = false;
        }
      } else if (fds[i].fd == stdout_pipe.r) {
        if (got > 0) {
          if (metric) metric->feed(std::string_view(buf, got));
          out.write(buf, got);
        } else {
          stdout_open = false;
        }
      } else {
        if (got > 0)
          err.write(buf, got);
        else
          stderr_open = false;
      }
    }
    take_reports();
  };

  const double t0 = mono_s();
  std::optional<double> term_sent;
  int status = 0;
  rusage usage{};
  for (;;) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    drain(true);
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
  for (int i = 0; i < 50 && (report_open || stdout_open || stderr_open); ++i) drain(false);
  read_report_file();
  if (report_file >= 0) close(report_file);
  parser.finish(reports);
  take_reports();
  if (metric) {
    metric->finish();
    run.objective = metric->value();
  }
  run.end_time = now_s();
  run.bad_report_lines = parser.bad_lines();
  run.first_report_error = parser.first_error();
  run.peak_rss_kb = usage.ru_maxrss;
  if (WIFEXITED(status)) {
    run.exited = true;
    run.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
  }
  if (pidfd >= 0) close(pidfd);
  return run;
}

}  // namespace tune
