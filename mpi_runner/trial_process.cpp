#include "trial_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
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

// Closes every descriptor from `from` to `to` (inclusive).
void close_fds(unsigned from, unsigned to) {
  if (from > to) return;
  if (syscall(SYS_close_range, from, to, 0u) == 0) return;
  const long max = sysconf(_SC_OPEN_MAX);  // kernels before 5.9
  for (long fd = from; fd <= std::min<long>(to, max > 0 ? max : 65536); ++fd) close(static_cast<int>(fd));
}

// Only async-signal-safe calls between fork and exec.
[[noreturn]] void exec_child(char* const* argv, char* const* envp, int report_w, int stdout_fd, int stderr_fd,
                             int err_w) {
  setpgid(0, 0);  // its own process group, so a limit ends everything it started
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s : {SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD, SIGHUP}) signal(s, SIG_DFL);
  // Lift every descriptor we keep above the numbers dup2 will fill.
  const int er = fcntl(err_w, F_DUPFD_CLOEXEC, 10);
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int r = fcntl(report_w, F_DUPFD_CLOEXEC, 10), o = fcntl(stdout_fd, F_DUPFD_CLOEXEC, 10),
            e = fcntl(stderr_fd, F_DUPFD_CLOEXEC, 10), n = fcntl(devnull, F_DUPFD_CLOEXEC, 10);
  dup2(n, 0);
  dup2(o, 1);
  dup2(e, 2);
  dup2(r, kReportFd);
  // Nothing else of the runner (MPI sockets, the history) leaks into the trial;
  // `er` stays until exec closes it, or carries exec's errno to the runner.
  close_fds(kReportFd + 1, static_cast<unsigned>(er) - 1);
  close_fds(static_cast<unsigned>(er) + 1, ~0u);
  execvpe(argv[0], argv, envp);
  const int err = errno;
  if (write(er, &err, sizeof err) < 0) _exit(127);
  _exit(127);
}

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
    scan_placeholders(arg, [&](const std::string& t) { s += t; }, [&](const std::string& name) {
      for (const auto& [k, v] : values)
        if (k == name) {
          s += v;
          return;
        }
      throw std::invalid_argument("the command names {" + name +
                                  "}, which is not a parameter of the search space (write {{ and }} for literal "
                                  "braces)");
    });
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> placeholder_names(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (const auto& arg : argv) scan_placeholders(arg, [](const std::string&) {}, [&](const std::string& n) { out.push_back(n); });
  return out;
}

TrialRun TrialProcess::run(const TrialLaunch& l, const ReportSink& on_report, const Poll& poll_hook) {
  TrialRun run;
  run.trial = l.trial;
  run.time_limit = l.time_limit;
  run.start_time = now_s();
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(l.trial_dir, ec);
  {
    std::ofstream(l.trial_dir + "/params.json") << l.params_json << '\n';
  }
  const int out_fd = open((l.trial_dir + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = open((l.trial_dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out_fd < 0 || err_fd < 0 || l.argv.empty()) {
    run.launch_error = l.argv.empty() ? "empty command" : "cannot write the trial logs in " + l.trial_dir + ": " +
                                                              std::strerror(errno);
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    run.end_time = now_s();
    return run;
  }
  Pipe report, exec_err;
  std::optional<Pipe> stdout_pipe;
  std::optional<StdoutMetric> metric;
  if (!l.metric_regex.empty()) {
    metric.emplace(l.metric_regex);
    stdout_pipe.emplace();
  }

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
    const bool restored = fs::is_directory(l.checkpoint_dir, ec) && !fs::is_empty(l.checkpoint_dir, ec);
    fs::create_directories(l.checkpoint_dir, ec);
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

  const pid_t pid = fork();
  if (pid < 0) {
    run.launch_error = std::string("fork: ") + std::strerror(errno);
    close(out_fd);
    close(err_fd);
    run.end_time = now_s();
    return run;
  }
  if (pid == 0)
    exec_child(argv.data(), envp.data(), report.w, stdout_pipe ? stdout_pipe->w : out_fd, err_fd, exec_err.w);
  setpgid(pid, pid);  // also here: no race with the child's own call
  report.close_w();
  exec_err.close_w();
  if (stdout_pipe) stdout_pipe->close_w();

  int exec_errno = 0;
  if (read(exec_err.r, &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    run.launch_error = "cannot execute '" + l.argv[0] + "': " + std::strerror(exec_errno);
  }

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
  bool report_open = true, stdout_open = stdout_pipe.has_value();
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
    pollfd fds[3];
    int n = 0;
    if (report_open) fds[n++] = {report.r, POLLIN, 0};
    if (stdout_open) fds[n++] = {stdout_pipe->r, POLLIN, 0};
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
      } else {
        if (got > 0) {
          metric->feed(std::string_view(buf, got));
          if (write(out_fd, buf, got) < 0) {
          }
        } else {
          stdout_open = false;
        }
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
  for (int i = 0; i < 50 && (report_open || stdout_open); ++i) drain(false);
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
  close(out_fd);
  close(err_fd);
  return run;
}

}  // namespace tune
