// SPDX-License-Identifier: GPL-2.0-or-later
#include "wrap_command.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "launch/mpi_launch.hpp"
#include "run_command.hpp"
#include "study/yield_protocol.hpp"

namespace tune {
namespace {

// Runs argv with the signals in `blocked` unblocked again; -1 if it could not start.
pid_t spawn(const std::vector<std::string>& argv, const sigset_t& blocked) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    sigprocmask(SIG_UNBLOCK, &blocked, nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "tune wrap: error: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  return pid;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int wrap_command(const std::vector<std::string>& command, bool mpi) {
  if (command.empty()) {
    std::cerr << "tune wrap: error: no command: give it after --, e.g. tune wrap -- mpirun tune run ...\n";
    return kExitUsage;
  }
  if (mpi) {
    try {
      for (const auto& change : mpi_study_env([](const char* name) { return std::getenv(name); })) {
        if (change.value)
          setenv(change.name.c_str(), change.value->c_str(), 1);
        else
          unsetenv(change.name.c_str());
      }
    } catch (const std::invalid_argument& e) {
      std::cerr << "tune wrap: error: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  // The signals are taken synchronously (sigwaitinfo): blocked here before
  // the child starts, so none arrives between the fork and the wait.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  const pid_t child = spawn(command, set);
  if (child < 0) {
    std::cerr << "tune wrap: error: cannot start " << command[0] << ": " << std::strerror(errno) << "\n";
    return kExitUsage;
  }
  bool terminated = false;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) {
      status = 1 << 8;
      break;
    }
    siginfo_t info;
    const int sig = sigwaitinfo(&set, &info);
    if (sig == SIGUSR1) {
      kill(child, SIGUSR1);  // a yield, a time-limit warning: the study drains and exits 75
    } else if (sig == SIGTERM) {
      terminated = true;  // scancel, preemption: the study stops and the job is not requeued
      kill(child, SIGTERM);
    }
  }
  const char* job = std::getenv("SLURM_JOB_ID");
  const WrapEnd end =
      wrap_end(exit_code_of(status), terminated, job ? std::optional<std::string>(job) : std::nullopt);
  if (!end.message.empty()) std::cout << end.message << std::endl;
  if (end.requeue) {
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    const std::vector<std::string> requeue{"scontrol", "requeue", std::string(job)};
    sigset_t none;
    sigemptyset(&none);
    const pid_t pid = spawn(requeue, none);
    int rs = 0;
    if (pid < 0 || waitpid(pid, &rs, 0) != pid || !WIFEXITED(rs) || WEXITSTATUS(rs) != 0)
      std::cerr << "tune wrap: error: scontrol requeue " << job
                << " failed (its message is above); the study is intact: resubmit this script to resume it\n";
  }
  return end.exit_code;
}

}  // namespace tune
